//! Segments: the files a dataset's rows live in. A segment holds one or more campaigns'
//! rows, one file per table and suite (`<table>/suite=<suite>/part-<segment>.parquet`),
//! each row keyed by its `campaign` column. An add writes its campaign as a segment of
//! its own; `dataset compact` merges every segment into one. A segment's id is derived
//! from the ids of the campaigns it holds, so writing the same campaigns again gives the
//! same files; the index keeps each segment's digest, checked before a reader sees a byte.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use polars_core::prelude::*;
use sha2::Digest;

use crate::schema::dataset as schema;
use crate::schema::Type;

use super::Index;

/// A segment's id: 16 hex digits of the sha256 of its campaigns' ids, sorted.
pub fn id<'a>(campaigns: impl IntoIterator<Item = &'a str>) -> String {
    let mut ids: Vec<&str> = campaigns.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut h = sha2::Sha256::new();
    for i in ids {
        h.update(i.as_bytes());
        h.update(b"\n");
    }
    super::campaign::hex(h.finalize())[..16].to_string()
}

/// Whether `s` is a segment id (16 lowercase hex digits).
pub fn is_id(s: &str) -> bool {
    s.len() == 16
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The file of one table and suite of a segment, relative to the dataset.
pub fn file(table: &str, suite: &str, segment: &str) -> String {
    format!("{table}/suite={suite}/part-{segment}.parquet")
}

/// The campaigns a segment holds, by id (the index's order).
pub fn members<'a>(index: &'a Index, segment: &str) -> Vec<&'a str> {
    index
        .campaigns
        .iter()
        .filter(|(_, e)| e.segment == segment)
        .map(|(id, _)| id.as_str())
        .collect()
}

/// The suites of a segment: every suite one of its campaigns ran, in registry order.
pub fn suites(index: &Index, segment: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in crate::suites::SUITES.iter().map(|s| s.name()) {
        let any = index
            .campaigns
            .values()
            .any(|e| e.segment == segment && e.suites.iter().any(|x| x == s));
        if any {
            out.push(s.to_string());
        }
    }
    out
}

/// Every file of a segment, relative to the dataset, in path order.
pub fn files(index: &Index, segment: &str) -> Vec<String> {
    let mut out: Vec<String> = suites(index, segment)
        .iter()
        .flat_map(|s| super::table_names().map(move |t| file(t, s, segment)))
        .collect();
    out.sort();
    out
}

/// A segment's files, read whole and checked against the digest the index keeps: only
/// bytes this tool wrote reach the Parquet reader.
pub fn read(
    root: &Path,
    index: &Index,
    segment: &str,
) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    read_at(|rel| root.join(rel), root, index, segment)
}

/// [`read`], each file where `locate` says it is (a change being staged sees its own
/// files first).
pub fn read_at(
    locate: impl Fn(&str) -> std::path::PathBuf,
    root: &Path,
    index: &Index,
    segment: &str,
) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let mut bytes = BTreeMap::new();
    for rel in files(index, segment) {
        let path = locate(&rel);
        let b =
            std::fs::read(&path).with_context(|| format!("cannot read `{}`", path.display()))?;
        bytes.insert(rel, b);
    }
    let lines = bytes
        .iter()
        .map(|(rel, b)| super::campaign::file_line(rel, b))
        .collect();
    if index.segments.get(segment) != Some(&super::campaign::files_digest(lines)) {
        anyhow::bail!(
            "the files of segment {segment} in `{}` (campaigns {}) are not the ones this tool wrote (their sha256 differs from _index.json): a file was changed or damaged; restore the dataset's files from a copy, or build the dataset again from the campaigns' inputs",
            root.display(),
            members(index, segment)
                .iter()
                .filter_map(|id| index.campaigns.get(*id))
                .map(|e| format!("`{}`", e.name))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(bytes)
}

/// The Parquet reader on checked bytes. Bytes crafted to match their digest can still
/// make the reader panic (on one of its threads): that is an error naming the file too,
/// never the end of the program, and the panic's message is not printed as ours.
pub fn parquet(bytes: &[u8], shown: &Path) -> anyhow::Result<DataFrame> {
    use polars_io::prelude::ParquetReader;
    use polars_io::SerReader;
    // The panic hook is the process's: one reader at a time swaps it, so no reader's
    // panic prints and no hook is lost. Never call this from a rayon task: one waiting
    // for the lock could run, on the same thread, a task that holds it.
    static HOOK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let cursor = std::io::Cursor::new(bytes);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ParquetReader::new(cursor).finish()
    }));
    std::panic::set_hook(hook);
    let r = match r {
        Ok(r) => r.map_err(anyhow::Error::from),
        Err(_) => Err(anyhow::anyhow!("the Parquet reader failed on it")),
    };
    r.with_context(|| {
        format!(
            "`{}` is not a Parquet file of this dataset",
            shown.display()
        )
    })
}

/// The rows of one campaign.
pub fn rows_of(df: &DataFrame, campaign: &str) -> anyhow::Result<DataFrame> {
    let mask = df.column("campaign")?.str()?.equal(campaign);
    Ok(df.filter(&mask)?)
}

/// The rows of the campaigns kept.
pub fn rows_of_any(df: &DataFrame, keep: &[&str]) -> anyhow::Result<DataFrame> {
    let ids = df.column("campaign")?.str()?;
    let mask: BooleanChunked = ids
        .iter()
        .map(|v| Some(v.is_some_and(|v| keep.contains(&v))))
        .collect();
    Ok(df.filter(&mask)?)
}

/// A frame given the table's whole current schema: every column in the schema's order
/// with its type, a column the frame lacks (written under an older minor version) as
/// null, and `schema_version` the version it is now written with. A column the schema
/// does not know is an error (a file of a newer version).
pub fn conform(table: &str, df: &DataFrame) -> anyhow::Result<DataFrame> {
    let t = schema::table(table).with_context(|| format!("`{table}` is not a table"))?;
    let n = df.height();
    for c in df.get_column_names() {
        if c.as_str() != "suite" && !t.columns().any(|x| x.name == c.as_str()) {
            anyhow::bail!(
                "`{table}` has a column `{c}` that schema {} does not describe: written by a newer reprobench",
                schema::VERSION
            );
        }
    }
    let mut cols = Vec::new();
    for c in t.columns() {
        let ty = c.ty.dtype();
        let col = if c.name == "schema_version" {
            Column::new(c.name.into(), vec![schema::VERSION; n])
        } else {
            match df.column(c.name) {
                // Schema 1 wrote instants as text (RFC 3339, UTC).
                Ok(col) if c.ty == Type::Timestamp && col.dtype() == &DataType::String => {
                    let mut micros: Vec<Option<i64>> = Vec::with_capacity(n);
                    for t in col.str()?.iter() {
                        micros.push(match t {
                            Some(t) => Some(crate::instant::instant(t).map_err(|why| {
                                anyhow::anyhow!("`{table}`: `{}` is `{t}`: {why}", c.name)
                            })?),
                            None => None,
                        });
                    }
                    Column::new(c.name.into(), micros).strict_cast(&ty)?
                }
                // Strict: a value that is not of the column's type is an error, never
                // a null.
                Ok(col) => col.strict_cast(&ty).map_err(|e| {
                    anyhow::anyhow!("`{table}`: column `{}` is not {ty}: {e}", c.name)
                })?,
                Err(_) => Column::full_null(c.name.into(), n, &ty),
            }
        };
        cols.push(col);
    }
    Ok(DataFrame::new(n, cols)?)
}

/// Every file below `rel` (relative to `root`), as relative paths, hidden ones (`.name`)
/// aside; links are not followed.
pub fn files_under(root: &Path, rel: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(root.join(rel))
        .into_iter()
        .flatten()
        .flatten()
    {
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let child = rel.join(e.file_name());
        match e.file_type() {
            Ok(t) if t.is_dir() => files_under(root, &child, out),
            Ok(_) => out.push(child.to_string_lossy().into_owned()),
            Err(_) => {}
        }
    }
}

/// The Parquet files under a dataset's tables (what a query opens: `<table>/**/*.parquet`).
pub fn parquet_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for t in super::table_names() {
        files_under(root, Path::new(t), &mut out);
    }
    out.retain(|rel| rel.ends_with(".parquet"));
    out
}

/// How many [`parquet_files`] there are.
pub fn count_parquet(root: &Path) -> usize {
    parquet_files(root).len()
}
