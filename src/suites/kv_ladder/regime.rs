//! Test 2's regime and engagement, measured: per level and variant the conversation
//! history the client kept active against the server's KV cache, a level past the cache
//! that never got there is not comparable, and the connector is judged engaged only by
//! its card hits where the GPU cache could not hold the histories.

use super::*;
use crate::suites::kv_common::reference::LadderRef;

mod deviations;
mod engaged;
mod table;

pub(super) use deviations::deviations;
pub(super) use engaged::engaged_verdict;
pub(super) use table::table;

/// One level of one variant, over its clean runs (medians where runs differ).
pub(super) struct LevelRegime<'a> {
    pub clients: u32,
    pub variant: String,
    pub runs: Vec<&'a Level>,
    pub peak: Option<f64>,
    pub mean: Option<f64>,
    /// The server's KV cache (tokens, and which memory it says it is), from its log.
    pub cache: Option<(u64, String, String)>,
    pub preemptions: Option<f64>,
    pub card_hit_pct: Option<f64>,
}

impl LevelRegime<'_> {
    /// Mean and peak active history as multiples of the KV cache.
    pub fn multiples(&self) -> Option<(f64, f64)> {
        let (tokens, ..) = self.cache.as_ref()?;
        let c = *tokens as f64;
        (c > 0.0).then_some(())?;
        Some((self.mean? / c, self.peak? / c))
    }

    fn files(&self) -> Vec<String> {
        let mut f: Vec<String> = self.runs.iter().flat_map(|l| l.files.clone()).collect();
        f.extend(self.cache.as_ref().map(|(_, _, file)| file.clone()));
        f
    }
}

fn median_of(runs: &[&Level], f: impl Fn(&Level) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = runs.iter().filter_map(|l| f(l)).collect();
    median(&v)
}

/// Every level of every variant that has clean runs.
pub(super) fn regimes<'a>(
    agg: &Aggregate<'a>,
    logs: &kv_common::ServerLogs,
) -> Vec<LevelRegime<'a>> {
    let mut out = Vec::new();
    for ((variant, clients), runs) in &agg.by {
        let clean: Vec<&Level> = runs
            .iter()
            .copied()
            .filter(|l| l.failed().is_none())
            .collect();
        if clean.is_empty() {
            continue;
        }
        let cache = logs.by_variant.get(variant).and_then(|(file, log)| {
            let device = log.kv_cache_device.clone().unwrap_or_else(|| "GPU".into());
            log.kv_cache_tokens.map(|t| (t, device, file.clone()))
        });
        out.push(LevelRegime {
            clients: *clients,
            variant: variant.clone(),
            peak: median_of(&clean, |l| l.history.map(|h| h.peak_tokens)),
            mean: median_of(&clean, |l| l.history.map(|h| h.mean_tokens)),
            preemptions: median_of(&clean, |l| l.preemptions),
            card_hit_pct: median_of(&clean, |l| l.card_hit_pct),
            runs: clean,
            cache,
        });
    }
    out.sort_by(|a, b| (a.clients, &a.variant).cmp(&(b.clients, &b.variant)));
    out
}

/// The regime rows, typed: per level the procedure states a multiple for and variant,
/// the mean and peak multiples against what it states.
pub(super) fn qualifiers(
    rows: &[LevelRegime],
    r: &LadderRef,
) -> Vec<crate::model::qualifier::Qualifier> {
    use crate::model::qualifier::{Outcome, Qualifier, What};
    rows.iter()
        .filter(|x| x.variant == ADP || x.variant == PLAIN)
        .filter_map(|x| {
            let want = r.regime.multiple(x.clients)?;
            let m = x.multiples();
            let outcome = match m {
                None => Outcome::Unknown,
                Some((mean, _))
                    if mean >= want * r.regime.min_share && (want <= 1.0 || mean > 1.0) =>
                {
                    Outcome::Met
                }
                Some(_) => Outcome::NotMet,
            };
            let verdicts = if r.large_levels.contains(&x.clients) {
                vec![format!("{}.L{}-advantage", INFO.name, x.clients)]
            } else {
                Vec::new()
            };
            Some(Qualifier {
                what: What::Regime,
                subject: format!("{} · {} clients", x.variant, x.clients),
                value: m.map(|m| m.0),
                second: m.map(|m| m.1),
                unit: Unit::Ratio,
                expected: Some(want),
                outcome,
                verdicts,
                files: x.files(),
            })
        })
        .collect()
}
