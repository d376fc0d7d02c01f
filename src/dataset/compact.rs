//! `dataset compact`: every segment of a dataset merged into one, a file per table and
//! suite, so a query opens a few files instead of one per campaign and table. Every file
//! is written again with the table's whole current schema (a column added in a later
//! minor version is null in the campaigns written before it). A dataset of schema 1
//! (one folder per campaign, `campaign=<id>/part-0.parquet`) is rewritten in this
//! version's layout the same way. One atomic change, like an add: staged, committed by
//! one rename, the old files removed after; compacting a compact dataset changes nothing.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use polars_core::prelude::*;

use crate::schema::dataset as schema;

use super::commit::{Locked, Staged, Target};
use super::{campaign, segment, Entry, Index};

/// What a compaction did.
#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    pub campaigns: usize,
    /// Parquet files before and after.
    pub files_before: usize,
    pub files_after: usize,
    /// The schema major version the dataset had.
    pub from_major: String,
    /// Nothing to do: one segment already, of this version.
    pub unchanged: bool,
}

/// Where each table and suite's rows are: its files, read one table and suite at a time
/// so that a compaction holds one table's rows in memory, not the dataset's.
type Sources = BTreeMap<(String, String), Vec<Source>>;

/// One file of the old layout.
struct Source {
    /// Relative to the dataset.
    rel: String,
    /// The campaign id its rows lack (schema 1 kept it in the path).
    campaign: Option<String>,
    /// Its sha256 when its segment (or campaign) was checked against the index: read
    /// again to be merged, it must still be those bytes.
    sha256: String,
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    campaign::hex(sha2::Sha256::digest(bytes))
}

/// Merges every campaign of the dataset at `root` into one segment.
pub fn compact(root: &Path) -> anyhow::Result<Compacted> {
    if super::major_at(root)?.is_none() {
        anyhow::bail!("`{}` is not a dataset (no _schema.json)", root.display());
    }
    // The version as it is once an interrupted change is finished (a compaction of a
    // schema 1 dataset that crashed after its commit has made it version 2).
    let lock = Locked::open(root)?;
    let major = super::major_at(root)?.unwrap_or_default();
    if major != schema::MAJOR && major != "1" {
        anyhow::bail!(
            "`{}` is a dataset of schema major version {major}; this reprobench reads versions 1 and {}",
            root.display(),
            schema::MAJOR
        );
    }
    let mut index = Index::read(root)?;
    let target = segment::id(index.campaigns.keys().map(String::as_str));
    let files_before = segment::count_parquet(root);
    let done = major == schema::MAJOR
        && index.segments.len() <= 1
        && index.campaigns.values().all(|e| e.segment == target);
    if done {
        return Ok(Compacted {
            campaigns: index.campaigns.len(),
            files_before,
            files_after: files_before,
            from_major: major,
            unchanged: true,
        });
    }
    let mut staged = lock.stage("compact-")?;
    let result = (|| -> anyhow::Result<()> {
        let (sources, remove) = if major == "1" {
            sources_v1(root, &index)?
        } else {
            sources(root, &index)?
        };
        only_listed_files(root, &remove)?;
        let digest = merge_and_write(root, &index, sources, &target, &mut staged)?;
        staged.plan.remove.extend(remove);
        for e in index.campaigns.values_mut() {
            e.segment = target.clone();
            e.files.clear();
        }
        index.segments = BTreeMap::from([(target.clone(), digest)]);
        if index.campaigns.is_empty() {
            index.segments.clear();
        }
        index.stage(&mut staged)
    })();
    if let Err(e) = result {
        lock.abandon(staged);
        return Err(e);
    }
    let t = crate::analysis::Timer::start();
    lock.commit(staged)?;
    t.lap("dataset: commit (old files removed, new ones moved in)");
    Ok(Compacted {
        campaigns: index.campaigns.len(),
        files_before,
        files_after: segment::count_parquet(root),
        from_major: major,
        unchanged: false,
    })
}

/// A segment written again without a replaced campaign: `keep`'s rows of segment `seg`,
/// staged as the segment of `keep`. Its id and digest.
pub fn rewrite(
    index: &Index,
    seg: &str,
    keep: &[String],
    staged: &mut Staged,
) -> anyhow::Result<(String, String)> {
    let bytes = segment::read_at(|rel| staged.current(rel), &staged.root, index, seg)?;
    let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
    let new_seg = segment::id(keep.iter().copied());
    let mut lines = Vec::new();
    for (rel, b) in &bytes {
        let (table, suite) = table_and_suite(rel)?;
        // A suite only the replaced campaign ran leaves no file behind.
        let kept = keep.iter().any(|id| {
            index
                .campaigns
                .get(*id)
                .is_some_and(|e| e.suites.contains(&suite))
        });
        if !kept {
            continue;
        }
        let df = segment::parquet(b, &staged.root.join(rel))?;
        let rows = segment::rows_of_any(&df, &keep)?;
        let (to, bytes) = encode(&table, &suite, &new_seg, merge_key(&table, &[rows])?)?;
        lines.push(campaign::file_line(&to, &bytes));
        staged.put_file(&to, &bytes, Target::Inside(to.clone()))?;
    }
    let digest = campaign::files_digest(lines);
    Ok((new_seg, digest))
}

/// Every segment's files, each segment checked against its digest first; and the files
/// to remove once the new segment is in.
fn sources(root: &Path, index: &Index) -> anyhow::Result<(Sources, Vec<String>)> {
    let mut sources = Sources::new();
    let mut remove = Vec::new();
    for seg in index.segments.keys() {
        for (rel, b) in segment::read(root, index, seg)? {
            let key = table_and_suite(&rel)?;
            sources.entry(key).or_default().push(Source {
                rel: rel.clone(),
                campaign: None,
                sha256: sha256(&b),
            });
            remove.push(rel);
        }
    }
    Ok((sources, remove))
}

/// Schema 1's files: one folder per table, suite and campaign, each campaign checked
/// against its digest first; the folders to remove.
fn sources_v1(root: &Path, index: &Index) -> anyhow::Result<(Sources, Vec<String>)> {
    let mut sources = Sources::new();
    let mut remove = Vec::new();
    for (id, e) in &index.campaigns {
        let mut bytes = BTreeMap::new();
        for suite in &e.suites {
            for table in super::table_names() {
                let dir = format!("{table}/suite={suite}/campaign={id}");
                let rel = format!("{dir}/part-0.parquet");
                let path = root.join(&rel);
                let b = std::fs::read(&path)
                    .with_context(|| format!("cannot read `{}`", path.display()))?;
                sources
                    .entry((table.to_string(), suite.clone()))
                    .or_default()
                    .push(Source {
                        rel: rel.clone(),
                        campaign: Some(id.clone()),
                        sha256: sha256(&b),
                    });
                bytes.insert(rel, (table, suite, b));
                remove.push(dir);
            }
        }
        check_v1(root, id, e, &bytes)?;
    }
    Ok((sources, remove))
}

/// Each table and suite read, merged and staged as the new segment's file; the
/// `campaigns` table's rows checked against the index. The segment's digest.
fn merge_and_write(
    root: &Path,
    index: &Index,
    sources: Sources,
    seg: &str,
    staged: &mut Staged,
) -> anyhow::Result<String> {
    // One table and suite after the other: the Parquet reader swaps the process's panic
    // hook under a lock, which a rayon task must not hold while it waits (a stolen task
    // on the same thread would wait for it forever).
    let written: Vec<anyhow::Result<(String, Vec<u8>)>> = sources
        .into_iter()
        .map(|((table, suite), files)| {
            let mut frames = Vec::with_capacity(files.len());
            for f in files {
                let path = root.join(&f.rel);
                let b = std::fs::read(&path)
                    .with_context(|| format!("cannot read `{}`", path.display()))?;
                if sha256(&b) != f.sha256 {
                    anyhow::bail!(
                        "`{}` changed while it was being compacted: nothing was changed",
                        path.display()
                    );
                }
                let mut df = segment::parquet(&b, &path)?;
                if let Some(id) = f.campaign {
                    let n = df.height();
                    df.with_column(Column::new("campaign".into(), vec![id.as_str(); n]))?;
                }
                frames.push(df);
            }
            let merged = merge_key(&table, &frames)?;
            drop(frames);
            if table == "campaigns" {
                rows_match_the_index(index, &suite, &merged)?;
            }
            encode(&table, &suite, seg, merged)
        })
        .collect();
    let mut lines = Vec::new();
    for w in written {
        let (rel, bytes) = w?;
        lines.push(campaign::file_line(&rel, &bytes));
        staged.put_file(&rel, &bytes, Target::Inside(rel.clone()))?;
    }
    Ok(campaign::files_digest(lines))
}

/// A schema 1 campaign's files are the ones its add wrote.
fn check_v1(
    root: &Path,
    id: &str,
    e: &Entry,
    bytes: &BTreeMap<String, (&str, &String, Vec<u8>)>,
) -> anyhow::Result<()> {
    let lines = bytes
        .iter()
        .map(|(rel, (_, _, b))| campaign::file_line(rel, b))
        .collect();
    if campaign::files_digest(lines) != e.files {
        anyhow::bail!(
            "the files of campaign {} (`{}`) in `{}` are not the ones `dataset add` wrote (their sha256 differs from _index.json): a file was changed or damaged; nothing was changed",
            id.get(..12).unwrap_or(id),
            e.name,
            root.display()
        );
    }
    Ok(())
}

/// Every Parquet file under the tables' folders (what a query reads) is one the index
/// lists (`listed`: files, or schema 1's folders): a file left there by hand or copied in
/// would be kept beside the compacted ones, and a query would count its rows or fail on
/// it. Other files (`_SUCCESS`, `.DS_Store`) are no query's business and are left.
fn only_listed_files(root: &Path, listed: &[String]) -> anyhow::Result<()> {
    let listed: std::collections::HashSet<&str> = listed.iter().map(String::as_str).collect();
    let mut stray = Vec::new();
    for rel in segment::parquet_files(root) {
        let in_listed_folder = Path::new(&rel)
            .parent()
            .and_then(|p| p.to_str())
            .is_some_and(|p| listed.contains(p));
        if !listed.contains(rel.as_str()) && !in_listed_folder {
            stray.push(rel);
        }
    }
    if stray.is_empty() {
        return Ok(());
    }
    let n = stray.len();
    stray.truncate(5);
    anyhow::bail!(
        "`{}` holds {n} file(s) the index does not list (`{}`{}): not this dataset's (a copy, a file left by hand); a compaction would keep them beside its own and queries would read them; move them out, then compact again",
        root.display(),
        stray.join("`, `"),
        if n > 5 { ", ..." } else { "" }
    )
}

/// Each campaign the index lists has exactly one row in the `campaigns` table of each
/// suite it ran, and no other campaign has any: the index and the files agree.
fn rows_match_the_index(index: &Index, suite: &str, df: &DataFrame) -> anyhow::Result<()> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for id in df.column("campaign")?.str()?.iter().flatten() {
        *count.entry(id).or_default() += 1;
    }
    for (id, e) in &index.campaigns {
        let want = usize::from(e.suites.iter().any(|s| s == suite));
        let got = count.remove(id.as_str()).unwrap_or(0);
        if got != want {
            anyhow::bail!(
                "campaign `{}` ({}) has {got} rows in `campaigns/suite={suite}`, not {want}: the index does not match the files; restore `_index.json`, or add the campaign again to a new dataset",
                e.name,
                id.get(..12).unwrap_or(id)
            );
        }
    }
    if let Some((id, n)) = count.into_iter().next() {
        anyhow::bail!(
            "`campaigns/suite={suite}` holds {n} rows of campaign {}, which the index does not list: the index does not match the files; restore `_index.json`",
            id.get(..12).unwrap_or(id)
        );
    }
    Ok(())
}

/// `<table>/suite=<suite>/part-<segment>.parquet` → (table, suite).
fn table_and_suite(rel: &str) -> anyhow::Result<(String, String)> {
    let mut parts = rel.split('/');
    match (
        parts.next(),
        parts.next().and_then(|s| s.strip_prefix("suite=")),
    ) {
        (Some(t), Some(s)) => Ok((t.to_string(), s.to_string())),
        _ => anyhow::bail!("`{rel}` is not a segment's file"),
    }
}

/// One table and suite's frames as one, in the table's current schema, its rows in
/// campaign order (each campaign's rows in the order they were written).
fn merge_key(table: &str, frames: &[DataFrame]) -> anyhow::Result<DataFrame> {
    let mut all: Option<DataFrame> = None;
    for df in frames {
        let df = segment::conform(table, df)?;
        match all.as_mut() {
            Some(a) => {
                a.vstack_mut(&df)?;
            }
            None => all = Some(df),
        }
    }
    let all = match all {
        Some(a) => a,
        None => segment::conform(table, &DataFrame::empty())?,
    };
    let ids = all.column("campaign")?.str()?;
    let mut order: Vec<IdxSize> = (0..all.height() as IdxSize).collect();
    order.sort_by(|a, b| ids.get(*a as usize).cmp(&ids.get(*b as usize)));
    Ok(all.take(&IdxCa::from_vec("".into(), order))?)
}

/// A frame as the segment's Parquet file of its table and suite, checked against the
/// schema first: its path and bytes.
fn encode(
    table: &str,
    suite: &str,
    seg: &str,
    mut df: DataFrame,
) -> anyhow::Result<(String, Vec<u8>)> {
    let rel = segment::file(table, suite, seg);
    let bytes = (|| {
        let described = schema::table(table)
            .with_context(|| format!("`{table}` is not a table of the schema"))?;
        crate::frames::describe::conforms(described, &df).map_err(anyhow::Error::msg)?;
        df.rechunk_mut();
        super::parquet(&mut df)
    })()
    .with_context(|| format!("cannot write `{rel}`"))?;
    Ok((rel, bytes))
}
