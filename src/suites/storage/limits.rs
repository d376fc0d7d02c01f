//! Whether the drives were the ceiling: for each fio job with an iostat log, the member
//! drives' combined throughput and how busy they were, beside what fio measured. With
//! four drives of the reference class the procedure expects the drives, not the card,
//! to be the ceiling.

use crate::model::limit::Limit;
use crate::model::measurement::Unit;
use crate::model::phrase::{bandwidth, count, fixed, name, Phrase, UnitOf};
use crate::phrase;

use super::drives::drive_means;
use super::load::{Loaded, RunGroup};
use crate::model::units::{MBps, MiBps};

/// Mean member %util at or above which the drives were the ceiling.
const BUSY: f64 = 90.0;

/// `busy 87% of the time`: with a decimal when the whole number would sit on the other
/// side of [`BUSY`] or [`HEADROOM`] than the value (89.6 is not "90%, under the 90%");
/// above 100 it is said as 100, with what iostat printed and why it can.
fn busy(util: f64) -> String {
    if util > 100.0 {
        return phrase!(
            "busy all of the time (iostat's mean %util {}: it counts time with any request in flight, which passes 100 on a device that serves requests in parallel)",
            fixed(util, 0)
        )
        .to_string();
    }
    let whole = util.round();
    let crosses = |line: f64| (whole >= line) != (util >= line);
    if crosses(BUSY) || crosses(HEADROOM) {
        phrase!("busy {}% of the time", fixed(util, 1)).to_string()
    } else {
        phrase!("busy {}% of the time", fixed(util, 0)).to_string()
    }
}
/// Below this the drives had headroom.
const HEADROOM: f64 = 70.0;

/// Jobs whose members are unknown for one reason: (array, reason, [(label, file)]).
type Unknown = (String, String, Vec<(String, String)>);

pub fn limits(loaded: &Loaded, groups: &[RunGroup]) -> Vec<Limit> {
    let mut out = Vec::new();
    let mut without = Vec::new();
    let mut unknown: Vec<Unknown> = Vec::new();
    for g in groups {
        if g.run.stem == "precondition" {
            continue;
        }
        let key = (g.run.array_dir.clone(), g.run.stem.clone());
        let Some(f) = loaded.iostat.get(&key) else {
            without.push(g.label.clone());
            continue;
        };
        let members = super::members::of(loaded, g);
        let drives = members
            .as_ref()
            .map(|m| drive_means(f.log, &m.drives))
            .unwrap_or_default();
        let fio_mb = MBps((g.group.read.bw_bytes + g.group.write.bw_bytes) / 1e6);
        let mut limit = Limit {
            suite: "storage".into(),
            subject: g.label.clone(),
            measured: phrase!("fio {}", bandwidth(fio_mb)),
            measured_value: Some(fio_mb.0),
            bound: Phrase::default(),
            bound_value: None,
            unit: UnitOf::of(Unit::MegabytesPerSecond),
            formula: "member drives' mean rMB/s + wMB/s (iostat's MiB/s, converted to decimal MB/s) summed over the drives, and their mean %util, over the job's iostat samples".into(),
            source: String::new(),
            deviates: String::new(),
            reading: String::new(),
            files: vec![g.run.file.clone(), f.file.clone()],
        };
        let members = match members {
            Ok(m) => m,
            Err(why) => {
                // One line per array and reason, not one per job.
                match unknown
                    .iter_mut()
                    .find(|(a, w, _)| *a == g.run.array && *w == why)
                {
                    Some((_, _, jobs)) => jobs.push((g.label.clone(), g.run.file.clone())),
                    None => unknown.push((
                        g.run.array.clone(),
                        why,
                        vec![(g.label.clone(), g.run.file.clone())],
                    )),
                }
                continue;
            }
        };
        for file in &members.files {
            if !limit.files.contains(file) {
                limit.files.push(file.clone());
            }
        }
        if drives.is_empty() {
            limit.bound = phrase!(
                "unknown: the iostat log shows none of the members ({}, from {})",
                name(members.drives.join(", ")),
                name(&members.source)
            );
            out.push(limit);
            continue;
        }
        bound_by_drives(&mut limit, &drives, &members);
        out.push(limit);
    }
    out.extend(unknown.into_iter().map(unknown_limit));
    if !without.is_empty() {
        out.push(without_iostat(&without));
    }
    out
}

/// The job's bound from its member drives as iostat saw them: what they moved, how busy
/// they were, and what that says of the ceiling.
fn bound_by_drives(
    limit: &mut Limit,
    drives: &[super::drives::DriveMean],
    members: &super::members::Members,
) {
    let total = MBps::from(drives.iter().map(|d| d.mib_s).sum::<MiBps>());
    let utils: Vec<f64> = drives.iter().filter_map(|d| d.util).collect();
    let util = (!utils.is_empty()).then(|| utils.iter().sum::<f64>() / utils.len() as f64);
    let missing: Vec<&str> = members
        .drives
        .iter()
        .filter(|m| !drives.iter().any(|d| d.device == **m))
        .map(String::as_str)
        .collect();
    limit.source = format!("member drives: {}", members.source);
    limit.bound = phrase!(
        "{} member drive(s) moved {}{}{}",
        count(drives.len()),
        bandwidth(total),
        util.map_or(Phrase::default(), |u| phrase!(
            ", mean %util {}",
            fixed(u, 0)
        )),
        if missing.is_empty() {
            Phrase::default()
        } else {
            phrase!("; not in the iostat log: {}", name(missing.join(", ")))
        }
    );
    limit.bound_value = Some(total.0);
    limit.reading = match util {
        Some(u) if u >= BUSY => format!("the drives were the ceiling: {}", busy(u)),
        Some(u) if u < HEADROOM => format!(
            "the drives had headroom ({}): the ceiling was above them, in the array layer (md or the card) or the host",
            busy(u)
        ),
        Some(u) => phrase!(
            "the drives were near their ceiling ({}, under the {}% that counts as the ceiling)",
            name(busy(u)),
            fixed(BUSY, 0)
        )
        .to_string(),
        None => "the iostat log has no %util column: whether the drives were the ceiling is unknown".into(),
    };
}

/// One line per array and reason whose member drives are unknown, not one per job.
fn unknown_limit((array, why, jobs): Unknown) -> Limit {
    let labels: Vec<String> = jobs.iter().map(|(l, _)| l.clone()).collect();
    let subject = if jobs.len() == 1 {
        labels[0].clone()
    } else {
        format!("{array}: {} jobs", jobs.len())
    };
    unknown_bound(
        subject,
        &labels,
        phrase!("unknown: {}", name(why)),
        jobs.into_iter().map(|(_, f)| f).collect(),
    )
}

/// The jobs without an iostat log, in one line.
fn without_iostat(without: &[String]) -> Limit {
    unknown_bound(
        format!("{} job(s) without an iostat log", without.len()),
        without,
        "unknown: needs <array>/iostat/<job>.iostat taken during each job (the procedure's helper records it)".into(),
        Vec::new(),
    )
}

/// A limit whose bound is unknown, for the jobs `labels` name, and why (`bound`).
fn unknown_bound(subject: String, labels: &[String], bound: Phrase, files: Vec<String>) -> Limit {
    Limit {
        suite: "storage".into(),
        subject,
        measured: Phrase::text(crate::model::phrase::few(labels)),
        measured_value: None,
        bound,
        bound_value: None,
        unit: UnitOf::of(Unit::MegabytesPerSecond),
        formula: String::new(),
        source: String::new(),
        deviates: String::new(),
        reading: String::new(),
        files,
    }
}

#[cfg(test)]
mod tests {
    use super::busy;

    #[test]
    fn a_busy_share_is_never_said_on_the_wrong_side_of_its_line_nor_above_all_the_time() {
        assert_eq!(busy(89.6), "busy 89.6% of the time");
        assert_eq!(busy(90.0), "busy 90% of the time");
        assert_eq!(busy(69.7), "busy 69.7% of the time");
        assert_eq!(busy(85.2), "busy 85% of the time");
        let over = busy(102.4);
        assert!(
            over.starts_with("busy all of the time (iostat's mean %util 102"),
            "{over}"
        );
        assert!(!over.contains("busy 102%"));
    }
}
