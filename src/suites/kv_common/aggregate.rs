//! The ladder's levels across runs, grouped by variant and client count, with the medians
//! and spreads over runs that tests 2 and 3 judge levels from; the `ladder_levels` and
//! `ladder_medians` frames are made from them for export.

mod criteria;
mod feeding;
mod frames;
mod within_runs;

use std::collections::BTreeMap;

use crate::suites::kv_common::ladder::Level;
use crate::suites::kv_common::stats::{median, spread};

pub use criteria::{
    failing_runs, fed_by, settled_before_numbers, too_spread, Metrics, RATES, RATES_AND_TTFT,
};
pub use feeding::{left_out, GEN, GPU_HIT, OUTPUT, TTFT};
use feeding::{value, MEDIANS};
pub use frames::{levels_frame, LEVELS, MEDIANS_TABLE};
// The sibling module the parts name as `super::...`.
use super::within;

/// (variant, clients, metric) -> (median, spread).
type MedianTable = BTreeMap<(String, u32, &'static str), (Option<f64>, Option<f64>)>;

/// Levels grouped by variant and client count, across runs, and their medians.
pub struct Aggregate<'a> {
    pub by: BTreeMap<(String, u32), Vec<&'a Level>>,
    medians: MedianTable,
    levels: &'a [Level],
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
