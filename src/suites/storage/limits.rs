//! Whether the drives were the ceiling: for each fio job with an iostat log, the member
//! drives' combined throughput and how busy they were, beside what fio measured. With
//! four drives of the reference class the procedure expects the drives, not the card,
//! to be the ceiling.

use crate::why::Limit;

use super::drives::{drive_means, named_drives};
use super::load::{Loaded, RunGroup};

/// Mean member %util at or above which the drives were the ceiling.
const BUSY: f64 = 90.0;
/// Below this the drives had headroom.
const HEADROOM: f64 = 70.0;

pub fn limits(loaded: &Loaded, groups: &[RunGroup]) -> Vec<Limit> {
    let mut out = Vec::new();
    let mut without = Vec::new();
    for g in groups {
        if g.run.stem == "precondition" {
            continue;
        }
        let key = (g.run.array_dir.clone(), g.run.stem.clone());
        let Some(f) = loaded.iostat.get(&key) else {
            without.push(g.label.clone());
            continue;
        };
        let named = named_drives(g.group.options.get("filename").map(String::as_str));
        let drives = drive_means(f.log, &named);
        let fio_mb = (g.group.read.bw_bytes + g.group.write.bw_bytes) / 1e6;
        let mut limit = Limit {
            suite: "storage".into(),
            subject: g.label.clone(),
            measured: format!("fio {fio_mb:.0} MB/s"),
            measured_value: Some(fio_mb),
            bound: String::new(),
            bound_value: None,
            unit: "MB/s".into(),
            formula: "member drives' mean rMB/s + wMB/s summed over the drives, and their mean %util, over the job's iostat samples".into(),
            reading: String::new(),
            files: vec![g.run.file.clone(), f.file.clone()],
        };
        if drives.is_empty() {
            limit.bound = "unknown: the iostat log shows no member drive moving data".into();
            out.push(limit);
            continue;
        }
        let total: f64 = drives.iter().map(|d| d.mb_s).sum();
        let utils: Vec<f64> = drives.iter().filter_map(|d| d.util).collect();
        let util = (!utils.is_empty()).then(|| utils.iter().sum::<f64>() / utils.len() as f64);
        limit.bound = format!(
            "{} drive(s) moved {total:.0} MB/s{}",
            drives.len(),
            util.map_or(String::new(), |u| format!(", mean %util {u:.0}"))
        );
        limit.bound_value = Some(total);
        limit.reading = match util {
            Some(u) if u >= BUSY => format!("the drives were the ceiling: busy {u:.0}% of the time"),
            Some(u) if u < HEADROOM => format!(
                "the drives had headroom (busy {u:.0}% of the time): the ceiling was above them, in the array layer (md or the card) or the host"
            ),
            Some(u) => format!("the drives were near their ceiling (busy {u:.0}% of the time)"),
            None => "the iostat log has no %util column: whether the drives were the ceiling is unknown".into(),
        };
        out.push(limit);
    }
    if !without.is_empty() {
        out.push(Limit {
            suite: "storage".into(),
            subject: format!("{} job(s) without an iostat log", without.len()),
            measured: crate::render::few(&without),
            measured_value: None,
            bound: "unknown: needs <array>/iostat/<job>.iostat taken during each job (the procedure's helper records it)".into(),
            bound_value: None,
            unit: "MB/s".into(),
            formula: String::new(),
            reading: String::new(),
            files: Vec::new(),
        });
    }
    out
}
