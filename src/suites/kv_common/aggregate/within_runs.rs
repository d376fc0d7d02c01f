//! A level where each variant ran once: the batch means from within its runs, the ratio
//! with its interval from them, and why there is none.

use super::feeding::{left_out, value, GEN, OUTPUT, TTFT};
use super::Aggregate;
use crate::suites::kv_common::ladder::Level;

impl Aggregate<'_> {
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
}
