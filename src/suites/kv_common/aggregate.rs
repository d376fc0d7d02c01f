//! The ladder's levels across runs, grouped by variant and client count, with the medians
//! and spreads over runs that tests 2 and 3 judge levels from; the `ladder_levels` and
//! `ladder_medians` frames are made from them for export.

use std::collections::BTreeMap;

use crate::frames::{Frame, FrameBuilder};
use crate::schema::frames::INPUT;
use crate::schema::{c, Table, Type};
use crate::suites::kv_common::ladder::Level;
use crate::suites::kv_common::stats::{median, spread};

/// The metrics medians are taken of, by their column in `ladder_levels`.
pub const OUTPUT: &str = "output_tok_s";
pub const GEN: &str = "gen_tok_s";
pub const TTFT: &str = "ttft_p50_s";
pub const GPU_HIT: &str = "gpu_hit_pct";
const MEDIANS: [&str; 4] = [OUTPUT, GEN, TTFT, GPU_HIT];

/// A level's value of one of [`MEDIANS`].
fn value(l: &Level, metric: &str) -> Option<f64> {
    match metric {
        OUTPUT => l.output_tok_s,
        GEN => l.gen_tok_s,
        TTFT => l.ttft_p50_s,
        GPU_HIT => l.gpu_hit_pct,
        _ => None,
    }
}

/// (variant, clients, metric) -> (median, spread).
type MedianTable = BTreeMap<(String, u32, &'static str), (Option<f64>, Option<f64>)>;

/// Levels grouped by variant and client count, across runs, and their medians.
pub struct Aggregate<'a> {
    pub by: BTreeMap<(String, u32), Vec<&'a Level>>,
    medians: MedianTable,
    levels: &'a [Level],
}

/// The `ladder_levels` frame: its rows and columns, as `--export` checks and describes
/// them.
pub static LEVELS: Table = Table {
    name: "ladder_levels",
    rows: "level of a ladder run, with the procedure script's arithmetic (kv-ladder)",
    parts: &[&[
        INPUT,
        c("variant", Type::Str, "", "from the file name"),
        c("run", Type::Str, "", "from the file name"),
        c("clients", Type::I64, "", "the level"),
        c(
            "prefix",
            Type::Str,
            "",
            "path before -L: the script's sort key",
        ),
        c("requests", Type::F64, "requests", "records in the .json"),
        c(
            "output_tok_s",
            Type::F64,
            "tok/s",
            "output tokens over the level's span",
        ),
        c("ttft_p50_s", Type::F64, "s", "median time to first token"),
        c("gen_tok_s", Type::F64, "tok/s", "1000 / median tpot_ms"),
        c(
            "gpu_hit_pct",
            Type::F64,
            "%",
            "GPU prefix-cache hit rate between the snapshots",
        ),
        c(
            "card_hit_pct",
            Type::F64,
            "%",
            "external (card) prefix-cache hit rate",
        ),
        c(
            "card_hits",
            Type::F64,
            "tokens",
            "card hits during the level",
        ),
        c(
            "failures",
            Type::F64,
            "requests",
            "num_failures summed over the clients (.log)",
        ),
        c("runtime_s", Type::F64, "s", "the client's runtime"),
        c(
            "stopped_early",
            Type::Bool,
            "",
            "the client stopped all clients when the first finished",
        ),
        c(
            "died",
            Type::Str,
            "",
            "the client's last traceback line, empty when it did not die",
        ),
    ]],
};

/// The `ladder_medians` frame.
pub static MEDIANS_TABLE: Table = Table {
    name: "ladder_medians",
    rows: "variant and level: the medians over runs and their spread (computed with Polars)",
    parts: &[&[
        INPUT,
        c("variant", Type::Str, "", "variant"),
        c("clients", Type::I64, "", "the level"),
        c("runs", Type::I64, "", "runs of the level"),
        c(
            "runs_in_median",
            Type::I64,
            "",
            "runs that feed the medians: neither failing, stopped early nor without records",
        ),
        c("output_tok_s", Type::F64, "tok/s", "median over runs"),
        c(
            "output_tok_s_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
        c("gen_tok_s", Type::F64, "tok/s", "median over runs"),
        c(
            "gen_tok_s_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
        c("ttft_p50_s", Type::F64, "s", "median over runs"),
        c(
            "ttft_p50_s_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
        c("gpu_hit_pct", Type::F64, "%", "median over runs"),
        c(
            "gpu_hit_pct_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
    ]],
};

/// One row per level: the `ladder_levels` frame.
pub fn levels_frame(levels: &[Level]) -> anyhow::Result<Frame> {
    FrameBuilder::of(&LEVELS)
        .str("variant", levels.iter().map(|l| l.variant.as_str()))
        .str("run", levels.iter().map(|l| l.run.as_str()))
        .count("clients", levels.iter().map(|l| u64::from(l.clients)))
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

impl<'a> Aggregate<'a> {
    /// Groups the levels and takes the median (Python's `statistics.median`: the mean of
    /// the middle two) and the spread (largest over smallest, minus one) of each metric
    /// over the runs of each variant and client count.
    pub fn of(levels: &'a [Level]) -> Self {
        let mut by: BTreeMap<(String, u32), Vec<&Level>> = BTreeMap::new();
        for l in levels {
            by.entry((l.variant.clone(), l.clients))
                .or_default()
                .push(l);
        }
        let mut medians = MedianTable::new();
        for ((variant, clients), runs) in &by {
            for m in MEDIANS {
                // A failing or early-stopped run never feeds a median.
                let v: Vec<f64> = runs
                    .iter()
                    .filter(|l| left_out(l).is_none())
                    .filter_map(|l| value(l, m))
                    .collect();
                medians.insert((variant.clone(), *clients, m), (median(&v), spread(&v)));
            }
        }
        Aggregate {
            by,
            medians,
            levels,
        }
    }

    /// `ladder_medians`: one row per variant and client count.
    fn medians_frame(&self) -> anyhow::Result<Frame> {
        let keys: Vec<&(String, u32)> = self.by.keys().collect();
        let mut b = FrameBuilder::of(&MEDIANS_TABLE)
            .str("variant", keys.iter().map(|k| k.0.as_str()))
            .count("clients", keys.iter().map(|k| u64::from(k.1)))
            .count("runs", self.by.values().map(|r| r.len() as u64))
            .count(
                "runs_in_median",
                self.by
                    .values()
                    .map(|r| r.iter().filter(|l| left_out(l).is_none()).count() as u64),
            );
        for m in MEDIANS {
            let of = |k: &&(String, u32)| self.metric(&k.0, k.1, m);
            b = b
                .f64(m, keys.iter().map(|k| of(k).0))
                .f64(&format!("{m}_spread"), keys.iter().map(|k| of(k).1));
        }
        b.build()
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

    /// A metric's value in each run that feeds the level's median, in run order.
    pub fn values(&self, variant: &str, clients: u32, metric: &str) -> Vec<f64> {
        self.runs(variant, clients)
            .iter()
            .filter(|l| left_out(l).is_none())
            .filter_map(|l| value(l, metric))
            .collect()
    }

    /// With one run of `variant` feeding the level: its value of `metric` and the batch
    /// means from within it (see [`super::within`]), where the run has enough requests.
    pub fn within(
        &self,
        variant: &str,
        clients: u32,
        metric: &str,
    ) -> Option<(f64, crate::stats::batch::BatchMeans)> {
        let fed: Vec<&&Level> = self
            .runs(variant, clients)
            .iter()
            .filter(|l| left_out(l).is_none())
            .collect();
        let [l] = fed.as_slice() else {
            return None;
        };
        let w = l.within?;
        let batches = match metric {
            OUTPUT => w.output,
            GEN => w.gen,
            TTFT => w.ttft,
            _ => None,
        }?;
        Some((value(l, metric)?, batches))
    }

    /// Why a level where each of `variants` ran once has no interval from within the
    /// runs (see [`super::within::why_none`]).
    pub fn within_missing(&self, variants: &[&str], clients: u32) -> String {
        let fed = |v: &&str| {
            self.runs(v, clients)
                .iter()
                .filter(|l| left_out(l).is_none())
                .count()
        };
        if !variants.iter().all(|v| fed(v) == 1) {
            return "no interval over the runs: a run's number is missing or not positive (an interval is taken on logarithms)".into();
        }
        let requests: Vec<(String, Option<usize>)> = variants
            .iter()
            .flat_map(|v| self.runs(v, clients).iter())
            .filter(|l| left_out(l).is_none())
            .map(|l| (l.name(), l.requests))
            .collect();
        super::within::why_none(&requests)
    }

    /// The ratio `cand / base` of a metric at a level where each variant ran once, with
    /// its 95% interval from within the two runs (see [`super::within`]); None otherwise.
    pub fn within_ratio(
        &self,
        base: &str,
        cand: &str,
        clients: u32,
        metric: &str,
    ) -> Option<crate::stats::ratio::Ratio> {
        let (b, c) = (
            self.within(base, clients, metric)?,
            self.within(cand, clients, metric)?,
        );
        crate::stats::batch::within_run_ratio_by(
            (b.0, &b.1),
            (c.0, &c.1),
            crate::stats::ratio::Method::WithinRunRequests,
        )
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

    /// The frames, for export; a frame that cannot be built is a note.
    pub fn frames(&self) -> (Vec<Frame>, Vec<String>) {
        let mut frames = Vec::new();
        let mut problems = Vec::new();
        for built in [levels_frame(self.levels), self.medians_frame()] {
            match built {
                Ok(f) => frames.push(f),
                Err(e) => problems.push(format!("ladder frames: {e:#}")),
            }
        }
        (frames, problems)
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

/// Runs of the level that failed (failed requests, a dead client): a level with one is
/// failed, never averaged away.
pub fn failing_runs(agg: &Aggregate, variants: &[&str], clients: u32) -> Vec<String> {
    variants
        .iter()
        .flat_map(|v| agg.runs(v, clients))
        .filter_map(|l| l.failed())
        .collect()
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
