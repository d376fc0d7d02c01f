//! The procedure's "Read the storage results" script, line for line: the same columns,
//! the same arithmetic and the same Python formatting, so its numbers can be checked
//! digit for digit. Also says where the script goes wrong on a file, and why.

use crate::parse::fio::{DirStats, FioOutput};

/// `f"{'array/job':36} {'MB/s':>8} {'kIOPS':>8} {'read p99 us':>12} {'write p99 us':>12}"`.
pub fn header() -> String {
    format!(
        "{:<36} {:>8} {:>8} {:>12} {:>12}",
        "array/job", "MB/s", "kIOPS", "read p99 us", "write p99 us"
    )
}

/// The script's line for a file, as the script prints it (it reads only `jobs[0]`).
pub fn script_line(array: &str, out: &FioOutput) -> Option<String> {
    let j = out.jobs.first()?;
    let label = format!("{array}/{}", j.jobname);
    // `s.get("bw_bytes", 0)`: fio 2.x's `bw` (KiB/s) is not read, so it prints 0.
    let mb = |d: &DirStats| {
        if d.bw_bytes_given {
            d.bw_bytes / 1e6
        } else {
            0.0
        }
    };
    Some(format_line(
        &label,
        mb(&j.read) + mb(&j.write),
        (j.read.iops + j.write.iops) / 1000.0,
        script_p99(&j.read),
        script_p99(&j.write),
    ))
}

/// `f"{label:36} {mb:8.0f} {kiops:8.1f} {p99(r):>12} {p99(w):>12}"`.
pub fn format_line(
    label: &str,
    mb_s: f64,
    kiops: f64,
    read: Option<f64>,
    write: Option<f64>,
) -> String {
    format!(
        "{label:<36} {mb_s:8.0} {kiops:8.1} {:>12} {:>12}",
        p99_text(read),
        p99_text(write)
    )
}

/// `f"{v / 1000:.0f}" if v else "-"`: zero and missing both print `-`.
pub fn p99_text(ns: Option<f64>) -> String {
    match ns {
        Some(v) if v != 0.0 => format!("{:.0}", v / 1000.0),
        _ => "-".to_string(),
    }
}

/// The script's p99: `(clat_ns or lat_ns or {}).percentile["99.000000"]`. A `clat_ns`
/// block without percentiles (fio `--lat_percentiles`) hides the ones in `lat_ns`;
/// fio 2.x's µs blocks (`clat`, `lat`) are not read at all.
fn script_p99(d: &DirStats) -> Option<f64> {
    if !d.ns_latency {
        return None;
    }
    let clat_present = d.clat.n > 0 || d.clat.mean != 0.0 || !d.clat.percentiles.is_empty();
    let block = if clat_present { &d.clat } else { &d.lat };
    block.percentile(99.0)
}

/// Why the script stops at this file (it `json.load`s the whole file and reads
/// `["jobs"][0]`): the error it stops with. It has printed its header and the rows of
/// the files sorted before this one; it prints nothing after.
pub fn script_stops(out: &FioOutput) -> Option<String> {
    if !out.text_before.is_empty() {
        return Some(format!(
            "text before the JSON (`{}`): the script stops here with a JSONDecodeError",
            out.text_before[0]
        ));
    }
    if out.documents > 1 || out.text_after || out.broken_tail.is_some() {
        return Some(
            "more than one JSON document or text after it: the script stops here with `Extra data`"
                .into(),
        );
    }
    if out.client_stats {
        return Some(
            "fio --client output (`client_stats`, no `jobs`): the script stops here with KeyError: 'jobs'"
                .into(),
        );
    }
    if out.jobs.is_empty() {
        return Some("an empty `jobs` list: the script stops here with an IndexError".into());
    }
    None
}

/// Where the script's line for a readable file is misleading, and why.
pub fn script_misreads(out: &FioOutput) -> Vec<String> {
    let mut why = Vec::new();
    let groups: std::collections::BTreeSet<u64> = out.jobs.iter().map(|j| j.groupid).collect();
    if out.jobs.len() > 1 {
        why.push(format!(
            "{} jobs[] entries in {} group(s): the script reads only jobs[0]; reprobench sums each group as group_reporting would",
            out.jobs.len(),
            groups.len()
        ));
    }
    if let Some(j) = out.jobs.iter().find(|j| j.error != 0) {
        why.push(format!(
            "job `{}` ended with error {}: the script prints its numbers as if it had succeeded",
            j.jobname, j.error
        ));
    }
    if let Some(j) = out.jobs.first() {
        let moved = |d: &DirStats| d.total_ios > 0 || d.io_bytes > 0;
        if [&j.read, &j.write]
            .iter()
            .any(|d| moved(d) && (!d.bw_bytes_given || !d.ns_latency))
        {
            why.push(
                "fio 2.x units (`bw` in KiB/s, `clat`/`lat` in µs, no `bw_bytes` or `_ns` blocks): the script prints 0 MB/s and `-` for what it does not find; reprobench converts them"
                    .into(),
            );
        }
        for (dir, d) in [("read", &j.read), ("write", &j.write)] {
            if d.ns_latency
                && d.total_ios > 0
                && script_p99(d).is_none()
                && d.lat.percentile(99.0).is_some()
            {
                why.push(format!(
                    "{dir} percentiles are only in lat_ns (--lat_percentiles): the script prints `-`; reprobench shows total-latency p99"
                ));
            }
        }
    }
    why
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_python() {
        assert_eq!(
            header(),
            "array/job                                MB/s    kIOPS  read p99 us write p99 us"
        );
        let line = format_line(
            "raid10/randread-8k-j32-d32",
            16851.2,
            2057.0,
            Some(1_646_592.0),
            None,
        );
        assert_eq!(
            line,
            "raid10/randread-8k-j32-d32              16851   2057.0         1647            -"
        );
        // Python rounds halves to even on the exact binary value, as Rust does.
        assert_eq!(p99_text(Some(2500.0)), "2");
        assert_eq!(p99_text(Some(3500.0)), "4");
        assert_eq!(p99_text(Some(0.0)), "-");
    }
}
