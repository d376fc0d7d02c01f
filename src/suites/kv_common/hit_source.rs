//! Where each restore's cached tokens came from. `collect kv-restore` scrapes the server's
//! `/metrics` right before and after every ask (`<transcript>.ask<k>.pre.prom` and
//! `.post.prom` beside the transcript, k counting the transcript's lines from 1; the
//! procedure takes none). Between the two, a restore the card served shows the connector's
//! hits (`vllm:external_prefix_cache_hits_total`) equal to the cached tokens and no GPU
//! prefix-cache hits; hits from the GPU prefix cache mean the restart left GPU memory
//! holding the prompt, and the restore says nothing about the card.

use crate::ingest::{layout, Catalog, Kind, Record};
use crate::model::verdict::{Status, Verdict};
use crate::parse::ask::Attempt;
use crate::parse::prom::Snapshot;

/// What the counters say of one restore.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The connector's hits cover the cached tokens and the GPU prefix cache hit nothing.
    Card { external: f64 },
    /// The GPU prefix cache served some of it: the restart did not empty GPU memory.
    Gpu { local: f64, external: f64 },
    /// The counters do not account for the cached tokens (or went down: a restart
    /// between the snapshots).
    Unaccounted(String),
    /// No pair of snapshots around this ask.
    NotChecked,
}

/// One restore: its transcript line, what the counters say, and the snapshot files read.
#[derive(Debug, Clone)]
pub struct Checked {
    pub line: usize,
    pub source: Source,
    pub files: Vec<String>,
}

fn snapshot<'a>(catalog: &'a Catalog, rel: &str) -> Option<&'a Snapshot> {
    catalog
        .of(Kind::Prometheus)
        .find(|i| i.rel == rel)
        .and_then(|i| match &i.record {
            Ok(Record::Prometheus(s)) => Some(s),
            _ => None,
        })
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
    let local = delta(&super::names::metric("prefix-cache hits")).unwrap_or(0.0);
    if external < 0.0 || local < 0.0 {
        return Source::Unaccounted(
            "a counter went down between the snapshots (the server restarted)".into(),
        );
    }
    let cached = cached as f64;
    if local >= 1.0 {
        return Source::Gpu { local, external };
    }
    // The response's cached tokens and the connector's hit count are the same tokens;
    // they may differ by less than one token in a hundred (rounding to whole blocks).
    if (external - cached).abs() <= (cached * 0.01).max(1.0) {
        Source::Card { external }
    } else {
        Source::Unaccounted(format!(
            "the connector counted {external:.0} hits where the response says {cached:.0} cached"
        ))
    }
}

/// Each restore of `transcript` (every line after the cold request) with what its
/// snapshots say.
pub fn check(catalog: &Catalog, transcript: &str, attempts: &[Attempt]) -> Vec<Checked> {
    let base = transcript.strip_suffix(".txt").unwrap_or(transcript);
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
            let source = match (snapshot(catalog, &pre), snapshot(catalog, &post)) {
                (Some(a), Some(b)) => source(a, b, cached),
                _ => Source::NotChecked,
            };
            let files = if source == Source::NotChecked {
                Vec::new()
            } else {
                vec![pre, post]
            };
            Some(Checked {
                line: a.line,
                source,
                files,
            })
        })
        .collect()
}

/// Every ask snapshot under `dir` (`restore` or `dram`): read as evidence, the restores'
/// judged by [`check`], the others (cold requests, plain vLLM's recomputes) kept beside.
pub fn snapshots_in(catalog: &Catalog, dir: &str) -> Vec<String> {
    catalog
        .of(Kind::Prometheus)
        .filter(|i| is_ask_snapshot(&i.rel) && layout::transcript_dir(&i.rel) == Some(dir))
        .map(|i| i.rel.clone())
        .collect()
}

/// Whether `rel` is a snapshot this check reads (for the files a suite claims).
pub fn is_ask_snapshot(rel: &str) -> bool {
    let Some(base) = rel
        .strip_suffix(".pre.prom")
        .or_else(|| rel.strip_suffix(".post.prom"))
    else {
        return false;
    };
    layout::transcript_dir(rel).is_some()
        && base
            .rsplit_once(".ask")
            .is_some_and(|(_, k)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// Adds what the snapshots say to a verdict that reads the restores: a restore the GPU
/// prefix cache served makes it not comparable (the restart left the prompt in GPU
/// memory: the card was not tested); without snapshots it says the origin was not checked.
/// `store` names what the connector restores from ("the card"; LMCache's connector
/// serves its DRAM tier and the card alike).
pub fn apply(v: &mut Verdict, checked: &[Checked], store: &str) {
    if checked.is_empty() {
        return;
    }
    let lines = |f: &dyn Fn(&Source) -> bool| -> Vec<String> {
        checked
            .iter()
            .filter(|c| f(&c.source))
            .map(|c| c.line.to_string())
            .collect()
    };
    let gpu: Vec<String> = checked
        .iter()
        .filter_map(|c| match c.source {
            Source::Gpu { local, external } => Some(format!(
                "line {}: {local:.0} tokens from the GPU prefix cache, {external:.0} from the connector",
                c.line
            )),
            _ => None,
        })
        .collect();
    let unaccounted: Vec<String> = checked
        .iter()
        .filter_map(|c| match &c.source {
            Source::Unaccounted(why) => Some(format!("line {}: {why}", c.line)),
            _ => None,
        })
        .collect();
    let card = lines(&|s| matches!(s, Source::Card { .. }));
    let unchecked = lines(&|s| *s == Source::NotChecked);
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
            "restored from {store} at line{} {}: the connector's hits equal the cached tokens and the GPU prefix cache hit nothing between the ask's /metrics snapshots",
            if card.len() == 1 { "" } else { "s" },
            card.join(", ")
        ));
    }
    if !unchecked.is_empty() {
        note.push(if unchecked.len() == checked.len() {
            "where the hits came from was not checked: no /metrics snapshots around the asks (`<transcript>.ask<k>.pre.prom` and `.post.prom`; the procedure takes none, `collect kv-restore` does)".to_string()
        } else {
            format!(
                "where the hits came from was not checked at line{} {} (no snapshots)",
                if unchecked.len() == 1 { "" } else { "s" },
                unchecked.join(", ")
            )
        });
    }
    for c in checked {
        v.files.extend(c.files.iter().cloned());
    }
    let extra = note.join("; ");
    v.note = match (v.note.is_empty(), extra.is_empty()) {
        (_, true) => v.note.clone(),
        (true, false) => extra,
        (false, false) => format!("{}; {extra}", v.note),
    };
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
    }
}
