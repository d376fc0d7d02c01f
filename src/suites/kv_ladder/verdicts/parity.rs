//! The parity criterion at 1-4 clients: ADP within 10% of plain vLLM in output and gen
//! tok/s, judged by the 95% intervals of the runs where there are any.

use super::base::{base, no_medians};
// The suite's imports, which the criteria used before the split.
use super::super::*;

pub(crate) fn parity_verdict(agg: &Aggregate, n: u32, min_ratio: f64, max_spread: f64) -> Verdict {
    let mut v = base(
        format!("kv-ladder.L{n}-parity"),
        format!("{n} client(s): ADP within 10% of plain vLLM in output tok/s and gen tok/s"),
    );
    v.threshold = phrase!(">= {} in both", qty(min_ratio, 2, Unit::Ratio));
    v = v.with_numbers(
        None,
        Some(min_ratio),
        None,
        UnitOf::new(Unit::Ratio, "(the lower of output and gen)"),
    );
    v.files = agg.files(&[ADP, PLAIN], n);
    let (ao, _) = agg.metric(ADP, n, OUTPUT);
    let (po, _) = agg.metric(PLAIN, n, OUTPUT);
    let (ag, _) = agg.metric(ADP, n, GEN);
    let (pg, _) = agg.metric(PLAIN, n, GEN);
    let (Some(ao), Some(po), Some(ag), Some(pg)) = (ao, po, ag, pg) else {
        return no_medians(v, agg, n);
    };
    let (ro, rg) = (ao / po, ag / pg);
    v.set_measured(Some(ro.min(rg)));
    v.measured = phrase!(
        "output {} ({} vs {}), gen {} ({} vs {})",
        qty(ro, 2, Unit::Ratio),
        fixed(ao, 1),
        fixed(po, 1),
        qty(rg, 2, Unit::Ratio),
        fixed(ag, 1),
        fixed(pg, 1)
    );
    let fed = format!("medians of {}", fed_by(agg, &[ADP, PLAIN], n));
    let settled = settled_before_numbers(agg, &[ADP, PLAIN], n, max_spread, RATES, &fed);
    let metrics = [("output", OUTPUT, ro), ("gen", GEN, rg)];
    let runs = runs_interval(agg, n, &metrics).or_else(|| within_interval(agg, n, &metrics));
    let (status, note): (Status, Phrase) = if let Some((status, note)) = settled {
        (status, Phrase::words(note))
    } else if let Some(runs) = runs {
        v.interval = Some(runs.interval.clone());
        let status = runs.status(min_ratio, false);
        let note = phrase!("{}; {}", Phrase::words(fed), runs.said(min_ratio, status));
        (status, note)
    } else {
        let status = if ro >= min_ratio && rg >= min_ratio {
            Status::Pass
        } else {
            Status::Fail
        };
        (
            status,
            Phrase::words(format!("{fed}; {}", agg.within_missing(&[ADP, PLAIN], n))),
        )
    };
    (v.status, v.note) = (status, note);
    v
}

/// The 95% intervals of ADP over plain vLLM at a level, one per metric the criterion
/// needs, from the runs that feed the medians (the procedure's two runs per variant are
/// repeats; the variance is pooled over both variants, which run one workload on one
/// setup): the status follows the intervals, not the medians.
struct RunsInterval {
    /// The interval of the metric with the lower median ratio (the one the verdict shows).
    interval: crate::model::verdict::Interval,
    /// (name, ratio of the runs, low, high) per metric.
    each: Vec<(&'static str, crate::stats::ratio::Ratio)>,
}

impl RunsInterval {
    /// Pass when every metric's interval clears the threshold, fail when one lies wholly
    /// short of it, inconclusive when one straddles it.
    fn status(&self, threshold: f64, strict: bool) -> Status {
        use crate::stats::ratio::Against;
        let against: Vec<Option<Against>> = self
            .each
            .iter()
            .map(|(_, r)| r.against(threshold, strict))
            .collect();
        if against.iter().all(|a| *a == Some(Against::Above)) {
            Status::Pass
        } else if against.contains(&Some(Against::Below)) {
            Status::Fail
        } else {
            Status::Inconclusive
        }
    }

    fn said(&self, threshold: f64, status: Status) -> Phrase {
        use crate::stats::ratio::Settle;
        let mut parts: Vec<Phrase> = self
            .each
            .iter()
            .filter_map(|(metric, r)| {
                let (lo, hi, _, _) = r.interval?;
                Some(phrase!(
                    "{} {}x..{}x",
                    name(*metric),
                    fixed(lo, 3),
                    fixed(hi, 3)
                ))
            })
            .collect();
        parts.insert(
            0,
            phrase!("95% intervals ({})", name(self.interval.method.as_str())),
        );
        if status == Status::Inconclusive {
            let more = self
                .each
                .iter()
                .filter_map(|(_, r)| match r.runs_to_settle(threshold) {
                    Settle::Runs(k) => Some(k),
                    _ => None,
                })
                .max();
            parts.push(match more {
                Some(k) => phrase!(
                    "an interval straddles {}: about {} runs of each variant would settle it at the spread seen",
                    fixed(threshold, 2),
                    count(k)
                ),
                None if self.interval.runs == [1, 1] => phrase!(
                    "an interval straddles {}: {}",
                    fixed(threshold, 2),
                    crate::suites::kv_common::within::UNSETTLED
                ),
                None => phrase!("an interval straddles {}", fixed(threshold, 2)),
            });
        }
        Phrase::join(parts, "; ")
    }
}

fn runs_interval(
    agg: &Aggregate,
    n: u32,
    metrics: &[(&'static str, &str, f64)],
) -> Option<RunsInterval> {
    intervals(metrics, |m| {
        let (adp, plain) = (agg.values(ADP, n, m), agg.values(PLAIN, n, m));
        crate::stats::ratio::ratio_pooled(&plain, &adp)
    })
}

/// As [`runs_interval`] for a level where each variant ran once: the intervals from
/// within the two runs.
fn within_interval(
    agg: &Aggregate,
    n: u32,
    metrics: &[(&'static str, &str, f64)],
) -> Option<RunsInterval> {
    intervals(metrics, |m| agg.within_ratio(PLAIN, ADP, n, m))
}

fn intervals(
    metrics: &[(&'static str, &str, f64)],
    ratio: impl Fn(&str) -> Option<crate::stats::ratio::Ratio>,
) -> Option<RunsInterval> {
    let mut each = Vec::new();
    for (name, m, _) in metrics {
        let r = ratio(m)?;
        r.interval?;
        each.push((*name, r));
    }
    let lowest = metrics
        .iter()
        .zip(&each)
        .min_by(|a, b| a.0 .2.total_cmp(&b.0 .2))
        .map(|(_, (_, r))| r)?;
    let (low, high, _, method) = lowest.interval?;
    Some(RunsInterval {
        interval: crate::model::verdict::Interval {
            low,
            high,
            level: 0.95,
            method: method.name().to_string(),
            runs: vec![lowest.n_base, lowest.n_cand],
            apart: false,
        },
        each,
    })
}
