//! The ask snapshots beside a transcript: named by their ask, read, paired with the
//! restores they surround, and claimed as evidence.

use super::counters::source;
use super::{Checked, Source};
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Kind, Record};
use crate::parse::ask::Attempt;
use crate::parse::prom::Snapshot;

/// The snapshot at `rel`, or why there is none usable.
fn snapshot<'a>(catalog: &'a Catalog, rel: &str) -> Result<&'a Snapshot, String> {
    match catalog.items.iter().find(|i| i.rel == rel) {
        None => Err("no snapshots".into()),
        Some(i) => match &i.record {
            Ok(Record::Prometheus(s)) => Ok(s),
            Ok(_) => Err(format!("`{rel}` is not a /metrics snapshot")),
            Err(p) => Err(format!("`{rel}` does not read: {}", p.reason)),
        },
    }
}

/// The ask number of a snapshot name (`restore/adp.ask2.pre.prom` -> (`restore/adp`, 2));
/// None for other names, and for a number written with a leading zero.
fn ask_number(rel: &str) -> Option<(&str, usize)> {
    let base = rel
        .strip_suffix(".pre.prom")
        .or_else(|| rel.strip_suffix(".post.prom"))?;
    let (stem, k) = base.rsplit_once(".ask")?;
    let ok = !k.is_empty() && !k.starts_with('0') && k.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| k.parse().ok().map(|k| (stem, k)))?
}

/// Each restore of `transcript` (every ask after the cold request) with what its
/// snapshots say. Snapshots that do not read go into `skipped`. When the folder holds a
/// snapshot for an ask the transcript does not have, asks and snapshots cannot be paired
/// (a line lost or two asks on one line): nothing is checked, and the reason is given.
pub fn check(
    catalog: &Catalog,
    transcript: &str,
    attempts: &[Attempt],
    skipped: &mut Vec<Skipped>,
) -> Vec<Checked> {
    let base = transcript.strip_suffix(".txt").unwrap_or(transcript);
    let beyond = catalog
        .items
        .iter()
        .filter_map(|i| ask_number(&i.rel))
        .filter(|(stem, k)| *stem == base && *k > attempts.len())
        .map(|(_, k)| k)
        .max();
    for i in catalog
        .items
        .iter()
        .filter(|i| ask_number(&i.rel).is_some_and(|(stem, _)| stem == base) && i.record.is_err())
    {
        if let Err(p) = &i.record {
            skipped.push(i.skipped(p));
        }
    }
    attempts
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, a)| a.failed.is_none())
        .filter_map(|(i, a)| {
            let cached = a.cached?;
            let (pre, post) = (
                format!("{base}.ask{}.pre.prom", i + 1),
                format!("{base}.ask{}.post.prom", i + 1),
            );
            let source = match (beyond, snapshot(catalog, &pre), snapshot(catalog, &post)) {
                (Some(k), _, _) => Source::NotChecked(format!(
                    "a snapshot of ask {k} where `{transcript}` has {} asks: asks and snapshots cannot be paired",
                    attempts.len()
                )),
                (None, Ok(a), Ok(b)) => source(a, b, cached),
                (None, Err(e), _) | (None, _, Err(e)) => Source::NotChecked(e),
            };
            let files = match source {
                Source::NotChecked(_) => Vec::new(),
                _ => vec![pre, post],
            };
            Some(Checked {
                transcript: transcript.to_string(),
                line: a.line,
                source,
                files,
            })
        })
        .collect()
}

/// Every readable ask snapshot under `dir` (`restore` or `dram`) beside a transcript
/// with that ask: read as evidence, the restores' judged by [`check`], the others (cold
/// requests, plain vLLM's recomputes) kept beside.
pub fn snapshots_in(catalog: &Catalog, dir: &str) -> Vec<String> {
    catalog
        .of(Kind::Prometheus)
        .filter(|i| i.record.is_ok() && is_ask_snapshot(&i.rel) && claimed(catalog, &i.rel, dir))
        .map(|i| i.rel.clone())
        .collect()
}

/// Whether a snapshot sits beside a transcript in `dir` that has its ask.
fn claimed(catalog: &Catalog, rel: &str, dir: &str) -> bool {
    let Some((stem, k)) = ask_number(rel) else {
        return false;
    };
    layout::transcript_dir(rel) == Some(dir)
        && catalog.of(Kind::Ask).any(|t| {
            t.rel.strip_suffix(".txt") == Some(stem)
                && matches!(&t.record, Ok(Record::Ask(a)) if k <= a.len())
        })
}

/// Whether `rel` is named as an ask snapshot (for the files a suite claims).
pub fn is_ask_snapshot(rel: &str) -> bool {
    layout::transcript_dir(rel).is_some() && ask_number(rel).is_some()
}
