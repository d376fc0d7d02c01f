//! Which drives an array's members are, from the evidence only: the drives fio's
//! `filename` names, the collector's manifest (`--drives`), `/proc/mdstat` for an md
//! device, fio's own `disk_util` (an md entry lists its member disks), and for the
//! candidate the drives the baseline was built from (the procedure uses the same four
//! drives for both arrays). Anything else is unknown, with what would settle it: the
//! iostat log's busiest devices are never taken as members.

use crate::parse::host::mdstat::MdArray;

use super::drives::is_aggregate;
use super::evidence::base;
use super::load::{Loaded, RunGroup};

/// An array's member drives and where they come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Members {
    /// Device names as iostat prints them (`nvme0n1`).
    pub drives: Vec<String>,
    /// Where the list comes from, for the reader.
    pub source: String,
    /// The files that gave it.
    pub files: Vec<String>,
}

/// The devices fio's `filename` names (`/dev/a:/dev/b`), by name.
fn targets(filename: &str) -> Vec<&str> {
    filename
        .split(':')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// How many leading folders two files share (`results/adp/x.json` and
/// `results/system/mdstat.txt`: 1).
fn shared_folders(a: &str, b: &str) -> usize {
    let dirs = |p: &str| p.rsplit_once('/').map_or(0, |(d, _)| d.split('/').count());
    a.split('/')
        .zip(b.split('/'))
        .take(dirs(a).min(dirs(b)))
        .take_while(|(x, y)| x == y)
        .count()
}

/// The pieces of evidence nearest a run's file (the most leading folders shared): a
/// folder with two result trees (`results/`, `results-newfio/`) reads each tree's runs
/// with that tree's own `system/mdstat.txt` and manifest.
fn nearest<'e, T>(run_file: &str, found: Vec<(&'e str, T)>) -> Vec<(&'e str, T)> {
    let best = found
        .iter()
        .map(|(f, _)| shared_folders(run_file, f))
        .max()
        .unwrap_or(0);
    found
        .into_iter()
        .filter(|(f, _)| shared_folders(run_file, f) == best)
        .collect()
}

/// The members of the array `g` ran on, or why they are unknown.
pub fn of(loaded: &Loaded, g: &RunGroup) -> Result<Members, String> {
    let evidence = &loaded.evidence;
    let Some(filename) = g.group.options.get("filename").map(String::as_str) else {
        return Err(
            "fio's `filename` is not recorded, so which drives it wrote to is unknown".into(),
        );
    };
    let targets = targets(filename);
    let shown = |names: &[String]| {
        loaded.iostat_for(g.run).is_some_and(|f| {
            names.iter().all(|n| {
                f.log
                    .samples
                    .iter()
                    .any(|s| s.devices.iter().any(|d| *d.device == **n))
            })
        })
    };
    // Plain drives named by fio (the loopback sample, a raw-drive run).
    let plain: Vec<String> = targets
        .iter()
        .filter(|t| t.starts_with("/dev/"))
        .map(|t| base(t).to_string())
        .filter(|n| !is_aggregate(n))
        .collect();
    if plain.len() == targets.len() && !plain.is_empty() && shown(&plain) {
        return Ok(Members {
            drives: plain,
            source: "the drives fio's filename names".into(),
            files: vec![g.run.file.clone()],
        });
    }
    // What the collector was told to build the array from.
    let dev = targets.first().copied().unwrap_or("");
    let told = evidence
        .manifests
        .iter()
        .filter(|(_, array, d, _)| {
            array.eq_ignore_ascii_case(&g.run.array) && (d == dev || d.is_empty())
        })
        .map(|m| (m.0.as_str(), m))
        .collect();
    if let Some((_, (file, _, _, drives))) = nearest(&g.run.file, told).first() {
        return Ok(Members {
            drives: drives.clone(),
            source: format!(
                "the drives the collector built `{}` from (`{file}`)",
                g.run.array
            ),
            files: vec![g.run.file.clone(), file.to_string()],
        });
    }
    // An md device: the kernel's own list, else fio's.
    if targets.len() == 1 && base(dev).starts_with("md") {
        return md_members(evidence, g, dev);
    }
    // The candidate's device is not a drive iostat shows (the ADP block device): the
    // procedure builds both arrays from the same four drives.
    if targets.len() == 1 && dev.starts_with("/dev/") && !is_aggregate(base(dev)) {
        return same_drives_as_the_md_array(evidence, g, dev);
    }
    // A file on a file system: the disks fio saw under it.
    disks_under_the_file(g, dev, filename)
}

/// The disks fio saw under a file on a file system, in its `disk_util`.
fn disks_under_the_file(g: &RunGroup, dev: &str, filename: &str) -> Result<Members, String> {
    let disks: Vec<String> = g
        .run
        .output
        .disk_util
        .iter()
        .filter(|d| !d.aggregate && !is_aggregate(&d.name))
        .map(|d| d.name.clone())
        .collect();
    if !disks.is_empty() && !dev.starts_with("/dev/") {
        return Ok(Members {
            drives: disks,
            source: "the disks under the file, in fio's disk_util".into(),
            files: vec![g.run.file.clone()],
        });
    }
    Err(format!(
        "fio wrote to `{filename}`; which drives are behind it is not in the files"
    ))
}

/// The md array named `md` in the `mdstat` nearest `run_file`, with its file.
pub(super) fn md_array<'e>(
    evidence: &'e super::evidence::Evidence,
    run_file: &str,
    md: &str,
) -> Option<(&'e str, &'e MdArray)> {
    let kernel = evidence
        .mdstat
        .iter()
        .filter(|(_, a)| a.name == md)
        .map(|(f, a)| (f.as_str(), *a))
        .collect();
    nearest(run_file, kernel).first().copied()
}

/// The member drives of the md device fio wrote to: the kernel's own list (the nearest
/// `mdstat`), else fio's `disk_util`.
fn md_members(
    evidence: &super::evidence::Evidence,
    g: &RunGroup,
    dev: &str,
) -> Result<Members, String> {
    let md = base(dev);
    if let Some((file, a)) = md_array(evidence, &g.run.file, md) {
        if !a.members.is_empty() {
            return Ok(Members {
                drives: a.members.clone(),
                source: format!("`{md}` in `{file}`, line {}", a.line),
                files: vec![g.run.file.clone(), file.to_string()],
            });
        }
    }
    let du = &g.run.output.disk_util;
    if du.iter().any(|d| d.name == md && d.aggregate) {
        let slaves: Vec<String> = du
            .iter()
            .filter(|d| d.name != md && !d.aggregate && !is_aggregate(&d.name))
            .map(|d| d.name.clone())
            .collect();
        if !slaves.is_empty() {
            return Ok(Members {
                drives: slaves,
                source: format!("`{md}`'s member disks in fio's disk_util"),
                files: vec![g.run.file.clone()],
            });
        }
    }
    Err(format!(
        "fio wrote to `{dev}`; its member drives are not in the files: save `cat /proc/mdstat` as `system/mdstat.txt` (the collector does), or keep fio's `disk_util` section"
    ))
}

/// The drives behind a device iostat does not show (the ADP block device): the one md
/// array's, as the procedure builds both arrays from the same four drives.
fn same_drives_as_the_md_array(
    evidence: &super::evidence::Evidence,
    g: &RunGroup,
    dev: &str,
) -> Result<Members, String> {
    let others: Vec<(&str, &&MdArray)> = nearest(
        &g.run.file,
        evidence
            .mdstat
            .iter()
            .filter(|(_, a)| !a.members.is_empty())
            .map(|(f, a)| (f.as_str(), a))
            .collect(),
    );
    if let [(file, a)] = others.as_slice() {
        return Ok(Members {
            drives: a.members.clone(),
            source: format!(
                "the drives of `{}` in `{file}`: the procedure builds both arrays from the same four drives",
                a.name
            ),
            files: vec![g.run.file.clone(), file.to_string()],
        });
    }
    Err(format!(
        "fio wrote to `{dev}`, which the iostat log does not show; which drives are behind it is not in the files: give the collector --drives, or save `cat /proc/mdstat` of the RAID10 array built from the same drives"
    ))
}
