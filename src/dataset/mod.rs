//! A result dataset: campaigns' typed results accumulated as Parquet partitioned by suite
//! (`<table>/suite=<suite>/part-<segment>.parquet`, see [`segment`]), for DuckDB, Spark,
//! Trino or Polars to query across campaigns and for compare and `--trend` to read back.
//! A campaign is keyed by the sha256 of its input (`campaign`, a column of every row);
//! adding the same one again changes nothing, adding a changed one under the same name
//! replaces it; an add writes its campaign as a segment of its own and `dataset compact`
//! merges the segments ([`compact`]); every change is atomic (`commit`). The schema
//! (`crate::schema::dataset`) is written as `_schema.json` and checked on every file
//! written.

pub mod campaign;
pub mod commit;
pub mod compact;
pub mod read;
pub mod segment;
pub mod tables;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use polars_io::prelude::{KeyValueMetadata, ParquetCompression, ParquetWriter, StatisticsOptions};
use serde::{Deserialize, Serialize};

use crate::bundle::pseudonym::Pseudonyms;
use crate::schema::dataset as schema;
use crate::suites::Options;

use campaign::Identity;
use commit::{Locked, Target};

/// `_index.json`: every campaign by id, with its name and suites (what `add` decides by).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Index {
    pub campaigns: BTreeMap<String, Entry>,
    /// Every segment by id: the sha256 of its files as they were written
    /// ([`campaign::files_digest`]).
    #[serde(default)]
    pub segments: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub name: String,
    pub suites: Vec<String>,
    pub started: Option<String>,
    /// The segment that holds its rows.
    #[serde(default)]
    pub segment: String,
    /// Schema 1: sha256 of its own partition files as `add` wrote them (what `dataset
    /// compact` checks before it rewrites a dataset of schema 1).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub files: String,
}

impl Index {
    pub fn read(root: &Path) -> anyhow::Result<Index> {
        let path = root.join("_index.json");
        match std::fs::read_to_string(&path) {
            Ok(t) => {
                let index: Index = serde_json::from_str(&t)
                    .with_context(|| format!("`{}` is not a dataset index", path.display()))?;
                index.check().map_err(|why| {
                    anyhow::anyhow!(
                        "`{}` is not an index this tool wrote: {why}",
                        path.display()
                    )
                })?;
                Ok(index)
            }
            // A new dataset has none; one that holds tables without it lost it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match table_names().find(|t| root.join(t).exists()) {
                    Some(t) => anyhow::bail!(
                        "`{}` is missing, but `{}` holds tables (`{t}/`): its campaigns cannot be told apart without it; restore it, or start a new dataset",
                        path.display(),
                        root.display()
                    ),
                    None => Ok(Index::default()),
                }
            }
            Err(e) => Err(e).with_context(|| format!("cannot read `{}`", path.display())),
        }
    }

    /// Every id is a sha256 and every suite a registered one: the index names the
    /// partition folders read and removed, so nothing in it may point anywhere else.
    fn check(&self) -> Result<(), String> {
        for (id, e) in &self.campaigns {
            if !is_id(id) {
                return Err(format!("`{id}` is not a campaign id (64 hex digits)"));
            }
            for s in &e.suites {
                if !crate::suites::SUITES.iter().any(|x| x.name() == s) {
                    return Err(format!("campaign {id}: `{s}` is not a suite"));
                }
            }
            if !e.segment.is_empty() && !segment::is_id(&e.segment) {
                return Err(format!(
                    "campaign {id}: `{}` is not a segment id",
                    e.segment
                ));
            }
            if !e.segment.is_empty() && !self.segments.contains_key(&e.segment) {
                return Err(format!(
                    "campaign {id} (`{}`) is in segment {}, which the index does not list",
                    e.name, e.segment
                ));
            }
        }
        for s in self.segments.keys() {
            if !segment::is_id(s) {
                return Err(format!("`{s}` is not a segment id (16 hex digits)"));
            }
            if !self.campaigns.values().any(|e| e.segment == *s) {
                return Err(format!("segment {s} holds no campaign"));
            }
        }
        Ok(())
    }

    fn by_name(&self, name: &str) -> Option<&String> {
        self.campaigns
            .iter()
            .find(|(_, e)| e.name == name)
            .map(|(id, _)| id)
    }
}

pub struct AddOptions {
    pub judging: Options,
    /// Replace host names and IPv4 addresses with the dataset's pseudonyms.
    pub pseudonymize: bool,
    /// Host names to replace besides the ones the files name.
    pub hosts: Vec<String>,
    /// The name of the campaign (one input only).
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Added,
    Unchanged,
    /// Replaced the campaign of the same name with this id.
    Replaced(String),
}

#[derive(Debug, Clone)]
pub struct Added {
    pub input: PathBuf,
    pub id: String,
    pub name: String,
    pub suites: Vec<String>,
    pub outcome: Outcome,
    /// The analysis' exit code (0 all pass, 1 not all, 2 nothing judged).
    pub exit: i32,
}

/// The tables of a dataset, in the order `_schema.json` lists them.
pub fn table_names() -> impl Iterator<Item = &'static str> {
    schema::TABLES.iter().map(|t| t.name)
}

/// A campaign id: 64 lowercase hex digits.
pub fn is_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The schema major version of the dataset at `root`: None for a folder that is empty
/// (or missing); an error for one that holds something else.
fn major_at(root: &Path) -> anyhow::Result<Option<String>> {
    let path = root.join("_schema.json");
    match std::fs::read_to_string(&path) {
        Ok(t) => match schema::major_of(&t) {
            Some(m) => Ok(Some(m)),
            None => anyhow::bail!("`{}` is not a dataset schema", path.display()),
        },
        Err(_) => {
            // What a first add that failed leaves: its lock and staging folder.
            let empty = std::fs::read_dir(root)
                .map(|mut d| {
                    d.all(|e| {
                        e.is_ok_and(|e| e.file_name() == ".lock" || e.file_name() == ".pending")
                    })
                })
                .unwrap_or(true);
            if empty {
                Ok(None)
            } else {
                anyhow::bail!(
                    "`{}` is not empty and holds no _schema.json: not a dataset",
                    root.display()
                )
            }
        }
    }
}

/// Refuses a folder that is not a dataset of this major version (or empty).
fn check_schema(root: &Path) -> anyhow::Result<()> {
    match major_at(root)? {
        None => Ok(()),
        Some(m) if m == schema::MAJOR => Ok(()),
        Some(m) if m == "1" => anyhow::bail!(
            "`{}` is a dataset of schema major version 1; this reprobench writes version {}: `reprobench dataset compact {}` rewrites it as version {}, every row kept (one atomic change)",
            root.display(),
            schema::VERSION,
            root.display(),
            schema::VERSION
        ),
        Some(m) => anyhow::bail!(
            "`{}` is a dataset of schema major version {m}; this reprobench writes version {}: add to a new dataset",
            root.display(),
            schema::VERSION
        ),
    }
}

struct Cleaner {
    pseudonyms: Option<Pseudonyms>,
    /// A campaign's cells repeat (units, files, subjects): each text is cleaned once.
    seen: std::collections::HashMap<String, String>,
}

impl tables::Clean for Cleaner {
    fn clean(&mut self, text: &str) -> String {
        if let Some(t) = self.seen.get(text) {
            return t.clone();
        }
        let (t, _) = crate::bundle::redact::redact(text);
        let t = match self.pseudonyms.as_mut() {
            Some(p) => p.apply(&t),
            None => t,
        };
        self.seen.insert(text.to_string(), t.clone());
        t
    }
}

fn read_mapping(root: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let path = commit::mapping_path(root);
    match std::fs::read_to_string(&path) {
        Ok(t) => serde_json::from_str(&t)
            .with_context(|| format!("`{}` is not a pseudonym mapping", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    }
}

pub(crate) fn parquet(df: &mut polars_core::prelude::DataFrame) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    // A campaign's files are small: one thread each, many files at once. Snappy (what
    // Spark writes by default, read everywhere) and min/max/null statistics for pruning,
    // without distinct counts: creating a zstd context and counting distinct values cost
    // more than writing such a file.
    ParquetWriter::new(&mut buf)
        .set_parallel(false)
        .with_compression(ParquetCompression::Snappy)
        .with_statistics(StatisticsOptions {
            distinct_count: false,
            ..StatisticsOptions::default()
        })
        .with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![
            crate::frames::arrow_schema_for_every_reader(df),
            ("reprobench.schema_version".into(), schema::VERSION.into()),
        ])))
        .finish(df)
        .context("cannot write Parquet")?;
    Ok(buf)
}

/// Analyzes each input and adds its results to the dataset at `root`, in one atomic
/// change.
pub fn add(root: &Path, inputs: &[PathBuf], opts: &AddOptions) -> anyhow::Result<Vec<Added>> {
    if opts.name.is_some() && inputs.len() != 1 {
        anyhow::bail!("--name names one campaign: give one input with it");
    }
    check_schema(root)?;
    std::thread::spawn(warm_up);
    let lock = Locked::open(root)?;
    let mut index = Index::read(root)?;
    let mut mapping = read_mapping(root)?;
    let mut staged = lock.stage("add-")?;
    let mut out = Vec::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let result = (|| -> anyhow::Result<()> {
        for input in inputs {
            let adding = Adding {
                index: &mut index,
                mapping: &mut mapping,
                staged: &mut staged,
                names: &mut names,
            };
            out.extend(add_one(input, opts, adding)?);
        }
        Ok(())
    })();
    if let Err(e) = result {
        lock.abandon(staged);
        return Err(e);
    }
    if out.iter().all(|a| a.outcome == Outcome::Unchanged) {
        lock.abandon(staged);
        return Ok(out);
    }
    let index_json = serde_json::to_string_pretty(&index).context("cannot write the index")? + "\n";
    staged.put_file(
        "_index.json",
        index_json.as_bytes(),
        Target::Inside("_index.json".into()),
    )?;
    staged.put_file(
        "_schema.json",
        schema::json().as_bytes(),
        Target::Inside("_schema.json".into()),
    )?;
    if opts.pseudonymize {
        let m = serde_json::to_string_pretty(&mapping).context("cannot write the mapping")? + "\n";
        staged.put_file("pseudonyms.json", m.as_bytes(), Target::Mapping)?;
    }
    let t = crate::analysis::Timer::start();
    lock.commit(staged)?;
    t.lap("dataset: commit");
    Ok(out)
}

/// The first Parquet file a process writes costs several times the others (Polars starts
/// its thread pool, the writer's code is paged in) and the redactor compiles its rules on
/// first use: both are done on the side while the first campaign is read.
fn warm_up() {
    crate::bundle::redact::redact("");
    if let Ok(f) = crate::frames::FrameBuilder::new("warm")
        .str("s", ["x"])
        .opt_str("o", [None])
        .f64("f", [Some(1.0)])
        .i64("i", [1])
        .bool("b", [true])
        .build()
    {
        let mut df = f.df;
        let _ = parquet(&mut df);
    }
}

/// What an `add` changes as it goes: the index, the pseudonyms, the staged files and the
/// names taken so far.
struct Adding<'a> {
    index: &'a mut Index,
    mapping: &'a mut BTreeMap<String, String>,
    staged: &'a mut commit::Staged,
    names: &'a mut BTreeMap<String, String>,
}

/// One input staged: None when an earlier input of this add was the same campaign.
fn add_one(input: &Path, opts: &AddOptions, a: Adding) -> anyhow::Result<Option<Added>> {
    let t = crate::analysis::Timer::start();
    // A name the dataset knows is most likely the same campaign again: hash first,
    // and analyze only when it changed. A new name is hashed while it is analyzed.
    let known = a
        .index
        .by_name(
            &opts
                .name
                .clone()
                .unwrap_or_else(|| campaign::default_name(input)),
        )
        .is_some();
    let (id, mut run) = if known {
        (campaign::identify(input)?, None)
    } else {
        let (id, run) = rayon::join(
            || campaign::identify(input),
            || crate::analysis::run_input(input, &opts.judging),
        );
        (id?, Some(run?))
    };
    t.lap("dataset: campaign id (sha256), and the analysis of a new name");
    let name = opts.name.clone().unwrap_or_else(|| id.name.clone());
    if let Some(other) = a.names.insert(name.clone(), id.id.clone()) {
        if other != id.id {
            anyhow::bail!(
                "two inputs are named `{name}`: give them different names (add them one at a time with --name)"
            );
        }
        return Ok(None);
    }
    if let Some(e) = a.index.campaigns.get(&id.id) {
        return Ok(Some(Added {
            input: input.to_path_buf(),
            id: id.id.clone(),
            name: e.name.clone(),
            suites: e.suites.clone(),
            outcome: Outcome::Unchanged,
            exit: 0,
        }));
    }
    let run = match run.take() {
        Some(r) => r,
        None => crate::analysis::run_input(input, &opts.judging)?,
    };
    let incoming = Incoming {
        input,
        id: &id,
        name: &name,
        run,
    };
    stage_one(incoming, opts, a.index, a.mapping, a.staged).map(Some)
}

/// A campaign on its way in: the input, its identity, its name, its analysis.
struct Incoming<'a> {
    input: &'a Path,
    id: &'a Identity,
    name: &'a str,
    run: crate::analysis::Run,
}

/// The pseudonyms for a campaign: the hosts in its files and the hosts earlier campaigns
/// named (they keep their names; addresses are found anyway), over the dataset's mapping.
fn pseudonyms_for(
    input: &Path,
    opts: &AddOptions,
    mapping: &BTreeMap<String, String>,
) -> Pseudonyms {
    let mut hosts = opts.hosts.clone();
    if crate::ingest::unpack::is_bundle(input) {
        if let Ok(u) = crate::ingest::unpack::unpack(input) {
            hosts.extend(campaign::hosts_in(&u.results_dir()));
        }
    } else {
        hosts.extend(campaign::hosts_in(input));
    }
    hosts.extend(
        mapping
            .keys()
            .filter(|k| !k.chars().all(|c| c.is_ascii_digit() || c == '.'))
            .cloned(),
    );
    let mut p = Pseudonyms::with_hosts(hosts);
    p.map = mapping.clone();
    p
}

/// A campaign of the same name in the dataset is replaced: its entry leaves the index,
/// its segment's files are removed at the commit, and the other campaigns of that
/// segment (after a compaction) are written again as a segment without it.
fn replace_by_name(
    shown: &str,
    index: &mut Index,
    staged: &mut commit::Staged,
) -> anyhow::Result<Outcome> {
    let Some(old) = index.by_name(shown).cloned() else {
        return Ok(Outcome::Added);
    };
    let seg = index.campaigns[&old].segment.clone();
    let others: Vec<String> = segment::members(index, &seg)
        .into_iter()
        .filter(|c| **c != *old)
        .map(String::from)
        .collect();
    let old_files = segment::files(index, &seg);
    let kept = if others.is_empty() {
        None
    } else {
        Some(compact::rewrite(index, &seg, &others, staged)?)
    };
    for rel in old_files {
        staged.unput(&rel);
        staged.plan.remove.push(rel);
    }
    index.segments.remove(&seg);
    index.campaigns.remove(&old);
    if let Some((new_seg, digest)) = kept {
        for o in &others {
            if let Some(e) = index.campaigns.get_mut(o) {
                e.segment = new_seg.clone();
            }
        }
        index.segments.insert(new_seg, digest);
    }
    Ok(Outcome::Replaced(old))
}

fn stage_one(
    incoming: Incoming,
    opts: &AddOptions,
    index: &mut Index,
    mapping: &mut BTreeMap<String, String>,
    staged: &mut commit::Staged,
) -> anyhow::Result<Added> {
    let Incoming {
        input,
        id,
        name,
        run,
    } = incoming;
    let t = crate::analysis::Timer::start();
    let a = run.analysis;
    std::mem::forget(run.catalog);
    let pseudonyms = opts
        .pseudonymize
        .then(|| pseudonyms_for(input, opts, mapping));
    let mut cleaner = Cleaner {
        pseudonyms,
        seen: std::collections::HashMap::new(),
    };
    let shown = tables::Clean::clean(&mut cleaner, name);
    let frames = tables::build(&a, id, &shown, opts.pseudonymize, &mut cleaner)?;
    t.lap("dataset: tables (redacted, checked)");
    let mut suites: Vec<String> = Vec::new();
    let seg = segment::id([id.id.as_str()]);
    let written: Vec<(String, anyhow::Result<Vec<u8>>)> = {
        use rayon::prelude::*;
        frames
            .into_par_iter()
            .map(|(table, suite, mut df)| {
                let rel = segment::file(table, suite, &seg);
                let bytes = parquet(&mut df).with_context(|| format!("cannot write `{rel}`"));
                (rel, bytes)
            })
            .collect()
    };
    for s in a.suites.iter().map(|s| s.name) {
        if !suites.iter().any(|x| x == s) {
            suites.push(s.to_string());
        }
    }
    let mut lines: Vec<String> = Vec::new();
    for (rel, bytes) in written {
        let bytes = bytes?;
        lines.push(campaign::file_line(&rel, &bytes));
        staged.put_file(&rel, &bytes, Target::Inside(rel.clone()))?;
    }
    t.lap("dataset: Parquet");
    if let Some(p) = cleaner.pseudonyms {
        *mapping = p.map;
    }
    let outcome = replace_by_name(&shown, index, staged)?;
    index
        .segments
        .insert(seg.clone(), campaign::files_digest(lines));
    index.campaigns.insert(
        id.id.clone(),
        Entry {
            name: shown.clone(),
            suites: suites.clone(),
            started: a.started.clone(),
            segment: seg,
            files: String::new(),
        },
    );
    Ok(Added {
        input: input.to_path_buf(),
        id: id.id.clone(),
        name: shown,
        suites,
        outcome,
        exit: a.exit_code(),
    })
}
