//! Which of the ladder's files are one campaign: the levels of one folder (another
//! folder's levels are another campaign, not pooled), each run once (a level whose
//! records are another run's, request for request, is a copy of that run, not a repeat).

use std::collections::BTreeMap;

use crate::ingest::walk::Skipped;
use crate::ingest::Item;

use super::file_kinds::as_records;

/// A level's files, by the slot of each part (records, log, pre, post, series, GPUs).
pub(super) type Files<'a> = [Option<&'a Item>; 6];

/// The folder of a level's prefix: `results` for `results/adp-1`, "" for `adp-1`.
fn folder(prefix: &str) -> &str {
    prefix.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The level sets of one campaign, in key order, and the files of the others as skipped
/// with why: the folder holding the most levels is the campaign (on a tie, the shorter
/// path, then the first in order), and a level whose records equal an earlier run's at
/// the same clients is that run's copy.
pub(super) fn one_campaign<'a>(
    sets: Vec<((String, u32), Files<'a>)>,
    skipped: &mut Vec<Skipped>,
) -> Vec<((String, u32), Files<'a>)> {
    let mut per_folder: BTreeMap<&str, usize> = BTreeMap::new();
    for ((prefix, _), _) in &sets {
        *per_folder.entry(folder(prefix)).or_default() += 1;
    }
    let Some(judged) = per_folder
        .iter()
        .max_by(|a, b| {
            a.1.cmp(b.1)
                .then(b.0.len().cmp(&a.0.len()))
                .then(b.0.cmp(a.0))
        })
        .map(|(f, _)| f.to_string())
    else {
        return sets;
    };
    let shown = |f: &str| {
        if f.is_empty() {
            "the folder itself".to_string()
        } else {
            format!("`{f}`")
        }
    };
    let mut kept: Vec<((String, u32), Files<'a>)> = Vec::with_capacity(sets.len());
    for ((prefix, clients), files) in sets {
        let here = folder(&prefix);
        let why = if here != judged {
            Some(format!(
                "another campaign's level ({} holds ladder files too): the ladder judged the levels in {}, and does not pool another folder's; analyze {} on its own, or compare the two",
                shown(here),
                shown(&judged),
                shown(here)
            ))
        } else {
            copy_of(&prefix, clients, &files, &kept).map(|original| {
                format!(
                    "a copy of `{original}` (the same requests, every time and token to the last digit): that run, not a repeat; counted once"
                )
            })
        };
        match why {
            Some(reason) => skipped.extend(files.iter().flatten().map(|item| Skipped {
                file: item.rel.clone(),
                line: None,
                reason: reason.clone(),
            })),
            None => kept.push(((prefix, clients), files)),
        }
    }
    kept
}

/// The records file of a level kept before, at the same clients, whose records equal
/// this level's (and are not empty).
fn copy_of(
    prefix: &str,
    clients: u32,
    files: &Files<'_>,
    kept: &[((String, u32), Files<'_>)],
) -> Option<String> {
    let records = files[0].and_then(|i| as_records(i).ok())?;
    if records.is_empty() {
        return None;
    }
    kept.iter()
        .filter(|((p, c), _)| *c == clients && p != prefix)
        .find_map(|(_, other)| {
            let item = other[0]?;
            (as_records(item).ok()? == records).then(|| item.rel.clone())
        })
}
