//! fio's bandwidth log (`--write_bw_log=NAME`): `NAME_bw.log` (`--per_job_logs=0`) or
//! one `NAME_bw.<N>.log` per job. Each line is `time (ms), value (KiB/s), data
//! direction (0 read, 1 write, 2 trim), block size, offset[, priority]`. The series is
//! read as fio writes it with `--log_avg_msec=1000`: one average per second per job.

use serde::Serialize;

use crate::error::Problem;
use crate::parse::text::TextCheck;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Entry {
    pub time_ms: u64,
    pub kib_s: f64,
    pub direction: u8,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct FioLog {
    pub entries: Vec<Entry>,
}

/// The job name a bandwidth log's file name gives: `randwrite-8k-j8-d8_bw.3.log` ->
/// `randwrite-8k-j8-d8`.
pub fn job_of(file_name: &str) -> Option<&str> {
    let stem = file_name.strip_suffix(".log")?;
    let stem = match stem.rsplit_once('.') {
        Some((s, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => s,
        _ => stem,
    };
    stem.strip_suffix("_bw").filter(|s| !s.is_empty())
}

pub fn parse_bytes(bytes: &[u8]) -> Result<FioLog, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
    let mut entries = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad = |why: &str| Problem::at(i + 1, format!("`{line}`: {why}"));
        if !(4..=6).contains(&f.len()) {
            return Err(bad(
                "not a fio log line (time, value, direction, block size[, offset, priority])",
            ));
        }
        let time_ms: u64 = f[0]
            .parse()
            .map_err(|_| bad("the time is not whole milliseconds"))?;
        let kib_s: f64 = f[1]
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| bad("the value is not a bandwidth"))?;
        let direction: u8 = f[2]
            .parse()
            .ok()
            .filter(|d| *d <= 2)
            .ok_or_else(|| bad("the data direction is not 0, 1 or 2"))?;
        entries.push(Entry {
            time_ms,
            kib_s,
            direction,
        });
    }
    if entries.is_empty() {
        return Err(Problem::whole("no log lines (the job ran under a second?)"));
    }
    Ok(FioLog { entries })
}

/// The logs of one job summed per second, in MB/s (decimal): entry times rounded to the
/// second. An error when a log was not written once a second (`--log_avg_msec=1000`):
/// then its entries are not per-second rates that add up.
pub fn per_second(logs: &[&FioLog]) -> Result<Vec<f64>, String> {
    let mut buckets: Vec<f64> = Vec::new();
    for log in logs {
        let mut times: Vec<u64> = log.entries.iter().map(|e| e.time_ms).collect();
        times.sort_unstable();
        times.dedup();
        let gaps: Vec<f64> = times.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
        if let Some(g) = crate::stats::median(&gaps) {
            if !(900.0..=1100.0).contains(&g) {
                return Err(format!(
                    "logged every {g:.0} ms, not once a second: write it with --log_avg_msec=1000"
                ));
            }
        }
        for e in &log.entries {
            let b = ((e.time_ms as f64) / 1000.0).round() as usize;
            if b > 1_000_000 {
                return Err("a time past 11 days: not one job's log".into());
            }
            if buckets.len() <= b {
                buckets.resize(b + 1, 0.0);
            }
            buckets[b] += e.kib_s * 1024.0 / 1e6;
        }
    }
    // fio's first entry is at the end of the first second.
    if !buckets.is_empty() {
        buckets.remove(0);
    }
    Ok(buckets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_fio_writes() {
        // fio 3.33, --write_bw_log --log_avg_msec=1000, two jobs.
        let a = parse_bytes(b"1000, 181656, 1, 0, 0\n2001, 191328, 1, 0, 0\n").expect("log");
        let b = parse_bytes(b"1000, 100000, 1, 0, 0\n2000, 100000, 1, 0, 0\n").expect("log");
        let s = per_second(&[&a, &b]).expect("series");
        assert_eq!(s.len(), 2);
        assert!((s[0] - (281656.0 * 1024.0 / 1e6)).abs() < 1e-9);
        assert_eq!(
            job_of("randwrite-8k-j8-d8_bw.3.log"),
            Some("randwrite-8k-j8-d8")
        );
        assert_eq!(job_of("read-1m_bw.log"), Some("read-1m"));
        assert_eq!(job_of("x_lat.1.log"), None);
    }

    #[test]
    fn refuses_other_logs_and_intervals() {
        assert_eq!(parse_bytes(b"1, 2\n").err().and_then(|p| p.line), Some(1));
        assert_eq!(
            parse_bytes(b"1000, 5, 7, 0, 0\n")
                .err()
                .and_then(|p| p.line),
            Some(1)
        );
        assert!(parse_bytes(b"").is_err());
        let fast = parse_bytes(b"500, 1, 0, 0\n1000, 1, 0, 0\n1500, 1, 0, 0\n").expect("log");
        assert!(per_second(&[&fast]).is_err_and(|e| e.contains("--log_avg_msec=1000")));
    }
}
