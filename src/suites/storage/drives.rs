//! Per-drive figures from an iostat log taken during one fio job: mean throughput and
//! write wait per member drive, balance across drives, and host system CPU.

use serde::Serialize;

use crate::parse::iostat::IostatLog;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriveMean {
    pub device: String,
    /// Mean rMB/s + wMB/s over the samples, as iostat prints them: MiB/s.
    pub mib_s: crate::model::units::MiBps,
    pub iops: f64,
    /// Mean w_await (ms) over samples in which the drive wrote.
    pub w_await_ms: Option<f64>,
    pub util: Option<f64>,
}

/// Aggregate devices (the md array itself, device-mapper) carry the members' traffic
/// again; they are not members.
pub fn is_aggregate(device: &str) -> bool {
    device.starts_with("md") || device.starts_with("dm-")
}

/// Mean figures per member drive over all samples, for the members the iostat log
/// shows (an idle member is kept: it is part of the balance). iostat's MB/s are MiB/s
/// (2^20 bytes); `mib_s` keeps them so, and `units` converts.
pub fn drive_means(log: &IostatLog, members: &[String]) -> Vec<DriveMean> {
    #[derive(Default)]
    struct Sums<'a> {
        device: &'a str,
        mib: f64,
        iops: f64,
        waits: (f64, usize),
        utils: (f64, usize),
    }
    let mut sums: Vec<Sums> = Vec::new();
    for s in &log.samples {
        for d in &s.devices {
            if !members.iter().any(|n| **n == *d.device) {
                continue;
            }
            let at = match sums.iter().position(|x| *x.device == *d.device) {
                Some(i) => i,
                None => {
                    sums.push(Sums {
                        device: &d.device,
                        ..Sums::default()
                    });
                    sums.len() - 1
                }
            };
            let x = &mut sums[at];
            x.mib += d.r_mb_s().unwrap_or(0.0) + d.w_mb_s().unwrap_or(0.0);
            x.iops += d.r_s().unwrap_or(0.0) + d.w_s().unwrap_or(0.0);
            if let Some(w) = d.w_await().filter(|_| d.w_s().unwrap_or(0.0) > 0.0) {
                x.waits.0 += w;
                x.waits.1 += 1;
            }
            if let Some(u) = d.util() {
                x.utils.0 += u;
                x.utils.1 += 1;
            }
        }
    }
    let n = log.samples.len().max(1) as f64;
    let mean = |(sum, count): (f64, usize)| (count > 0).then(|| sum / count as f64);
    let mut out: Vec<DriveMean> = sums
        .into_iter()
        .map(|x| DriveMean {
            device: x.device.to_string(),
            mib_s: crate::model::units::MiBps(x.mib / n),
            iops: x.iops / n,
            w_await_ms: mean(x.waits),
            util: mean(x.utils),
        })
        .collect();
    out.sort_by_key(|d| members.iter().position(|m| *m == d.device));
    out
}

/// The slowest member's throughput over the fastest's (1.0 is perfectly balanced).
pub fn balance(drives: &[DriveMean]) -> Option<f64> {
    if drives.len() < 2 {
        return None;
    }
    let max = drives.iter().map(|d| d.mib_s.0).fold(f64::MIN, f64::max);
    let min = drives.iter().map(|d| d.mib_s.0).fold(f64::MAX, f64::min);
    (max > 0.0).then(|| min / max)
}

/// Mean `avg-cpu %system` over the samples.
pub fn cpu_system(log: &IostatLog) -> Option<f64> {
    let v: Vec<f64> = log.samples.iter().filter_map(|s| s.cpu_system).collect();
    mean(&v)
}

/// Mean write wait across member drives, weighted equally.
pub fn mean_w_await(drives: &[DriveMean]) -> Option<f64> {
    let v: Vec<f64> = drives.iter().filter_map(|d| d.w_await_ms).collect();
    mean(&v)
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::iostat::parse_bytes;

    const LOG: &str = "avg-cpu:  %user   %nice %system %iowait  %steal   %idle
 1 0 1 0 0 98

Device  r/s rMB/s r_await w/s wMB/s w_await %util
nvme0n1 0 0 0 0 0 0 0

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
 1 0 10 0 0 89

Device  r/s rMB/s r_await w/s wMB/s w_await %util
nvme0n1 100 100 0.1 0 0 0 50
nvme1n1 100 50 0.1 10 0 2.0 50
md126 200 150 0 0 0 0 0
vda 0 0 0 0 0 0 0

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
 1 0 20 0 0 79

Device  r/s rMB/s r_await w/s wMB/s w_await %util
nvme0n1 100 100 0.1 0 0 0 50
nvme1n1 100 50 0.1 10 0 4.0 50
md126 200 150 0 0 0 0 0
vda 0 0 0 0 0 0 0
";

    #[test]
    fn computes_member_means_balance_and_cpu() {
        let log = parse_bytes(LOG.as_bytes()).expect("parses");
        let members = ["nvme1n1".to_string(), "nvme0n1".to_string()];
        let drives = drive_means(&log, &members);
        let names: Vec<_> = drives.iter().map(|d| d.device.as_str()).collect();
        assert_eq!(
            names,
            ["nvme1n1", "nvme0n1"],
            "only the members, in their order"
        );
        assert_eq!(drives[0].w_await_ms, Some(3.0));
        assert_eq!(balance(&drives), Some(0.5));
        assert_eq!(
            cpu_system(&log),
            Some(15.0),
            "the since-boot block is not counted"
        );
        assert_eq!(mean_w_await(&drives), Some(3.0));
        let with_idle = drive_means(&log, &["nvme0n1".to_string(), "vda".to_string()]);
        assert_eq!(
            with_idle.len(),
            2,
            "an idle member stays: it is part of the balance"
        );
        assert_eq!(balance(&with_idle), Some(0.0));
        assert!(
            drive_means(&log, &[]).is_empty(),
            "no members known, no drives"
        );
    }
}
