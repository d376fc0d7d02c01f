//! The counters between an ask's two `/metrics` snapshots, read against the cached tokens
//! its response reports.

use super::Source;
use crate::parse::prom::Snapshot;

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
            "a counter went down between the snapshots (a counter only grows while its server runs: it restarted, or the snapshots are of two servers)".into(),
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
