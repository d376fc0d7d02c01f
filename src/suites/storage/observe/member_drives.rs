//! The array's member drives: the load balanced across them (iostat), and the usable
//! capacity the procedure's arithmetic gives for their count.

use crate::model::phrase::{bandwidth, count, fixed, name, plain, Phrase};
use crate::model::verdict::Observation;
use crate::phrase;
use crate::suites::storage::drives::{balance, drive_means, DriveMean};
use crate::suites::storage::judge::{find_workload, Sides};
use crate::suites::storage::load::IostatFile;
use crate::suites::storage::load::{Loaded, RunGroup};
use crate::suites::storage::reference::Reference;

pub(super) fn drive_balance(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Vec<Observation> {
    let mut out = Vec::new();
    for array in [&sides.baseline, &sides.candidate] {
        let mut worst: Option<(f64, String, usize, Phrase)> = None;
        let mut files = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        let mut unknown: Option<String> = None;
        for w in &reference.workload {
            let Some(g) = find_workload(groups, array, w).0 else {
                continue;
            };
            let Some(f) = loaded.iostat_for(g.run) else {
                continue;
            };
            files.push(f.file.clone());
            let (drives, m) = match members(loaded, g, f) {
                Ok(x) => x,
                Err(why) => {
                    unknown.get_or_insert(why);
                    continue;
                }
            };
            for file in &m.files {
                if !files.contains(file) {
                    files.push(file.clone());
                }
            }
            if !sources.contains(&m.source) {
                sources.push(m.source.clone());
            }
            if let Some(b) = balance(&drives) {
                if worst.as_ref().is_none_or(|(x, ..)| b < *x) {
                    let names = Phrase::join(
                        drives
                            .iter()
                            .map(|d| phrase!("{} {}", name(&d.device), bandwidth(d.mib_s.into()))),
                        ", ",
                    );
                    worst = Some((b, w.name.clone(), drives.len(), names));
                }
            }
        }
        if files.is_empty() {
            continue;
        }
        let measured = match (&worst, &unknown) {
            (Some((b, job, n, names)), _) => phrase!(
                "{} drives; least balanced job `{}`: slowest/fastest {} ({})",
                count(*n),
                name(job),
                fixed(*b, 2),
                names.clone()
            ),
            (None, Some(why)) => phrase!("unknown: {}", name(why)),
            (None, None) => "fewer than two member drives in the iostat logs".into(),
        };
        let note = if sources.is_empty() {
            "members come from fio's filename, the collector's manifest, /proc/mdstat or fio's disk_util; never from which devices were busy".to_string()
        } else {
            format!("members: {}", sources.join("; "))
        };
        out.push(Observation {
            id: format!("storage.drive-balance.{array}"),
            what: format!("{array}: load balanced across the array's drives (iostat)"),
            measured,
            published: "balanced across all four drives".into(),
            files,
            note,
        });
    }
    out
}

/// The procedure's capacity arithmetic. Only the member count is read from the files;
/// the capacities are derived from it and the reference drive size, never measured.
pub(super) fn usable_capacity(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Observation {
    let mut files = Vec::new();
    let counted = groups
        .iter()
        .filter(|g| g.run.array.eq_ignore_ascii_case(&sides.baseline))
        .filter_map(|g| {
            let f = loaded.iostat_for(g.run)?;
            let (_, m) = members(loaded, g, f).ok()?;
            // The member list's own file (not the run: how long it ran does not change
            // how many drives the array has).
            let source = m.files.iter().find(|x| **x != g.run.file).cloned();
            Some((m.drives.len(), source.unwrap_or_else(|| f.file.clone())))
        })
        .filter(|(n, _)| *n >= 2)
        .max_by_key(|(n, _)| *n);
    if let Some((_, f)) = &counted {
        files.push(f.clone());
    }
    let tb = reference.arrays.drive_tb;
    let derive = |n: f64| {
        phrase!(
            "derived, not measured: {} drives of {} TB (the reference's size; the files do not give drive sizes): RAID10 {} TB (50%), RAID5 {} TB ({}%) before compression",
            fixed(n, 0),
            plain(tb),
            fixed(n * tb * 0.5, 1),
            fixed(n * tb * (n - 1.0) / n, 1),
            fixed(100.0 * (n - 1.0) / n, 0)
        )
        .to_string()
    };
    let (measured, note) = match &counted {
        Some((n, _)) => (
            phrase!("{} member drives in the RAID10 array", count(*n)),
            derive(*n as f64),
        ),
        None => (
            Phrase::dash(),
            format!(
                "the files do not say which drives the RAID10 array had; the procedure's arithmetic for its {} drives: {}",
                reference.arrays.drives,
                derive(reference.arrays.drives as f64)
            ),
        ),
    };
    Observation {
        id: "storage.usable-capacity".into(),
        what: "Usable capacity before compression (the procedure's arithmetic)".into(),
        measured,
        published: "RAID10 7.7 TB (50%), ADP RAID5 11.5 TB (75%) of 15.4 TB; 15.4 TB exposed with compression".into(),
        files,
        note,
    }
}

/// The member drives of the array a run was on (from the evidence), with their figures
/// in its iostat log.
pub(super) fn members(
    loaded: &Loaded,
    g: &RunGroup,
    f: &IostatFile,
) -> Result<(Vec<DriveMean>, super::members::Members), String> {
    let m = super::members::of(loaded, g)?;
    Ok((drive_means(f.log, &m.drives), m))
}
