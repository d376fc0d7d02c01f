//! The ladder's levels grouped by variant and client count across runs: medians,
//! spreads, failing runs. Tests 2 and 3 both judge levels this way.

use std::collections::BTreeMap;

use crate::suites::kv_common::ladder::Level;
use crate::suites::kv_common::stats::{median, spread};

/// Levels grouped by variant and client count, across runs.
pub struct Aggregate<'a> {
    pub by: BTreeMap<(String, u32), Vec<&'a Level>>,
}

impl<'a> Aggregate<'a> {
    pub fn of(levels: &'a [Level]) -> Self {
        let mut by: BTreeMap<(String, u32), Vec<&Level>> = BTreeMap::new();
        for l in levels {
            by.entry((l.variant.clone(), l.clients))
                .or_default()
                .push(l);
        }
        Aggregate { by }
    }

    pub fn runs(&self, variant: &str, clients: u32) -> &[&'a Level] {
        self.by
            .get(&(variant.to_string(), clients))
            .map_or(&[], Vec::as_slice)
    }

    /// Median of a metric over the runs, and its spread.
    pub fn metric(
        &self,
        variant: &str,
        clients: u32,
        f: fn(&Level) -> Option<f64>,
    ) -> (Option<f64>, Option<f64>) {
        let v: Vec<f64> = self
            .runs(variant, clients)
            .iter()
            .filter_map(|l| f(l))
            .collect();
        (median(&v), spread(&v))
    }

    pub fn runs_per_variant(&self) -> BTreeMap<String, usize> {
        let mut out: BTreeMap<String, usize> = BTreeMap::new();
        for ((variant, _), runs) in &self.by {
            let n = out.entry(variant.clone()).or_default();
            *n = (*n).max(runs.len());
        }
        out
    }

    pub fn levels_of(&self, variant: &str) -> Vec<u32> {
        self.by
            .keys()
            .filter(|(v, _)| v == variant)
            .map(|(_, n)| *n)
            .collect()
    }

    pub fn files(&self, variants: &[&str], clients: u32) -> Vec<String> {
        variants
            .iter()
            .flat_map(|v| self.runs(v, clients))
            .flat_map(|l| l.files.iter().filter(|f| f.ends_with(".json")).cloned())
            .collect()
    }
}

pub fn output(l: &Level) -> Option<f64> {
    l.output_tok_s
}
pub fn gen(l: &Level) -> Option<f64> {
    l.gen_tok_s
}
pub fn ttft(l: &Level) -> Option<f64> {
    l.ttft_p50_s
}

/// The metrics a criterion reads, by name.
pub type Metrics<'m> = &'m [(&'static str, fn(&Level) -> Option<f64>)];

pub const RATES: Metrics<'static> = &[("output tok/s", output), ("gen tok/s", gen)];
pub const RATES_AND_TTFT: Metrics<'static> = &[
    ("output tok/s", output),
    ("gen tok/s", gen),
    ("TTFT p50", ttft),
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
        for (name, f) in metrics {
            if let (_, Some(s)) = agg.metric(v, clients, *f) {
                if s > max {
                    out.push(format!("{v} runs differ by {:.0}% in {name}", s * 100.0));
                }
            }
        }
    }
    out
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

/// Which runs feed each variant's median at a level, e.g. `adp-1, adp-2 vs gpu-only-1`.
pub fn fed_by(agg: &Aggregate, variants: &[&str], clients: u32) -> String {
    variants
        .iter()
        .map(|v| {
            let runs: Vec<String> = agg
                .runs(v, clients)
                .iter()
                .map(|l| format!("{}-{}", l.variant, l.run))
                .collect();
            if runs.is_empty() {
                format!("no {v} run")
            } else {
                runs.join(", ")
            }
        })
        .collect::<Vec<_>>()
        .join(" vs ")
}
