//! fio jobs summed per `groupid` the way `group_reporting` would: bytes and I/Os add up,
//! the runtime is the longest, bandwidth and IOPS follow from those (fio `stat.c`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::parse::fio::{DirStats, FioJob, FioOutput, Latency};

/// One reporting group of one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub groupid: u64,
    /// The first job's name (with group_reporting fio names the group after it).
    pub jobname: String,
    /// How many `jobs[]` entries were summed.
    pub entries: usize,
    /// Distinct job names in the group (several job sections).
    pub jobnames: Vec<String>,
    /// The first non-zero job error, or 0.
    pub error: i64,
    /// The I/O errors fio counted and went on past, over the group's jobs.
    pub total_err: u64,
    pub options: BTreeMap<String, String>,
    /// Whether the file records the group's options at all (see `params::recorded`).
    pub recorded: bool,
    pub read: Dir,
    pub write: Dir,
    pub sys_cpu: f64,
    pub usr_cpu: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Dir {
    pub io_bytes: u64,
    pub total_ios: u64,
    pub runtime_ms: u64,
    pub bw_bytes: f64,
    pub iops: f64,
    /// fio's own spread of the bandwidth samples, relative to their mean (`bw_dev /
    /// bw_mean`; jobs summed as independent: sqrt of the summed variances over the summed
    /// means). None when fio logged no samples.
    pub bw_rel_sd: Option<f64>,
    /// The standard error of the mean bandwidth within the run, relative to it: each
    /// job's `bw_dev / sqrt(bw_samples)`, summed as independent, over the summed means.
    /// The samples are taken as independent (they are not quite: consecutive intervals
    /// move together), so it is weaker evidence than repeated runs. None when a job has
    /// fewer than two samples or fio does not say how many.
    pub bw_rel_se: Option<f64>,
    /// 99th percentile completion latency in ns (total latency when fio reported only that).
    pub p99_ns: Option<f64>,
    /// `clat` or `lat`: which latency the percentile is of.
    pub p99_of: &'static str,
    /// False when several jobs were merged without `json+` bins: the value is then the
    /// largest per-job p99, an upper bound of the group's.
    pub p99_exact: bool,
    /// Mean total latency (submission + completion) in ns.
    pub mean_lat_ns: Option<f64>,
}

/// Groups the jobs of one fio file by `groupid`, in order of first appearance.
pub fn groups(out: &FioOutput) -> Vec<Group> {
    let mut order: Vec<u64> = Vec::new();
    let mut by_id: BTreeMap<u64, Vec<&FioJob>> = BTreeMap::new();
    for job in &out.jobs {
        if !by_id.contains_key(&job.groupid) {
            order.push(job.groupid);
        }
        by_id.entry(job.groupid).or_default().push(job);
    }
    order
        .into_iter()
        .map(|id| merge(out, id, &by_id[&id]))
        .collect()
}

fn merge(out: &FioOutput, groupid: u64, jobs: &[&FioJob]) -> Group {
    let first = jobs[0];
    // Distinct names in order of appearance (a set: files with tens of thousands of jobs
    // exist, and a list lookup made them quadratic).
    let mut seen = std::collections::HashSet::new();
    let mut jobnames: Vec<String> = Vec::new();
    for j in jobs {
        if seen.insert(j.jobname.as_str()) {
            jobnames.push(j.jobname.clone());
        }
    }
    let runtime_total: u64 = jobs.iter().map(|j| j.job_runtime_ms).sum();
    let cpu = |f: fn(&FioJob) -> f64| {
        if jobs.len() == 1 {
            f(first)
        } else if runtime_total > 0 {
            jobs.iter()
                .map(|j| f(j) * j.job_runtime_ms as f64)
                .sum::<f64>()
                / runtime_total as f64
        } else {
            jobs.iter().map(|j| f(j)).sum::<f64>() / jobs.len() as f64
        }
    };
    Group {
        groupid,
        jobname: first.jobname.clone(),
        entries: jobs.len(),
        jobnames,
        error: jobs.iter().map(|j| j.error).find(|&e| e != 0).unwrap_or(0),
        total_err: jobs
            .iter()
            .fold(0u64, |sum, j| sum.saturating_add(j.total_err)),
        options: out.options_for(first),
        recorded: super::params::recorded(out, first),
        read: merge_dir(jobs.iter().map(|j| &j.read).collect()),
        write: merge_dir(jobs.iter().map(|j| &j.write).collect()),
        sys_cpu: cpu(|j| j.sys_cpu),
        usr_cpu: cpu(|j| j.usr_cpu),
    }
}

fn merge_dir(dirs: Vec<&DirStats>) -> Dir {
    let (p99_ns, p99_of, p99_exact) = merged_p99(&dirs);
    let mean_lat_ns = merged_mean(dirs.iter().map(|d| &d.lat));
    let bw_rel_sd = bw_spread(&dirs);
    let bw_rel_se = bw_standard_error(&dirs);
    if let [one] = dirs[..] {
        return Dir {
            io_bytes: one.io_bytes,
            total_ios: one.total_ios,
            runtime_ms: one.runtime_ms,
            bw_bytes: one.bw_bytes,
            iops: one.iops,
            bw_rel_sd,
            bw_rel_se,
            p99_ns,
            p99_of,
            p99_exact,
            mean_lat_ns,
        };
    }
    let io_bytes: u64 = dirs.iter().map(|d| d.io_bytes).sum();
    let total_ios: u64 = dirs.iter().map(|d| d.total_ios).sum();
    let runtime_ms = dirs.iter().map(|d| d.runtime_ms).max().unwrap_or(0);
    let (bw_bytes, iops) = if runtime_ms > 0 {
        // fio: bw_bytes = (1000 * io_bytes) / runt in integers; iops in floating point.
        (
            ((1000u128 * io_bytes as u128) / runtime_ms as u128) as f64,
            1000.0 * total_ios as f64 / runtime_ms as f64,
        )
    } else {
        (0.0, 0.0)
    };
    Dir {
        io_bytes,
        total_ios,
        runtime_ms,
        bw_bytes,
        iops,
        bw_rel_sd,
        bw_rel_se,
        p99_ns,
        p99_of,
        p99_exact,
        mean_lat_ns,
    }
}

/// sqrt(sum of bw_dev^2 / divisor) / sum of bw_mean over the jobs that moved data in
/// this direction: the samples' spread with a divisor of 1, the mean's standard error
/// with `bw_samples` (None when a job has no divisor).
fn bw_relative(dirs: &[&DirStats], divisor: impl Fn(&DirStats) -> Option<f64>) -> Option<f64> {
    let active: Vec<&&DirStats> = dirs.iter().filter(|d| d.io_bytes > 0).collect();
    if active.is_empty() {
        return None;
    }
    let mut var = 0.0;
    let mut mean = 0.0;
    for d in active {
        let (m, s, n) = (d.bw_mean_kib?, d.bw_dev_kib?, divisor(d)?);
        var += s * s / n;
        mean += m;
    }
    (mean > 0.0).then(|| var.sqrt() / mean)
}

fn bw_spread(dirs: &[&DirStats]) -> Option<f64> {
    bw_relative(dirs, |_| Some(1.0))
}

/// See [`Dir::bw_rel_se`].
fn bw_standard_error(dirs: &[&DirStats]) -> Option<f64> {
    bw_relative(dirs, |d| d.bw_samples.filter(|n| *n >= 2).map(|n| n as f64))
}

/// The p99 of completion latency, or of total latency when only that has percentiles.
fn merged_p99(dirs: &[&DirStats]) -> (Option<f64>, &'static str, bool) {
    let active: Vec<&&DirStats> = dirs.iter().filter(|d| d.total_ios > 0).collect();
    if active.is_empty() {
        return (None, "clat", true);
    }
    for (of, pick) in [
        (
            "clat",
            (|d: &DirStats| &d.clat) as fn(&DirStats) -> &Latency,
        ),
        ("lat", |d: &DirStats| &d.lat),
    ] {
        let lats: Vec<&Latency> = active.iter().map(|d| pick(d)).collect();
        if lats.iter().all(|l| l.percentile(99.0).is_some()) {
            if let [one] = &lats[..] {
                return (one.percentile(99.0), of, true);
            }
            if lats.iter().all(|l| l.bins.is_some()) {
                return (percentile_from_bins(&lats, 99.0), of, true);
            }
            let max = lats
                .iter()
                .filter_map(|l| l.percentile(99.0))
                .fold(f64::MIN, f64::max);
            return (Some(max), of, false);
        }
    }
    (None, "clat", true)
}

/// fio's own rule (`calc_clat_percentiles`): the first bin whose running count reaches
/// `pct` percent of all samples.
pub fn percentile_from_bins(lats: &[&Latency], pct: f64) -> Option<f64> {
    let mut hist: BTreeMap<u64, u64> = BTreeMap::new();
    for l in lats {
        for &(ns, count) in l.bins.as_deref().unwrap_or(&[]) {
            *hist.entry(ns).or_default() += count;
        }
    }
    let total: u64 = hist.values().sum();
    if total == 0 {
        return None;
    }
    let need = pct / 100.0 * total as f64;
    let mut sum = 0u64;
    for (ns, count) in hist {
        sum += count;
        if sum as f64 >= need {
            return Some(ns as f64);
        }
    }
    None
}

/// Sample-weighted mean of several latency blocks.
fn merged_mean<'a>(lats: impl Iterator<Item = &'a Latency>) -> Option<f64> {
    let lats: Vec<&Latency> = lats.filter(|l| l.n > 0 || l.mean > 0.0).collect();
    match lats[..] {
        [] => None,
        [one] => Some(one.mean),
        _ => {
            let n: u64 = lats.iter().map(|l| l.n).sum();
            if n == 0 {
                return Some(lats.iter().map(|l| l.mean).sum::<f64>() / lats.len() as f64);
            }
            Some(lats.iter().map(|l| l.mean * l.n as f64).sum::<f64>() / n as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::fio::parse_path;
    use std::path::PathBuf;

    fn fixture(name: &str) -> FioOutput {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio")
            .join(name);
        parse_path(&p).expect("fixture parses")
    }

    #[test]
    fn bins_give_fio_own_percentiles_for_each_real_job() {
        let out = fixture("json-plus.json");
        assert_eq!(out.jobs.len(), 2);
        for j in &out.jobs {
            let printed = j.read.clat.percentile(99.0).expect("fio printed p99");
            let from_bins = percentile_from_bins(&[&j.read.clat], 99.0);
            assert_eq!(from_bins, Some(printed), "job {}", j.jobname);
            let p50 = j.read.clat.percentile(50.0).expect("fio printed p50");
            assert_eq!(percentile_from_bins(&[&j.read.clat], 50.0), Some(p50));
        }
    }

    #[test]
    fn sums_clones_without_group_reporting_as_fio_would() {
        let out = fixture("numjobs-no-group.json");
        assert_eq!(out.jobs.len(), 3);
        let g = &groups(&out)[0];
        assert_eq!(g.entries, 3);
        let io: u64 = out.jobs.iter().map(|j| j.read.io_bytes).sum();
        let ios: u64 = out.jobs.iter().map(|j| j.read.total_ios).sum();
        let rt = out
            .jobs
            .iter()
            .map(|j| j.read.runtime_ms)
            .max()
            .unwrap_or(0);
        assert_eq!(g.read.io_bytes, io);
        assert_eq!(g.read.bw_bytes, (1000 * io / rt) as f64);
        assert_eq!(g.read.iops, 1000.0 * ios as f64 / rt as f64);
        assert!(
            g.read.bw_bytes > out.jobs[0].read.bw_bytes * 2.0,
            "more than jobs[0]"
        );
        assert!(!g.read.p99_exact, "no bins: the p99 is an upper bound");
    }

    #[test]
    fn group_reporting_files_keep_fio_own_numbers() {
        // fio's own group sum (group_reporting=1) obeys the same arithmetic we use.
        let out = fixture("stonewall-groups.json");
        let gs = groups(&out);
        assert_eq!(gs.len(), 2, "two stonewalled groups");
        for (g, j) in gs.iter().zip(&out.jobs) {
            for (d, s) in [(&g.read, &j.read), (&g.write, &j.write)] {
                if let Some(bw) = (1000 * s.io_bytes).checked_div(s.runtime_ms) {
                    assert_eq!(d.bw_bytes, bw as f64);
                    let iops = 1000.0 * s.total_ios as f64 / s.runtime_ms as f64;
                    assert!((d.iops - iops).abs() < 1e-5, "{} vs {iops}", d.iops);
                }
            }
        }
        assert_eq!(gs[1].jobname, "seq-write");
    }

    #[test]
    fn two_job_sections_share_a_group() {
        let out = fixture("two-sections.json");
        let gs = groups(&out);
        assert_eq!(gs.len(), 1);
        assert_eq!(gs[0].jobnames, ["reader", "writer"]);
        assert!(gs[0].read.io_bytes > 0 && gs[0].write.io_bytes > 0);
    }

    #[test]
    fn percentiles_only_in_lat_are_used() {
        let out = fixture("lat-percentiles.json");
        let g = &groups(&out)[0];
        assert_eq!(g.read.p99_of, "lat");
        assert_eq!(g.read.p99_ns, out.jobs[0].read.lat.percentile(99.0));
        assert!(g.write.p99_ns.is_some());
    }

    #[test]
    fn real_field_cases_parse() {
        let noted = fixture("note-prefix.json");
        assert!(noted.text_before[0].starts_with("note: both iodepth"));
        let both = fixture("normal-json.json");
        assert!(!both.text_before.is_empty() && both.text_after);
        let status = fixture("status-interval.json");
        assert!(status.documents >= 2, "{}", status.documents);
        let dup = fixture("duplicate-keys.json");
        assert_eq!(dup.global_options["bs"], "8k");
        assert_eq!(dup.global_options["iodepth"], "4");
        let err = fixture("job-error.json");
        assert_eq!(groups(&err)[0].error, 22);
        let zero = fixture("zero-sized.json");
        assert!(zero.text_before[0].ends_with("zero sized block device?"));
        let p =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/numjobs-zero.json");
        let e = parse_path(&p).expect_err("no JSON");
        assert!(
            e.to_string()
                .contains("numjobs-zero.json`: line 1: no fio JSON"),
            "{e}"
        );
    }
}
