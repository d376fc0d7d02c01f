//! What the criteria read from an aggregate: the metrics they name, spreads over the
//! limit, the runs that failed, and which runs fed the medians.

use super::feeding::{left_out, GEN, OUTPUT, TTFT};
use super::Aggregate;

/// The metrics a criterion reads: (name shown, column).
pub type Metrics<'m> = &'m [(&'static str, &'static str)];

pub const RATES: Metrics<'static> = &[("output tok/s", OUTPUT), ("gen tok/s", GEN)];
pub const RATES_AND_TTFT: Metrics<'static> = &[
    ("output tok/s", OUTPUT),
    ("gen tok/s", GEN),
    ("TTFT p50", TTFT),
];

/// Spreads above the limit in the metrics a criterion reads, named, for an inconclusive
/// verdict.
pub fn too_spread(
    agg: &Aggregate,
    variants: &[&str],
    clients: u32,
    max: f64,
    metrics: Metrics,
) -> Vec<String> {
    let mut out = Vec::new();
    for v in variants {
        for (name, m) in metrics {
            if let (_, Some(s)) = agg.metric(v, clients, m) {
                if s > max {
                    out.push(
                        crate::phrase!(
                            "{} runs differ by {}% in {}",
                            crate::model::phrase::name(*v),
                            crate::model::phrase::fixed(s * 100.0, 0),
                            crate::model::phrase::name(*name)
                        )
                        .to_string(),
                    );
                }
            }
        }
    }
    out
}

/// What settles a level's comparison before its numbers are read: a run that failed (the
/// level fails) or runs spread over the limit in the metrics it reads (inconclusive),
/// each said with what fed the medians (`fed`).
pub fn settled_before_numbers(
    agg: &Aggregate,
    variants: &[&str],
    clients: u32,
    max_spread: f64,
    metrics: Metrics,
    fed: &str,
) -> Option<(crate::model::verdict::Status, String)> {
    use crate::model::verdict::Status;
    let failing = failing_runs(agg, variants, clients);
    if !failing.is_empty() {
        return Some((
            Status::Fail,
            format!("a run of this level failed: {}; {fed}", failing.join("; ")),
        ));
    }
    let spread = too_spread(agg, variants, clients, max_spread, metrics);
    (!spread.is_empty()).then(|| {
        (
            Status::Inconclusive,
            format!("{}; {fed}", spread.join("; ")),
        )
    })
}

/// Runs of the level that failed (failed requests, a dead client): a level with one is
/// failed, never averaged away.
pub fn failing_runs(agg: &Aggregate, variants: &[&str], clients: u32) -> Vec<String> {
    variants
        .iter()
        .flat_map(|v| agg.runs(v, clients))
        .filter_map(|l| l.failed())
        .collect()
}

/// Which runs feed each variant's median at a level, and which do not and why, e.g.
/// `adp-1, adp-2 vs gpu-only-1 (left out: gpu-only-2: 5 failed requests)`.
pub fn fed_by(agg: &Aggregate, variants: &[&str], clients: u32) -> String {
    let mut out_of: Vec<String> = Vec::new();
    let fed = variants
        .iter()
        .map(|v| {
            let runs = agg.runs(v, clients);
            let feeding: Vec<String> = runs
                .iter()
                .filter(|l| left_out(l).is_none())
                .map(|l| format!("{}-{}", l.variant, l.run))
                .collect();
            // A failed run's reason is in the verdict already: its name is enough.
            out_of.extend(runs.iter().filter_map(|l| {
                if l.failed().is_some() {
                    Some(format!("{} (failed)", l.name()))
                } else {
                    left_out(l)
                }
            }));
            if feeding.is_empty() {
                format!("no clean {v} run")
            } else {
                feeding.join(", ")
            }
        })
        .collect::<Vec<_>>()
        .join(" vs ");
    if out_of.is_empty() {
        fed
    } else {
        format!("{fed} (left out of the medians: {})", out_of.join("; "))
    }
}
