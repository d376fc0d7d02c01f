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

/// A table's frames by (table, suite), gathered from the segments (or schema 1's
/// folders) they are in.
type Gathered = BTreeMap<(String, String), Vec<DataFrame>>;

/// Merges every campaign of the dataset at `root` into one segment.
pub fn compact(root: &Path) -> anyhow::Result<Compacted> {
    let Some(major) = super::major_at(root)? else {
        anyhow::bail!("`{}` is not a dataset (no _schema.json)", root.display());
    };
    if major != schema::MAJOR && major != "1" {
        anyhow::bail!(
            "`{}` is a dataset of schema major version {major}; this reprobench reads versions 1 and {}",
            root.display(),
            schema::MAJOR
        );
    }
    let lock = Locked::open(root)?;
    let mut index = Index::read(root)?;
    let target = segment::id(index.campaigns.keys().map(String::as_str));
    let files_before = count_parquet(root);
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
    let mut staged = lock.stage()?;
    let result = (|| -> anyhow::Result<()> {
        let (gathered, remove) = if major == "1" {
            gather_v1(root, &index)?
        } else {
            gather(root, &index)?
        };
        let digest = write(merge(gathered)?, &target, &mut staged)?;
        staged.plan.remove.extend(remove);
        for e in index.campaigns.values_mut() {
            e.segment = target.clone();
            e.files.clear();
        }
        index.segments = BTreeMap::from([(target.clone(), digest)]);
        if index.campaigns.is_empty() {
            index.segments.clear();
        }
        let text = serde_json::to_string_pretty(&index).context("cannot write the index")? + "\n";
        staged.put_file(
            "_index.json",
            text.as_bytes(),
            Target::Inside("_index.json".into()),
        )?;
        staged.put_file(
            "_schema.json",
            schema::json().as_bytes(),
            Target::Inside("_schema.json".into()),
        )
    })();
    if let Err(e) = result {
        lock.abandon(staged);
        return Err(e);
    }
    lock.commit(staged)?;
    Ok(Compacted {
        campaigns: index.campaigns.len(),
        files_before,
        files_after: count_parquet(root),
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
    let mut gathered = Gathered::new();
    for (rel, b) in &bytes {
        let (table, suite) = table_and_suite(rel)?;
        let df = segment::parquet(b, &staged.root.join(rel))?;
        let rows = segment::rows_of_any(&df, &keep)?;
        gathered.entry((table, suite)).or_default().push(rows);
    }
    let new_seg = segment::id(keep.iter().copied());
    let merged = merge(gathered)?;
    // A suite only the replaced campaign ran leaves no file behind.
    let merged = merged
        .into_iter()
        .filter(|((_, suite), _)| {
            keep.iter().any(|id| {
                index
                    .campaigns
                    .get(*id)
                    .is_some_and(|e| e.suites.iter().any(|s| s == suite))
            })
        })
        .collect();
    let digest = write(merged, &new_seg, staged)?;
    Ok((new_seg, digest))
}

/// Every segment's frames, and the files to remove once the new segment is in.
fn gather(root: &Path, index: &Index) -> anyhow::Result<(Gathered, Vec<String>)> {
    let mut gathered = Gathered::new();
    let mut remove = Vec::new();
    for seg in index.segments.keys() {
        for (rel, b) in segment::read(root, index, seg)? {
            let (table, suite) = table_and_suite(&rel)?;
            let df = segment::parquet(&b, &root.join(&rel))?;
            gathered.entry((table, suite)).or_default().push(df);
            remove.push(rel);
        }
    }
    Ok((gathered, remove))
}

/// Schema 1's frames: one folder per table, suite and campaign, checked against the
/// campaign's digest, the campaign's id added from the path; the folders to remove.
fn gather_v1(root: &Path, index: &Index) -> anyhow::Result<(Gathered, Vec<String>)> {
    let mut gathered = Gathered::new();
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
                bytes.insert(rel, (table, suite, b));
                remove.push(dir);
            }
        }
        check_v1(root, id, e, &bytes)?;
        for (rel, (table, suite, b)) in bytes {
            let mut df = segment::parquet(&b, &root.join(&rel))?;
            let n = df.height();
            df.with_column(Column::new("campaign".into(), vec![id.as_str(); n]))?;
            gathered
                .entry((table.to_string(), suite.clone()))
                .or_default()
                .push(df);
        }
    }
    Ok((gathered, remove))
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

/// Each table and suite's frames as one, in the table's current schema, its rows in
/// campaign order (each campaign's rows in the order they were written).
fn merge(gathered: Gathered) -> anyhow::Result<BTreeMap<(String, String), DataFrame>> {
    let mut out = BTreeMap::new();
    for ((table, suite), frames) in gathered {
        let mut all: Option<DataFrame> = None;
        for df in &frames {
            let df = segment::conform(&table, df)?;
            match all.as_mut() {
                Some(a) => {
                    a.vstack_mut(&df)?;
                }
                None => all = Some(df),
            }
        }
        let Some(all) = all else { continue };
        let ids = all.column("campaign")?.str()?;
        let mut order: Vec<IdxSize> = (0..all.height() as IdxSize).collect();
        order.sort_by(|a, b| ids.get(*a as usize).cmp(&ids.get(*b as usize)));
        let sorted = all.take(&IdxCa::from_vec("".into(), order))?;
        out.insert((table, suite), sorted);
    }
    Ok(out)
}

/// Stages each frame as the segment's file of its table and suite, checked against the
/// schema first; the segment's digest.
fn write(
    frames: BTreeMap<(String, String), DataFrame>,
    seg: &str,
    staged: &mut Staged,
) -> anyhow::Result<String> {
    use rayon::prelude::*;
    let written: Vec<(String, anyhow::Result<Vec<u8>>)> = frames
        .into_par_iter()
        .map(|((table, suite), mut df)| {
            let rel = segment::file(&table, &suite, seg);
            let bytes = (|| {
                let described = schema::table(&table)
                    .with_context(|| format!("`{table}` is not a table of the schema"))?;
                crate::frames::describe::conforms(described, &df).map_err(anyhow::Error::msg)?;
                df.rechunk_mut();
                super::parquet(&mut df)
            })()
            .with_context(|| format!("cannot write `{rel}`"));
            (rel, bytes)
        })
        .collect();
    let mut lines = Vec::new();
    for (rel, bytes) in written {
        let bytes = bytes?;
        lines.push(campaign::file_line(&rel, &bytes));
        staged.put_file(&rel, &bytes, Target::Inside(rel.clone()))?;
    }
    Ok(campaign::files_digest(lines))
}

/// The Parquet files under a dataset (what a query may open).
fn count_parquet(root: &Path) -> usize {
    fn walk(d: &Path, n: &mut usize) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            let name = e.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => walk(&p, n),
                Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "parquet") => *n += 1,
                _ => {}
            }
        }
    }
    let mut n = 0;
    walk(root, &mut n);
    n
}
