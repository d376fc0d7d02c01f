//! Reads a results folder in the procedure's layout: `<array>/<job>.json` (fio) and
//! `<array>/iostat/<job>.iostat`. Anything unreadable is skipped with a reason.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::error::ParseError;
use crate::fio::groups::{groups, Group};
use crate::fio::signature::Signature;
use crate::folder::{Entry, Folder, Skipped};
use crate::parse::fio::{self, FioOutput};
use crate::parse::iostat::{self, IostatLog};

/// One fio output file.
#[derive(Debug, Clone)]
pub struct Run {
    /// The file, relative to the input folder.
    pub file: String,
    /// The folder holding it, relative to the input folder ("" at the top).
    pub array_dir: String,
    /// The folder's own name: the array (`raid10`, `adp`, or the user's).
    pub array: String,
    /// The file name without `.json`: the job name the procedure's helper gives it.
    pub stem: String,
    pub output: FioOutput,
    pub groups: Vec<Group>,
}

/// One reporting group of one run, with its shape.
#[derive(Debug, Clone)]
pub struct RunGroup<'a> {
    pub run: &'a Run,
    pub group: &'a Group,
    pub signature: Signature,
    /// `array/jobname`, with `#g<N>` when the file holds several groups.
    pub label: String,
}

#[derive(Debug, Clone)]
pub struct IostatFile {
    pub file: String,
    pub log: IostatLog,
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
}

#[derive(Debug, Default)]
pub struct Loaded {
    pub runs: Vec<Run>,
    /// Keyed by (array_dir, job stem).
    pub iostat: BTreeMap<(String, String), IostatFile>,
    pub no_result: Vec<NoResult>,
}

impl Loaded {
    pub fn run_groups(&self) -> Vec<RunGroup<'_>> {
        let mut out = Vec::new();
        for run in &self.runs {
            for g in &run.groups {
                let label = if run.groups.len() > 1 {
                    format!("{}/{}#g{}", run.array, g.jobname, g.groupid)
                } else {
                    format!("{}/{}", run.array, g.jobname)
                };
                out.push(RunGroup {
                    run,
                    group: g,
                    signature: Signature::from_options(&g.options),
                    label,
                });
            }
        }
        out
    }

    pub fn iostat_for(&self, run: &Run) -> Option<&IostatFile> {
        self.iostat.get(&(run.array_dir.clone(), run.stem.clone()))
    }

    pub fn array_dirs(&self) -> BTreeSet<String> {
        self.runs.iter().map(|r| r.array_dir.clone()).collect()
    }
}

fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

fn name_of(dir: &str) -> &str {
    dir.rsplit('/').next().unwrap_or(dir)
}

/// Whether a JSON file holds something that is plainly another suite's (a list of
/// records, an object without fio's keys) rather than a broken fio file.
fn is_other_json(bytes: &[u8]) -> bool {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Array(_)) => true,
        Ok(serde_json::Value::Object(m)) => {
            !m.contains_key("fio version") && !m.contains_key("jobs")
        }
        _ => false,
    }
}

/// The JSON files this suite may own, each read as fio once per folder: detection and
/// loading share it. SPDK's layout, spdk_bdev runs and collectors' manifests are left out.
pub fn fio_files(folder: &Folder) -> Rc<Vec<(Entry, Result<FioOutput, ParseError>)>> {
    folder.memo("storage-fio-files", || {
        folder
            .with_suffix(".json")
            .filter(|e| {
                !crate::suites::spdk_raid::load::claims(&e.rel) && e.file_name() != "manifest.json"
            })
            .map(|e| (e.clone(), fio::parse_path(&e.path)))
            .filter(|(_, r)| !r.as_ref().is_ok_and(|o| o.uses_ioengine("spdk_bdev")))
            .collect()
    })
}

pub fn load(folder: &Folder, skipped: &mut Vec<Skipped>) -> Loaded {
    let mut loaded = Loaded::default();
    // Files at the top of the input belong to the input folder itself, as the
    // procedure's script (`f.split("/")[-2]`) names them.
    let root_name = folder
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let array_name = |dir: &str| {
        if dir.is_empty() {
            root_name.clone()
        } else {
            name_of(dir).to_string()
        }
    };
    // Folders that hold an iostat/ subfolder are array folders by the procedure's layout.
    let iostat_entries: Vec<&Entry> = folder.with_suffix(".iostat").collect();
    let mut array_dirs: BTreeSet<String> = BTreeSet::new();
    for e in &iostat_entries {
        let dir = dir_of(&e.rel);
        let array_dir = if name_of(dir) == "iostat" {
            dir_of(dir)
        } else {
            dir
        };
        array_dirs.insert(array_dir.to_string());
    }
    let mut failed: Vec<(&Entry, Skipped, bool)> = Vec::new();
    let parsed = fio_files(folder);
    for (e, result) in parsed.iter() {
        match result {
            Ok(output) => {
                let array_dir = dir_of(&e.rel).to_string();
                array_dirs.insert(array_dir.clone());
                loaded.runs.push(Run {
                    file: e.rel.clone(),
                    array: array_name(&array_dir),
                    array_dir,
                    stem: e.stem().to_string(),
                    groups: groups(output),
                    output: output.clone(),
                });
            }
            Err(err) => {
                let other = std::fs::read(&e.path).is_ok_and(|b| is_other_json(&b));
                failed.push((e, folder.skipped(e, err.line, err.reason.clone()), other));
            }
        }
    }
    for (e, skip, other) in failed {
        let dir = dir_of(&e.rel);
        if other && !array_dirs.contains(dir) {
            continue; // another suite's file, outside the storage layout
        }
        if array_dirs.contains(dir) {
            loaded.no_result.push(NoResult {
                array_dir: dir.to_string(),
                array: array_name(dir),
                job: e.stem().to_string(),
                evidence: e.rel.clone(),
                reason: skip.reason.clone(),
            });
        }
        skipped.push(skip);
    }
    for e in iostat_entries {
        let dir = dir_of(&e.rel);
        let array_dir = if name_of(dir) == "iostat" {
            dir_of(dir)
        } else {
            dir
        };
        let key = (array_dir.to_string(), e.stem().to_string());
        match iostat::parse_path(&e.path) {
            Ok(log) => {
                loaded.iostat.insert(
                    key.clone(),
                    IostatFile {
                        file: e.rel.clone(),
                        log,
                    },
                );
            }
            Err(err) => skipped.push(folder.skipped(e, err.line, err.reason)),
        }
        let has_json = loaded
            .runs
            .iter()
            .any(|r| r.array_dir == key.0 && r.stem == key.1)
            || loaded
                .no_result
                .iter()
                .any(|n| n.array_dir == key.0 && n.job == key.1);
        if !has_json {
            let expected = if key.0.is_empty() {
                format!("{}.json", key.1)
            } else {
                format!("{}/{}.json", key.0, key.1)
            };
            loaded.no_result.push(NoResult {
                array_dir: key.0.clone(),
                array: array_name(&key.0),
                job: key.1.clone(),
                evidence: e.rel.clone(),
                reason: format!(
                    "no `{expected}`: fio wrote no JSON (it refuses bad options before running)"
                ),
            });
        }
    }
    loaded
}
