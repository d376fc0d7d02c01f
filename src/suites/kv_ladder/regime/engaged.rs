//! The engagement criterion: card hits at every ADP level past the KV cache, none without
//! the connector.

use super::LevelRegime;
use crate::model::phrase::{count, fixed, Phrase, UnitOf};
use crate::model::verdict::{Status, Verdict};
use crate::phrase;
use crate::suites::kv_common::reference::LadderRef;
use crate::suites::kv_common::{ADP, PLAIN};
use crate::suites::kv_ladder::verdicts::base;
use crate::suites::kv_ladder::INFO;

/// ADP's levels past the KV cache (by the files where they say; else the procedure's
/// large levels), and whether the files gave the cache at all.
fn past_the_cache<'r, 'a>(
    adp: &[&'r LevelRegime<'a>],
    r: &LadderRef,
) -> (Vec<&'r LevelRegime<'a>>, bool) {
    let known = adp.iter().any(|x| x.multiples().is_some());
    let past = adp
        .iter()
        .copied()
        .filter(|x| match x.multiples() {
            Some((mean, _)) => mean > 1.0,
            None => !known && r.large_levels.contains(&x.clients),
        })
        .collect();
    (past, known)
}

/// The levels past the cache by what their runs' card counters say: (with card hits in
/// every run, without in some run, no counters).
fn card_hits_at(past: &[&LevelRegime]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut with, mut without, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
    for x in past {
        let hits: Vec<Option<f64>> = x.runs.iter().map(|l| l.card_hits).collect();
        if hits.iter().any(Option::is_none) {
            unknown.push(x.clients);
        } else if hits.iter().all(|h| h.is_some_and(|h| h > 0.0)) {
            with.push(x.clients);
        } else {
            without.push(x.clients);
        }
    }
    (with, without, unknown)
}

fn levels(l: &[u32]) -> String {
    l.iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The connector engaged: card hits at every level past the KV cache with the
/// connector, none claimed without it.
pub(crate) fn engaged_verdict(rows: &[LevelRegime], r: &LadderRef) -> Verdict {
    let mut v = base(
        format!("{}.engaged", INFO.name),
        "The connector engaged: with ADP card hits at every level past the KV cache, and none without it".into(),
    );
    v.threshold = "card hits > 0 past the cache; 0 without the connector".into();
    v = v.with_numbers(
        None,
        None,
        None,
        UnitOf::count("levels past the KV cache with card hits"),
    );
    let adp: Vec<&LevelRegime> = rows.iter().filter(|x| x.variant == ADP).collect();
    let (past, known) = past_the_cache(&adp, r);
    for x in rows
        .iter()
        .filter(|x| x.variant == ADP || x.variant == PLAIN)
    {
        v.files.extend(x.files());
    }
    v.files.dedup();
    let plain_hits: f64 = rows
        .iter()
        .filter(|x| x.variant == PLAIN)
        .flat_map(|x| x.runs.iter().filter_map(|l| l.card_hits))
        .sum();
    if past.is_empty() {
        if !adp.is_empty() && !known {
            // Nothing says the histories fit: the size they are measured against is
            // unknown, and the levels the procedure puts past it are not in the files.
            v.status = Status::NotMeasured;
            v.note = Phrase::words(format!(
                "the GPU KV cache size is unknown (no `GPU KV cache size` line in the ADP server log) and none of the procedure's levels past it ({}) is in the files: which levels went past the cache cannot be told",
                levels(&r.large_levels)
            ));
            return v;
        }
        v.status = Status::NotComparable;
        v.note = if adp.is_empty() {
            "no clean ADP level".into()
        } else {
            "no ADP level's active histories exceeded the KV cache: the connector had nothing to restore, whatever it does".into()
        };
        return v;
    }
    let (with, without, unknown) = card_hits_at(&past);
    v.threshold_value = Some(past.len() as f64);
    if unknown.len() < past.len() {
        v.set_measured(Some(with.len() as f64));
    }
    v.measured = phrase!(
        "card hits at {} of {} levels past the cache; gpu-only external hits {}",
        count(with.len()),
        count(past.len()),
        fixed(plain_hits, 0)
    );
    v.status = if !without.is_empty() || plain_hits > 0.0 {
        Status::Fail
    } else if !unknown.is_empty() {
        Status::NotMeasured
    } else {
        Status::Pass
    };
    v.note = engaged_note(&adp, r, known, &without, &unknown, plain_hits);
    v
}

fn engaged_note(
    adp: &[&LevelRegime],
    r: &LadderRef,
    known: bool,
    without: &[u32],
    unknown: &[u32],
    plain_hits: f64,
) -> Phrase {
    let mut note: Vec<Phrase> = Vec::new();
    if !known {
        note.push(Phrase::from("no KV cache size in the server log: the levels past it are the procedure's (16 and 32 clients)"));
    }
    if !without.is_empty() {
        note.push(Phrase::words(format!(
            "no card hits in a run at {} clients: the connector did not restore where the GPU cache could not hold the histories",
            levels(without)
        )));
    }
    if plain_hits > 0.0 {
        note.push(phrase!(
            "gpu-only counts {} external hits without a connector: the snapshots are not from the server they claim",
            fixed(plain_hits, 0)
        ));
    }
    if !unknown.is_empty() {
        note.push(Phrase::words(format!(
            "no .pre.prom/.post.prom card counters at {} clients",
            levels(unknown)
        )));
    }
    // The negative control: where the histories fit, the card has little to add.
    let control: Vec<Phrase> = adp
        .iter()
        .filter(|x| r.small_levels.contains(&x.clients))
        .filter_map(|x| {
            x.card_hit_pct
                .map(|p| phrase!("{}% at {}", fixed(p, 0), count(x.clients)))
        })
        .collect();
    if !control.is_empty() {
        note.push(phrase!(
            "where the histories fit the cache, card hits are {} of the GPU cache's misses (the parity verdicts judge the rates there)",
            Phrase::join(control, ", ")
        ));
    }
    Phrase::join(note, "; ")
}
