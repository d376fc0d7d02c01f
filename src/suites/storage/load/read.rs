//! Reading the fio results and iostat logs into runs, iostat files and jobs with no result.

use std::collections::BTreeSet;

use crate::error::Problem;
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Item, Kind, Record};

use super::places::{array_name, iostat_dir, storage_fio};
use super::{IostatFile, Loaded, NoResult, Run};

/// The fio results: each readable one a run (its folder an array folder); one that is
/// not readable, in an array folder, a job with no result.
pub(super) fn read_results<'c>(
    catalog: &'c Catalog,
    loaded: &mut Loaded<'c>,
    array_dirs: &mut BTreeSet<String>,
    skipped: &mut Vec<Skipped>,
) {
    let mut failed: Vec<(&Item, Skipped, bool)> = Vec::new();
    for item in catalog
        .items
        .iter()
        .filter(|i| matches!(i.kind, Kind::Fio | Kind::OtherJson) && storage_fio(i))
    {
        match &item.record {
            Ok(Record::Fio(fio)) => {
                let array_dir = layout::dir_of(&item.rel).to_string();
                array_dirs.insert(array_dir.clone());
                loaded.runs.push(Run {
                    file: item.rel.clone(),
                    array: array_name(catalog, &array_dir),
                    array_dir,
                    stem: item.stem().to_string(),
                    groups: &fio.groups,
                    output: &fio.output,
                });
            }
            Ok(_) => {
                // Valid JSON of another shape: not a fio file, unless it sits in an array.
                let p = Problem::at(1, "valid JSON, but not fio output (no `jobs` array)");
                failed.push((item, item.skipped(&p), true));
            }
            Err(p) => failed.push((item, item.skipped(p), item.kind == Kind::OtherJson)),
        }
    }
    for (item, skip, other) in failed {
        let dir = layout::dir_of(&item.rel);
        if other && !array_dirs.contains(dir) {
            continue; // another suite's file, outside the storage layout
        }
        if array_dirs.contains(dir) {
            loaded.no_result.push(NoResult {
                array_dir: dir.to_string(),
                array: array_name(catalog, dir),
                job: item.stem().to_string(),
                evidence: item.rel.clone(),
                reason: skip.reason.clone(),
                unreadable: crate::parse::text::is_unreadable(&skip.reason),
            });
        }
        skipped.push(skip);
    }
}

/// One job's iostat log; with no fio result beside it, a job fio refused.
pub(super) fn read_iostat<'c>(
    catalog: &Catalog,
    item: &'c Item,
    loaded: &mut Loaded<'c>,
    accounted: &mut BTreeSet<(String, String)>,
    skipped: &mut Vec<Skipped>,
) {
    let key = (iostat_dir(&item.rel), item.stem().to_string());
    match &item.record {
        Ok(Record::Iostat(log)) => {
            loaded.iostat.insert(
                key.clone(),
                IostatFile {
                    file: item.rel.clone(),
                    log,
                },
            );
        }
        Ok(_) => {}
        Err(p) => skipped.push(item.skipped(p)),
    }
    if accounted.insert(key.clone()) {
        let expected = if key.0.is_empty() {
            format!("{}.json", key.1)
        } else {
            format!("{}/{}.json", key.0, key.1)
        };
        loaded.no_result.push(NoResult {
            array_dir: key.0.clone(),
            array: array_name(catalog, &key.0),
            job: key.1.clone(),
            evidence: item.rel.clone(),
            reason: format!(
                "no `{expected}`: fio wrote no JSON (it refuses bad options before running)"
            ),
            unreadable: false,
        });
    }
}
