//! Ingest: walk an input once, classify every file by its content (then its path), parse
//! each exactly once, in parallel, and hand the suites a catalog of typed records. Suites
//! read the catalog; they never open a file.

pub mod format;
pub mod layout;
pub mod rules;
pub mod shared;
pub mod sniff;
pub mod unpack;
pub mod walk;

use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;

use crate::error::Problem;
use crate::fio::groups::Group;
use crate::parse::ask::Attempt;
use crate::parse::bdevperf::Bdevperf;
use crate::parse::client_log::ClientLog;
use crate::parse::fio::FioOutput;
use crate::parse::iostat::IostatLog;
use crate::parse::mt_records;
use crate::parse::prom::Snapshot;
use crate::parse::vllm_log::ServerLog;
use crate::parse::{self};

pub use sniff::{By, Kind};
use walk::{Folder, Skipped};

/// What a file held, parsed once.
#[derive(Debug, Clone)]
pub enum Record {
    /// fio's output and its reporting groups (jobs summed as group_reporting would).
    Fio(Box<FioRecord>),
    Bdevperf(Bdevperf),
    /// SPDK configs, `bdev_raid_get_bdevs` output and manifests: small JSON documents
    /// read as they are.
    Json(serde_json::Value),
    ClientRecords(Vec<mt_records::Record>),
    Prometheus(Snapshot),
    PromSeries(parse::prom_series::PromSeries),
    Iostat(IostatLog),
    FioLog(parse::fio_log::FioLog),
    GpuSeries(parse::gpu_csv::GpuSeries),
    ServerLog(Box<ServerLog>),
    ClientLog(ClientLog),
    Ask(Vec<Attempt>),
    GatewayLog(crate::parse::gateway_log::GatewayLog),
    /// A host program's output or a compose file.
    Host(Box<parse::host::HostFile>),
    /// Kept by name only (gateway logs, system outputs, other JSON).
    Unread,
    /// What a suite's own format's parser made of the file (see [`Item::parsed`]).
    Other(Parsed),
}

/// A suite's own format's record: any type, read back with [`Item::parsed`].
#[derive(Clone)]
pub struct Parsed(pub std::sync::Arc<dyn std::any::Any + Send + Sync>);

impl Parsed {
    pub fn new<T: std::any::Any + Send + Sync>(record: T) -> Parsed {
        Parsed(std::sync::Arc::new(record))
    }
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Parsed(..)")
    }
}

#[derive(Debug, Clone)]
pub struct FioRecord {
    pub output: FioOutput,
    pub groups: Vec<Group>,
}

/// One file of the input.
#[derive(Debug, Clone)]
pub struct Item {
    /// Path relative to the input, `/`-separated.
    pub rel: String,
    pub kind: Kind,
    pub by: By,
    pub bytes: u64,
    /// The parsed record, or why the file could not be read as its kind.
    pub record: Result<Record, Problem>,
}

impl Item {
    pub fn file_name(&self) -> &str {
        layout::file_name(&self.rel)
    }

    pub fn stem(&self) -> &str {
        layout::stem(&self.rel)
    }

    /// This item as a skipped file, with its problem.
    pub fn skipped(&self, problem: &Problem) -> Skipped {
        Skipped {
            file: self.rel.clone(),
            line: problem.line,
            reason: problem.reason.clone(),
        }
    }

    /// The problem, as the one-line `` `file`: line N: reason `` the parsers give.
    pub fn error_text(problem: &Problem, rel: &str) -> String {
        match problem.line {
            Some(l) => format!("`{rel}`: line {l}: {}", problem.reason),
            None => format!("`{rel}`: {}", problem.reason),
        }
    }

    pub fn fio(&self) -> Option<&FioOutput> {
        self.fio_record().map(|f| &f.output)
    }

    pub fn fio_record(&self) -> Option<&FioRecord> {
        match &self.record {
            Ok(Record::Fio(f)) => Some(f),
            _ => None,
        }
    }

    /// The record a suite's own format's parser made, as its type.
    pub fn parsed<T: std::any::Any>(&self) -> Option<&T> {
        match &self.record {
            Ok(Record::Other(p)) => p.0.downcast_ref(),
            _ => None,
        }
    }

    pub fn json(&self) -> Option<&serde_json::Value> {
        match &self.record {
            Ok(Record::Json(v)) => Some(v),
            _ => None,
        }
    }
}

/// Everything an input holds, classified and parsed.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The input as given.
    pub root: PathBuf,
    /// The input folder's own name (files at its top belong to it).
    pub root_name: String,
    /// One item per file, in path order.
    pub items: Vec<Item>,
    /// Entries the walk could not use (links out of the folder, special files).
    pub problems: Vec<Skipped>,
    /// What suites derive from the items and share ([`Catalog::shared`]).
    shared: shared::Shared,
}

/// How many files of each kind, for the terminal and the benchmark.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Census {
    pub files: usize,
    pub bytes: u64,
    pub by_kind: std::collections::BTreeMap<String, usize>,
}

impl Catalog {
    /// Walks `root` (a folder or one file) and ingests it.
    pub fn scan(root: &std::path::Path) -> std::io::Result<Catalog> {
        Ok(Catalog::ingest(Folder::scan(root)?))
    }

    /// Reads, sniffs and parses every file of `folder` once, in parallel, as the
    /// built-in formats.
    pub fn ingest(folder: Folder) -> Catalog {
        Catalog::ingest_with(folder, &[])
    }

    /// [`Catalog::ingest`] knowing the suites' own formats too.
    pub fn ingest_with(folder: Folder, extra: &[&format::Format]) -> Catalog {
        let root_name = folder
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // What a collector set aside (a failed or interrupted run) is never read as a
        // measurement: it is listed with the reason, and bundles keep it as evidence.
        let mut problems = folder.problems;
        let (aside, files): (Vec<_>, Vec<_>) = folder
            .files
            .iter()
            .partition(|e| layout::set_aside(&e.rel).is_some());
        for e in aside {
            let why = layout::set_aside(&e.rel).unwrap_or("set aside");
            problems.push(Skipped {
                file: e.rel.clone(),
                line: None,
                reason: format!(
                    "a run the collector set aside ({why}): kept as evidence, never judged"
                ),
            });
        }
        problems.sort_by(|a, b| a.file.cmp(&b.file));
        let items: Vec<Item> = if std::env::var_os("REPROBENCH_TIMING").is_some() {
            let timed: Vec<(Item, std::time::Duration)> = files
                .par_iter()
                .map(|e| {
                    let start = std::time::Instant::now();
                    (read_item(&e.path, &e.rel, extra), start.elapsed())
                })
                .collect();
            print_kind_times(&timed);
            timed.into_iter().map(|(i, _)| i).collect()
        } else {
            files
                .par_iter()
                .map(|e| read_item(&e.path, &e.rel, extra))
                .collect()
        };
        Catalog {
            root: folder.root,
            root_name,
            items,
            problems,
            shared: shared::Shared::default(),
        }
    }

    /// A value derived from this catalog's items, shared by the suites that judge it:
    /// kept by a suite's `prepare` ([`Catalog::prepare_shared`]), or made here by the
    /// first to ask (see [`shared::Shared::get_or_make`]).
    pub fn shared<T: std::any::Any + Send + Sync>(
        &self,
        key: &'static str,
        make: impl FnOnce() -> T,
    ) -> std::sync::Arc<T> {
        self.shared.get_or_make(key, make)
    }

    /// Makes the value shared under `key` unless another suite has made it or is making
    /// it (see [`shared::Shared::prepare`]).
    pub fn prepare_shared<T: std::any::Any + Send + Sync>(
        &self,
        key: &'static str,
        make: impl FnOnce() -> T,
    ) {
        self.shared.prepare(key, make);
    }

    /// Drops the shared values: the judging that needed them is over.
    pub fn clear_shared(&self) {
        self.shared.clear();
    }

    /// The items of one kind, in path order.
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = &Item> + '_ {
        self.items.iter().filter(move |i| i.kind == kind)
    }

    pub fn get(&self, rel: &str) -> Option<&Item> {
        self.items
            .binary_search_by(|i| i.rel.as_str().cmp(rel))
            .ok()
            .map(|i| &self.items[i])
    }

    pub fn census(&self) -> Census {
        let mut c = Census {
            files: self.items.len(),
            ..Census::default()
        };
        for i in &self.items {
            c.bytes += i.bytes;
            *c.by_kind.entry(i.kind.label().to_string()).or_default() += 1;
        }
        c
    }
}

/// Where ingest's time went, by kind of file (`REPROBENCH_TIMING`): CPU time summed over
/// the threads, so the kinds add up to more than the wall time of the stage.
fn print_kind_times(timed: &[(Item, std::time::Duration)]) {
    let mut by: std::collections::BTreeMap<&str, (usize, u64, std::time::Duration)> =
        std::collections::BTreeMap::new();
    for (item, took) in timed {
        let e = by.entry(item.kind.label()).or_default();
        e.0 += 1;
        e.1 += item.bytes;
        e.2 += *took;
    }
    for (kind, (files, bytes, took)) in by {
        let ms = took.as_secs_f64() * 1000.0;
        crate::errln!(
            "timing:   {kind}: {files} files, {:.1} MB, {ms:.2} ms read and parsed ({:.0} MB/s)",
            bytes as f64 / 1e6,
            bytes as f64 / 1e3 / ms.max(1e-9)
        );
    }
}

fn read_item(path: &std::path::Path, rel: &str, extra: &[&format::Format]) -> Item {
    thread_local! {
        /// Each thread reads every file into one buffer: the memory is touched once.
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| read_item_into(path, rel, buffer, extra))
}

fn read_item_into(
    path: &std::path::Path,
    rel: &str,
    buffer: &mut Vec<u8>,
    extra: &[&format::Format],
) -> Item {
    let bytes: &[u8] = match parse::text::read_capped_into(path, buffer) {
        Ok(()) => buffer,
        Err(e) => {
            let (kind, by) = sniff::sniff_with(rel, &[], extra);
            return Item {
                rel: rel.to_string(),
                kind,
                by,
                bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
                record: Err(Problem {
                    line: e.line,
                    reason: e.reason,
                }),
            };
        }
    };
    let (mut kind, by) = sniff::sniff_with(rel, bytes, extra);
    let record = match format::of(kind, extra) {
        Some(f) => (f.parse)(rel, bytes),
        None => Ok(Record::Unread),
    };
    // A `.json` given to fio by its path that holds other valid JSON is not a broken fio
    // file: it is somebody else's, and only a suite that expected fio there says so.
    if kind == Kind::Fio && by == By::Path && record.is_err() && is_other_json(bytes) {
        kind = Kind::OtherJson;
    }
    Item {
        rel: rel.to_string(),
        kind,
        by,
        bytes: bytes.len() as u64,
        record,
    }
}

/// Whether `bytes` hold valid JSON that is not fio's (a list, an object without its keys).
fn is_other_json(bytes: &[u8]) -> bool {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Array(_)) => true,
        Ok(serde_json::Value::Object(m)) => {
            !m.contains_key("fio version") && !m.contains_key("jobs")
        }
        _ => false,
    }
}
