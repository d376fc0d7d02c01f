//! `dataset add`: each input analyzed, its tables built, redacted and written as a
//! segment of its own, a campaign of the same name replaced; one atomic change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::bundle::pseudonym::Pseudonyms;

use super::campaign::{self, Identity};
use super::commit::{self, Locked, Target};
use super::index::{check_schema, Entry, Index};
use super::{compact, parquet, segment, tables, AddOptions, Added, Outcome};

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

/// Analyzes each input and adds its results to the dataset at `root`, in one atomic
/// change.
pub fn add(root: &Path, inputs: &[PathBuf], opts: &AddOptions) -> anyhow::Result<Vec<Added>> {
    if opts.name.is_some() && inputs.len() != 1 {
        anyhow::bail!("--name names one campaign: give one input with it");
    }
    // A folder that is not a dataset is refused before a lock is written into it; the
    // version is judged once an interrupted change is finished.
    super::major_at(root)?;
    std::thread::spawn(warm_up);
    let lock = Locked::open(root)?;
    check_schema(root)?;
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
    index.stage(&mut staged)?;
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
