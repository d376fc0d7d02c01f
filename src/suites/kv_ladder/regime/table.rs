//! The regime table: per level and variant, the active histories against the KV cache
//! beside the multiples the procedure states.

use super::LevelRegime;
use crate::model::measurement::Unit;
use crate::model::phrase::{count, fixed, name, qty, Phrase};
use crate::phrase;
use crate::suites::kv_common::reference::LadderRef;
use crate::suites::Table;

fn times(x: Option<f64>) -> Phrase {
    x.map_or(Phrase::dash(), |v| phrase!("{}", qty(v, 2, Unit::Ratio)))
}

pub(crate) fn table(rows: &[LevelRegime], r: &LadderRef) -> Option<Table> {
    if rows.iter().all(|x| x.mean.is_none()) {
        return None;
    }
    let rows = rows
        .iter()
        .map(|x| {
            let m = x.multiples();
            vec![
                Phrase::count(x.clients),
                Phrase::text(&x.variant),
                Phrase::count(x.runs.len()),
                Phrase::opt(x.peak, 0),
                Phrase::opt(x.mean, 0),
                x.cache.as_ref().map_or(Phrase::dash(), |(t, device, _)| {
                    phrase!("{} ({})", count(*t), name(device))
                }),
                times(m.map(|m| m.1)),
                times(m.map(|m| m.0)),
                r.regime.multiple(x.clients).map_or(Phrase::dash(), |v| {
                    phrase!("about {}", qty(v, 0, Unit::Ratio))
                }),
                Phrase::opt(x.preemptions, 0),
                x.card_hit_pct
                    .map_or(Phrase::dash(), |p| phrase!("{} %", fixed(p, 0))),
            ]
        })
        .collect();
    Some(Table {
        title: "Active histories against the KV cache, per level and variant".into(),
        columns: [
            "clients",
            "variant",
            "runs",
            "peak tokens",
            "mean tokens",
            "KV cache tokens",
            "peak x cache",
            "mean x cache",
            "procedure",
            "preemptions",
            "card hit",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: vec![
            "Active history: the prompt tokens (the whole conversation, as each request sends it) of every conversation between its first request and its last reply, summed, from the client's records; mean is time-weighted over the level, both the median over clean runs.".into(),
            format!(
                "The procedure's multiples are for its reference setup ({} tokens of GPU KV cache): {}.",
                crate::model::units::grouped(&r.regime.reference_cache_tokens.to_string()),
                r.regime.source
            ),
        ],
    })
}
