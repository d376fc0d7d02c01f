//! The regime's deviations: a level past the cache that did not get there, or whose
//! regime cannot be checked.

use super::LevelRegime;
use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase::{count, fixed, name, qty};
use crate::phrase;
use crate::suites::kv_common::reference::LadderRef;
use crate::suites::kv_common::{ADP, PLAIN};
use crate::suites::kv_ladder::INFO;

/// A level past the cache (the procedure's large levels) that did not get there.
pub(crate) fn deviations(rows: &[LevelRegime], r: &LadderRef) -> Vec<Deviation> {
    let mut out = Vec::new();
    for x in rows.iter().filter(|x| r.large_levels.contains(&x.clients)) {
        if x.variant != ADP && x.variant != PLAIN {
            continue;
        }
        let Some(want) = r.regime.multiple(x.clients) else {
            continue;
        };
        let verdict = format!("{}.L{}-advantage", INFO.name, x.clients);
        let subject = format!("{} · {} clients", x.variant, x.clients);
        let procedure = phrase!("about {} the KV cache", qty(want, 0, Unit::Ratio));
        let Some((mean, peak)) = x.multiples() else {
            let missing = if x.cache.is_none() {
                "the server log's `KV cache size` line"
            } else {
                "records with conversation ids and prompt lengths"
            };
            out.push(
                Deviation::new(
                    format!("active histories ({} clients)", x.clients),
                    procedure,
                    "unknown",
                )
                .subject(subject)
                .effect(
                    format!("whether the level reached the regime it tests cannot be checked: needs {missing}"),
                    false,
                )
                .source(r.regime.source.clone()),
            );
            continue;
        };
        let effect = if mean <= 1.0 {
            "the workload fit in the KV cache: without evictions the connector had nothing to restore, so the advantage has nothing to show".to_string()
        } else if mean < want * r.regime.min_share {
            phrase!(
                "a milder regime than the procedure's: the histories held under {}% of the {}x it states, so fewer evictions than the published comparison",
                fixed(r.regime.min_share * 100.0, 0),
                fixed(want, 0)
            )
            .to_string()
        } else {
            continue;
        };
        let (tokens, device, _) = x.cache.clone().unwrap_or_default();
        let mut d = Deviation::new(
            format!("active histories ({} clients)", x.clients),
            procedure,
            phrase!(
                "{} (peak {}) of {} tokens ({} KV cache)",
                qty(mean, 2, Unit::Ratio),
                qty(peak, 2, Unit::Ratio),
                count(tokens),
                name(device)
            ),
        )
        .subject(subject)
        .effect(effect, true)
        .source(r.regime.source.clone())
        .verdict(verdict);
        for f in x.files() {
            d = d.file(f);
        }
        out.push(d);
    }
    out
}
