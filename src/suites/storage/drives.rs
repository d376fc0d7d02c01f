//! Per-drive figures from an iostat log taken during one fio job: mean throughput and
//! write wait per member drive, balance across drives, and host system CPU.

use serde::Serialize;

use crate::parse::iostat::IostatLog;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriveMean {
    pub device: String,
    /// Mean rMB/s + wMB/s over the samples.
    pub mb_s: f64,
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

/// The drives fio was pointed at (`filename=/dev/a:/dev/b`), when they are plain drives
/// rather than an md or dm array.
pub fn named_drives(filename: Option<&str>) -> Vec<String> {
    filename
        .unwrap_or("")
        .split(':')
        .filter_map(|p| p.trim().rsplit('/').next())
        .filter(|n| !n.is_empty() && !is_aggregate(n))
        .map(str::to_string)
        .collect()
}

/// Mean figures per member drive over all samples, for drives that moved any data.
/// Members are the drives fio named when iostat shows them, else every active device
/// that is not an md or dm aggregate.
pub fn drive_means(log: &IostatLog, named: &[String]) -> Vec<DriveMean> {
    let seen = |n: &String| {
        log.samples
            .iter()
            .any(|s| s.devices.iter().any(|d| *d.device == **n))
    };
    let use_named = !named.is_empty() && named.iter().all(seen);
    // One pass over the samples, sums per device in order of first appearance.
    #[derive(Default)]
    struct Sums<'a> {
        device: &'a str,
        mb: f64,
        iops: f64,
        waits: (f64, usize),
        utils: (f64, usize),
    }
    let mut sums: Vec<Sums> = Vec::new();
    for s in &log.samples {
        for d in &s.devices {
            let member = if use_named {
                named.iter().any(|n| **n == *d.device)
            } else {
                !is_aggregate(&d.device)
            };
            if !member {
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
            x.mb += d.r_mb_s.unwrap_or(0.0) + d.w_mb_s.unwrap_or(0.0);
            x.iops += d.r_s.unwrap_or(0.0) + d.w_s.unwrap_or(0.0);
            if let Some(w) = d.w_await.filter(|_| d.w_s.unwrap_or(0.0) > 0.0) {
                x.waits.0 += w;
                x.waits.1 += 1;
            }
            if let Some(u) = d.util {
                x.utils.0 += u;
                x.utils.1 += 1;
            }
        }
    }
    let n = log.samples.len().max(1) as f64;
    let mean = |(sum, count): (f64, usize)| (count > 0).then(|| sum / count as f64);
    sums.into_iter()
        .filter(|x| x.mb > 0.0)
        .map(|x| DriveMean {
            device: x.device.to_string(),
            mb_s: x.mb / n,
            iops: x.iops / n,
            w_await_ms: mean(x.waits),
            util: mean(x.utils),
        })
        .collect()
}

/// The slowest member's throughput over the fastest's (1.0 is perfectly balanced).
pub fn balance(drives: &[DriveMean]) -> Option<f64> {
    if drives.len() < 2 {
        return None;
    }
    let max = drives.iter().map(|d| d.mb_s).fold(f64::MIN, f64::max);
    let min = drives.iter().map(|d| d.mb_s).fold(f64::MAX, f64::min);
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
        let drives = drive_means(&log, &[]);
        let names: Vec<_> = drives.iter().map(|d| d.device.as_str()).collect();
        assert_eq!(
            names,
            ["nvme0n1", "nvme1n1"],
            "md126 and idle vda are not members"
        );
        assert_eq!(drives[1].w_await_ms, Some(3.0));
        assert_eq!(balance(&drives), Some(0.5));
        assert_eq!(
            cpu_system(&log),
            Some(15.0),
            "the since-boot block is not counted"
        );
        assert_eq!(mean_w_await(&drives), Some(3.0));
        let named = named_drives(Some("/dev/nvme1n1:/dev/md126"));
        assert_eq!(named, ["nvme1n1"]);
        assert_eq!(
            drive_means(&log, &named).len(),
            1,
            "fio's filename picks the members"
        );
    }
}
