//! The ladder's levels across runs: every level becomes a row of the `ladder_levels`
//! frame, and the medians and spreads over runs (`ladder_medians`) are computed on it with
//! Polars, per variant and client count. Tests 2 and 3 both judge levels from it.

use std::collections::BTreeMap;

use polars_core::prelude::{DataFrame, PolarsResult};

use crate::frames::{Frame, FrameBuilder};
use crate::suites::kv_common::ladder::Level;

/// The metrics medians are taken of, by their column in `ladder_levels`.
pub const OUTPUT: &str = "output_tok_s";
pub const GEN: &str = "gen_tok_s";
pub const TTFT: &str = "ttft_p50_s";
pub const GPU_HIT: &str = "gpu_hit_pct";
const MEDIANS: [&str; 4] = [OUTPUT, GEN, TTFT, GPU_HIT];

/// (variant, clients, metric) -> (median, spread).
type MedianTable = BTreeMap<(String, u32, &'static str), (Option<f64>, Option<f64>)>;
/// Per metric: the medians and the spreads, one per (variant, clients) group.
type Columns = Vec<(Vec<Option<f64>>, Vec<Option<f64>>)>;

/// Levels grouped by variant and client count, across runs, and their medians.
pub struct Aggregate<'a> {
    pub by: BTreeMap<(String, u32), Vec<&'a Level>>,
    /// From `ladder_medians`.
    medians: MedianTable,
    pub levels_frame: Option<Frame>,
    pub medians_frame: Option<Frame>,
    /// Why the frames could not be built, if they could not (the medians are then empty).
    pub problem: Option<String>,
}

/// One row per level: the `ladder_levels` frame.
pub fn levels_frame(levels: &[Level]) -> anyhow::Result<Frame> {
    FrameBuilder::new("ladder_levels")
        .str("variant", levels.iter().map(|l| l.variant.as_str()))
        .str("run", levels.iter().map(|l| l.run.as_str()))
        .u64("clients", levels.iter().map(|l| u64::from(l.clients)))
        .str("prefix", levels.iter().map(|l| l.prefix.as_str()))
        .f64(
            "requests",
            levels.iter().map(|l| l.requests.map(|n| n as f64)),
        )
        .f64(OUTPUT, levels.iter().map(|l| l.output_tok_s))
        .f64(TTFT, levels.iter().map(|l| l.ttft_p50_s))
        .f64(GEN, levels.iter().map(|l| l.gen_tok_s))
        .f64(GPU_HIT, levels.iter().map(|l| l.gpu_hit_pct))
        .f64("card_hit_pct", levels.iter().map(|l| l.card_hit_pct))
        .f64("card_hits", levels.iter().map(|l| l.card_hits))
        .f64(
            "failures",
            levels.iter().map(|l| l.failures.map(|n| n as f64)),
        )
        .f64("runtime_s", levels.iter().map(|l| l.runtime_sec))
        .bool("stopped_early", levels.iter().map(|l| l.stopped_early))
        .str(
            "died",
            levels.iter().map(|l| l.died.as_deref().unwrap_or("")),
        )
        .build()
}

/// Median and spread (largest over smallest, minus one) of each metric, per variant and
/// client count: the medians of Python's `statistics.median` (mean of the middle two).
fn medians_of(levels: &DataFrame) -> PolarsResult<DataFrame> {
    let parts = levels.partition_by_stable(["variant", "clients"], true)?;
    let mut variant = Vec::new();
    let mut clients = Vec::new();
    let mut runs = Vec::new();
    let mut cols: Columns = vec![(Vec::new(), Vec::new()); 4];
    for p in &parts {
        variant.push(p.column("variant")?.str()?.get(0).unwrap_or("").to_string());
        clients.push(p.column("clients")?.u64()?.get(0).unwrap_or(0));
        runs.push(p.height() as u64);
        for (i, m) in MEDIANS.iter().enumerate() {
            let s = p.column(m)?.as_materialized_series().drop_nulls();
            let med = s.median();
            let (lo, hi) = (s.min::<f64>()?, s.max::<f64>()?);
            let spread = match (lo, hi) {
                (Some(lo), Some(hi)) if s.len() >= 2 && lo > 0.0 => Some(hi / lo - 1.0),
                _ => None,
            };
            cols[i].0.push(med);
            cols[i].1.push(spread);
        }
    }
    let mut b = FrameBuilder::new("ladder_medians")
        .str("variant", &variant)
        .u64("clients", clients)
        .u64("runs", runs);
    for (m, (med, spread)) in MEDIANS.iter().zip(cols) {
        b = b.f64(m, med).f64(&format!("{m}_spread"), spread);
    }
    b.build()
        .map(|f| f.df)
        .map_err(|e| polars_core::prelude::PolarsError::ComputeError(format!("{e:#}").into()))
}

impl<'a> Aggregate<'a> {
    pub fn of(levels: &'a [Level]) -> Self {
        let mut by: BTreeMap<(String, u32), Vec<&Level>> = BTreeMap::new();
        for l in levels {
            by.entry((l.variant.clone(), l.clients))
                .or_default()
                .push(l);
        }
        let mut agg = Aggregate {
            by,
            medians: BTreeMap::new(),
            levels_frame: None,
            medians_frame: None,
            problem: None,
        };
        let built = levels_frame(levels).and_then(|f| {
            let m = medians_of(&f.df)?;
            Ok((f, m))
        });
        match built {
            Ok((lf, mf)) => {
                if let Err(e) = agg.read_medians(&mf) {
                    agg.problem = Some(format!("ladder medians: {e}"));
                }
                agg.levels_frame = Some(lf);
                agg.medians_frame = Some(Frame {
                    name: "ladder_medians".into(),
                    df: mf,
                });
            }
            Err(e) => agg.problem = Some(format!("ladder frames: {e:#}")),
        }
        agg
    }

    fn read_medians(&mut self, df: &DataFrame) -> PolarsResult<()> {
        let variant = df.column("variant")?.str()?.clone();
        let clients = df.column("clients")?.u64()?.clone();
        for m in MEDIANS {
            let med = df.column(m)?.f64()?.clone();
            let spread = df.column(&format!("{m}_spread"))?.f64()?.clone();
            for i in 0..df.height() {
                let (Some(v), Some(n)) = (variant.get(i), clients.get(i)) else {
                    continue;
                };
                self.medians
                    .insert((v.to_string(), n as u32, m), (med.get(i), spread.get(i)));
            }
        }
        Ok(())
    }

    pub fn runs(&self, variant: &str, clients: u32) -> &[&'a Level] {
        self.by
            .get(&(variant.to_string(), clients))
            .map_or(&[], Vec::as_slice)
    }

    /// Median of a metric (a column of `ladder_levels`) over the runs, and its spread.
    pub fn metric(&self, variant: &str, clients: u32, metric: &str) -> (Option<f64>, Option<f64>) {
        MEDIANS
            .iter()
            .find(|m| **m == metric)
            .and_then(|m| self.medians.get(&(variant.to_string(), clients, *m)))
            .copied()
            .unwrap_or((None, None))
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

    /// The frames, for export.
    pub fn frames(&self) -> Vec<Frame> {
        self.levels_frame
            .iter()
            .chain(self.medians_frame.iter())
            .cloned()
            .collect()
    }
}

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
