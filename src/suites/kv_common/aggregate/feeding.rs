//! What feeds a level's medians: the metrics medians are taken of, a level's value of
//! each, and the runs left out of them.

use crate::suites::kv_common::ladder::Level;

/// The metrics medians are taken of, by their column in `ladder_levels`.
pub const OUTPUT: &str = "output_tok_s";
pub const GEN: &str = "gen_tok_s";
pub const TTFT: &str = "ttft_p50_s";
pub const GPU_HIT: &str = "gpu_hit_pct";
pub(super) const MEDIANS: [&str; 4] = [OUTPUT, GEN, TTFT, GPU_HIT];

/// A level's value of one of [`MEDIANS`].
pub(super) fn value(l: &Level, metric: &str) -> Option<f64> {
    match metric {
        OUTPUT => l.output_tok_s,
        GEN => l.gen_tok_s,
        TTFT => l.ttft_p50_s,
        GPU_HIT => l.gpu_hit_pct,
        _ => None,
    }
}

/// Why a run does not feed the level's medians: it failed (failed requests, a dead
/// client) or the client stopped it early. None for a run that feeds them.
pub fn left_out(l: &Level) -> Option<String> {
    if let Some(f) = l.failed() {
        return Some(f);
    }
    if l.requests.is_none() {
        // Without its records the run's own account of itself is missing: its other
        // figures (the hit rates) do not stand alone.
        return Some(format!("{}: no readable request records", l.name()));
    }
    l.stopped_early
        .then(|| format!("{}: stopped early", l.name()))
}
