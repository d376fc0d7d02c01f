//! The procedure's layout, read from the catalog: `<array>/<job>.json` (fio) and
//! `<array>/iostat/<job>.iostat`. Anything unreadable is skipped with a reason.

mod places;
mod plausible;
mod read;
mod run_groups;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use crate::fio::groups::Group;
use crate::fio::signature::Signature;
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Item, Kind, Record};
use crate::parse::fio::FioOutput;
use crate::parse::iostat::IostatLog;

use places::{array_name, iostat_dir, storage_fio};
use plausible::drop_implausible_iostat;
use read::{read_iostat, read_results};
pub use run_groups::repeat_number;

/// One fio output file.
#[derive(Debug, Clone)]
pub struct Run<'c> {
    /// The file, relative to the input folder.
    pub file: String,
    /// The folder holding it, relative to the input folder ("" at the top).
    pub array_dir: String,
    /// The folder's own name: the array (`raid10`, `adp`, or the user's).
    pub array: String,
    /// The file name without `.json`: the job name the procedure's helper gives it.
    pub stem: String,
    pub output: &'c FioOutput,
    pub groups: &'c [Group],
}

/// One reporting group of one run, with its shape.
#[derive(Debug, Clone)]
pub struct RunGroup<'a> {
    pub run: &'a Run<'a>,
    pub group: &'a Group,
    pub signature: Signature,
    /// `array/jobname`, with `#g<N>` when the file holds several groups.
    pub label: String,
    /// The job this group is a run of: its fio job name, or for a numbered repeat the
    /// job it repeats (`NAME-run2.json` is a run of `NAME`).
    pub job: String,
    /// Which run of its job it is: the repeat's number (`NAME-run3.json` is 3), 1 for
    /// the unnumbered file.
    pub number: u32,
}

#[derive(Debug, Clone)]
pub struct IostatFile<'c> {
    pub file: String,
    pub log: &'c IostatLog,
}

/// A job the helper started (its iostat log exists) for which fio left no usable JSON.
#[derive(Debug, Clone)]
pub struct NoResult {
    pub array_dir: String,
    /// The array the folder is (its name, or the input's at the top).
    pub array: String,
    pub job: String,
    pub evidence: String,
    pub reason: String,
    /// The result file is there but could not be read here (a special file, a link out
    /// of the folder, a read error): that is the reader's problem, and says nothing of
    /// how fio ran.
    pub unreadable: bool,
}

#[derive(Debug, Default)]
pub struct Loaded<'c> {
    pub runs: Vec<Run<'c>>,
    /// Keyed by (array_dir, job stem).
    pub iostat: BTreeMap<(String, String), IostatFile<'c>>,
    /// fio's own bandwidth logs (`--write_bw_log`), keyed by (array_dir, job): one per
    /// job with per-job logs, else one.
    pub bw_logs: BTreeMap<(String, String), Vec<(String, &'c crate::parse::fio_log::FioLog)>>,
    pub no_result: Vec<NoResult>,
    /// What the folder says about the arrays' member drives.
    pub evidence: super::evidence::Evidence<'c>,
}

/// Whether `item` is one of this suite's fio results or iostat logs.
pub fn claims(item: &Item) -> bool {
    match item.kind {
        Kind::Fio => storage_fio(item),
        Kind::Iostat | Kind::FioLog => !layout::in_spdk_tree(&item.rel),
        _ => false,
    }
}

/// Whether the catalog holds anything for this suite: an iostat log, or a fio result.
pub fn detect(catalog: &Catalog) -> bool {
    catalog.of(Kind::Iostat).next().is_some()
        || catalog
            .of(Kind::Fio)
            .any(|i| i.fio().is_some() && storage_fio(i))
}

pub fn load<'c>(catalog: &'c Catalog, skipped: &mut Vec<Skipped>) -> Loaded<'c> {
    let mut loaded = Loaded {
        evidence: super::evidence::Evidence::read(catalog),
        ..Loaded::default()
    };
    // Folders that hold an iostat/ subfolder are array folders by the procedure's layout.
    let iostat_items: Vec<&Item> = catalog
        .of(Kind::Iostat)
        .filter(|i| !layout::in_spdk_tree(&i.rel))
        .collect();
    let mut array_dirs: BTreeSet<String> =
        iostat_items.iter().map(|i| iostat_dir(&i.rel)).collect();
    read_results(catalog, &mut loaded, &mut array_dirs, skipped);
    // A result file in an array folder that the walk could not use (a special file, a
    // link out of the folder): fio wrote it; this reader cannot read it.
    for p in &catalog.problems {
        let dir = layout::dir_of(&p.file);
        if p.file.ends_with(".json") && array_dirs.contains(dir) {
            loaded.no_result.push(NoResult {
                array_dir: dir.to_string(),
                array: array_name(catalog, dir),
                job: layout::stem(&p.file).to_string(),
                evidence: p.file.clone(),
                reason: format!("could not be read here: {}", p.reason),
                unreadable: true,
            });
        }
    }
    for item in catalog
        .of(Kind::FioLog)
        .filter(|i| !layout::in_spdk_tree(&i.rel))
    {
        let Some(job) = crate::parse::fio_log::job_of(layout::file_name(&item.rel)) else {
            continue;
        };
        match &item.record {
            Ok(Record::FioLog(log)) => loaded
                .bw_logs
                .entry((iostat_dir(&item.rel), job.to_string()))
                .or_default()
                .push((item.rel.clone(), log)),
            Ok(_) => {}
            Err(p) => skipped.push(item.skipped(p)),
        }
    }
    // The jobs with a fio result or a known reason for none: looked up per iostat log.
    let mut accounted: BTreeSet<(String, String)> = loaded
        .runs
        .iter()
        .map(|r| (r.array_dir.clone(), r.stem.clone()))
        .chain(
            loaded
                .no_result
                .iter()
                .map(|n| (n.array_dir.clone(), n.job.clone())),
        )
        .collect();
    for item in iostat_items {
        read_iostat(catalog, item, &mut loaded, &mut accounted, skipped);
    }
    drop_implausible_iostat(&mut loaded, skipped);
    loaded
}
