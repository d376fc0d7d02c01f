//! Where each restore's cached tokens came from. `collect kv-restore` scrapes the server's
//! `/metrics` right before and after every ask (`<transcript>.ask<k>.pre.prom` and
//! `.post.prom` beside the transcript, k counting the asks from 1, as the transcript's
//! `time ...` lines do; the procedure takes none). Between the two, a restore the card
//! served shows the connector's hits (`vllm:external_prefix_cache_hits_total`) equal to
//! the cached tokens and no GPU prefix-cache hits; hits from the GPU prefix cache mean the
//! prompt was still in GPU memory, and the restore says nothing about the card.

use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Kind, Record};
use crate::model::verdict::{Status, Verdict};
use crate::parse::ask::Attempt;
use crate::parse::prom::Snapshot;

/// What the counters say of one restore.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The connector's hits cover the cached tokens and the GPU prefix cache hit nothing.
    Card { external: f64 },
    /// The GPU prefix cache served some of it: the prompt was still in GPU memory.
    Gpu { local: f64, external: f64 },
    /// Nothing was cached and nothing hit: a miss, which the cached share reports.
    Nothing,
    /// The counters do not account for the cached tokens (or went down: a restart
    /// between the snapshots; or a counter is missing).
    Unaccounted(String),
    /// No pair of snapshots around this ask, and why.
    NotChecked(String),
}

/// One restore: its transcript and line, what the counters say, and the snapshot files
/// read.
#[derive(Debug, Clone)]
pub struct Checked {
    pub transcript: String,
    pub line: usize,
    pub source: Source,
    pub files: Vec<String>,
}

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

/// The counters between `pre` and `post` against `cached` tokens.
pub fn source(pre: &Snapshot, post: &Snapshot, cached: u64) -> Source {
    let delta =
        |names: &[&str]| -> Option<f64> { Some(post.sum_any(names)? - pre.sum_any(names)?) };
    let connector = super::names::metric("connector hits");
    let Some(external) = delta(&connector) else {
        return Source::Unaccounted(format!(
            "the snapshots have no `{}` (no KV connector, or a vLLM without the counter)",
            connector.join("` or `")
        ));
    };
    let gpu = super::names::metric("prefix-cache hits");
    let Some(local) = delta(&gpu) else {
        return Source::Unaccounted(format!(
            "the snapshots have no `{}`: whether the GPU prefix cache served it is unknown",
            gpu.join("` or `")
        ));
    };
    if external < 0.0 || local < 0.0 {
        return Source::Unaccounted(
            "a counter went down between the snapshots (the server restarted)".into(),
        );
    }
    if local >= 1.0 {
        return Source::Gpu { local, external };
    }
    if cached == 0 {
        return if external < 1.0 {
            Source::Nothing
        } else {
            Source::Unaccounted(
                crate::phrase!(
                    "the connector counted {} hits where the response says 0 cached",
                    crate::model::phrase::printed(external, 0)
                )
                .to_string(),
            )
        };
    }
    let cached = cached as f64;
    // The response's cached tokens and the connector's hit count are the same tokens;
    // they may differ by less than one token in a hundred (rounding to whole blocks).
    if (external - cached).abs() <= (cached * 0.01).max(1.0) {
        Source::Card { external }
    } else {
        Source::Unaccounted(
            crate::phrase!(
                "the connector counted {} hits where the response says {} cached",
                crate::model::phrase::printed(external, 0),
                crate::model::phrase::printed(cached, 0)
            )
            .to_string(),
        )
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

/// Adds what the snapshots say to a verdict that reads the restores: a restore the GPU
/// prefix cache served makes it not comparable (the prompt was still in GPU memory: the
/// card was not tested); without snapshots it says the origin was not checked.
/// `store` names what the connector restores from ("the card"; LMCache's connector
/// serves its DRAM tier and the card alike).
pub fn apply(v: &mut Verdict, checked: &[Checked], store: &str) {
    if checked.is_empty() {
        return;
    }
    let several = checked
        .iter()
        .any(|c| c.transcript != checked[0].transcript);
    let Sources {
        gpu,
        unaccounted,
        not_checked,
        card,
        unchecked,
    } = sources(checked, several);
    let lines_word = |n: usize| if several || n != 1 { "s" } else { "" };
    let mut note = Vec::new();
    if !gpu.is_empty() {
        note.push(format!(
            "hits came from the GPU prefix cache, not {store} ({}): the prompt was still in GPU memory, so the restore did not test {store}",
            gpu.join("; ")
        ));
        if matches!(v.status, Status::Pass | Status::Fail) {
            v.status = Status::NotComparable;
        }
    }
    if !unaccounted.is_empty() {
        note.push(format!(
            "where the hits came from is unknown ({})",
            unaccounted.join("; ")
        ));
    }
    if !card.is_empty() {
        note.push(format!(
            "restored from {store} at {}{} {}: the connector's hits equal the cached tokens and the GPU prefix cache hit nothing between the ask's /metrics snapshots",
            if several { "" } else { "line" },
            if several { "".to_string() } else { lines_word(card.len()).to_string() },
            card.join(", ")
        ));
    }
    if !not_checked.is_empty() {
        note.push(format!(
            "where the hits came from was not checked ({})",
            not_checked.join("; ")
        ));
    }
    let none_at_all = checked
        .iter()
        .all(|c| c.source == Source::NotChecked("no snapshots".into()));
    if !unchecked.is_empty() {
        note.push(if none_at_all {
            "where the hits came from was not checked: no /metrics snapshots around the asks (`<transcript>.ask<k>.pre.prom` and `.post.prom`; the procedure takes none, `collect kv-restore` does)".to_string()
        } else {
            format!(
                "where the hits came from was not checked at {}{} {} (no snapshots)",
                if several { "" } else { "line" },
                if several { "".to_string() } else { lines_word(unchecked.len()).to_string() },
                unchecked.join(", ")
            )
        });
    }
    for c in checked {
        v.files.extend(c.files.iter().cloned());
    }
    v.note = crate::model::phrase::Phrase::joined(
        [
            v.note.clone(),
            crate::model::phrase::Phrase::words(note.join("; ")),
        ],
        "; ",
    );
}

/// The restores by where their hits came from, each named by its line (and transcript,
/// with `several`).
struct Sources {
    gpu: Vec<String>,
    unaccounted: Vec<String>,
    not_checked: Vec<String>,
    card: Vec<String>,
    unchecked: Vec<String>,
}

fn sources(checked: &[Checked], several: bool) -> Sources {
    let at = |c: &Checked| {
        if several {
            format!("`{}` line {}", c.transcript, c.line)
        } else {
            format!("line {}", c.line)
        }
    };
    let listed = |f: &dyn Fn(&Source) -> bool| -> Vec<String> {
        checked
            .iter()
            .filter(|c| f(&c.source))
            .map(|c| if several { at(c) } else { c.line.to_string() })
            .collect()
    };
    let gpu: Vec<String> = checked
        .iter()
        .filter_map(|c| match c.source {
            Source::Gpu { local, external } => Some(
                crate::phrase!(
                    "{}: {} tokens from the GPU prefix cache, {} from the connector",
                    crate::model::phrase::name(at(c)),
                    crate::model::phrase::printed(local, 0),
                    crate::model::phrase::printed(external, 0)
                )
                .to_string(),
            ),
            _ => None,
        })
        .collect();
    let unaccounted: Vec<String> = checked
        .iter()
        .filter_map(|c| match &c.source {
            Source::Unaccounted(why) => Some(format!("{}: {why}", at(c))),
            _ => None,
        })
        .collect();
    let not_checked: Vec<String> = checked
        .iter()
        .filter_map(|c| match &c.source {
            Source::NotChecked(why) if why != "no snapshots" => Some(format!("{}: {why}", at(c))),
            _ => None,
        })
        .collect();
    let card = listed(&|s| matches!(s, Source::Card { .. }));
    let unchecked = listed(&|s| *s == Source::NotChecked("no snapshots".into()));
    Sources {
        gpu,
        unaccounted,
        not_checked,
        card,
        unchecked,
    }
}

/// For the restore time: only restores the GPU prefix cache served change it (their time
/// is not the card's).
pub fn apply_to_time(v: &mut Verdict, checked: &[Checked], store: &str) {
    let gpu: Vec<Checked> = checked
        .iter()
        .filter(|c| matches!(c.source, Source::Gpu { .. }))
        .cloned()
        .collect();
    apply(v, &gpu, store);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(local: f64, external: f64) -> Snapshot {
        let text = format!(
            "vllm:prefix_cache_hits_total{{engine=\"0\"}} {local}\nvllm:external_prefix_cache_hits_total{{engine=\"0\"}} {external}\n"
        );
        crate::parse::prom::parse_bytes(text.as_bytes()).expect("prom")
    }

    #[test]
    fn the_counters_between_the_snapshots_say_where_the_hits_came_from() {
        let pre = snap(0.0, 0.0);
        assert_eq!(
            source(&pre, &snap(0.0, 5888.0), 5888),
            Source::Card { external: 5888.0 }
        );
        assert_eq!(
            source(&pre, &snap(5888.0, 0.0), 5888),
            Source::Gpu {
                local: 5888.0,
                external: 0.0
            }
        );
        assert!(matches!(
            source(&pre, &snap(0.0, 1024.0), 5888),
            Source::Unaccounted(_)
        ));
        // A miss: nothing cached, nothing hit. Not a restore from the card.
        assert_eq!(source(&pre, &snap(0.0, 0.0), 0), Source::Nothing);
        // No GPU counter: whether the GPU served it is unknown, not "nothing".
        let only_connector =
            crate::parse::prom::parse_bytes(b"vllm:external_prefix_cache_hits_total 5888\n")
                .expect("prom");
        let zero = crate::parse::prom::parse_bytes(b"vllm:external_prefix_cache_hits_total 0\n")
            .expect("prom");
        assert!(matches!(
            source(&zero, &only_connector, 5888),
            Source::Unaccounted(_)
        ));
        assert!(matches!(
            source(&snap(0.0, 6000.0), &snap(0.0, 5888.0), 5888),
            Source::Unaccounted(_)
        ));
        let no_connector =
            crate::parse::prom::parse_bytes(b"vllm:prefix_cache_hits_total 0\n").expect("prom");
        assert!(matches!(
            source(&no_connector, &no_connector, 5888),
            Source::Unaccounted(_)
        ));
    }

    #[test]
    fn only_numbered_ask_snapshots_beside_a_transcript_are_read() {
        assert!(is_ask_snapshot("restore/adp.ask2.pre.prom"));
        assert!(is_ask_snapshot("run1/dram/lmcache-restart.ask4.post.prom"));
        assert!(!is_ask_snapshot("results/adp-1-L8.pre.prom"));
        assert!(!is_ask_snapshot("restore/adp.askme.pre.prom"));
        assert!(!is_ask_snapshot("restore/adp.ask.pre.prom"));
        assert!(!is_ask_snapshot("restore/adp.ask02.pre.prom"));
    }
}
