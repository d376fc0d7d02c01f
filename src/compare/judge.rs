//! How one measurement's change between two sides is judged: a 95% confidence interval
//! of the ratio new / base, and the verdict from where the whole interval lies against the
//! threshold (the smallest change that counts).
//!
//! - Several runs on a side: the interval comes from the runs ([`crate::stats::ratio`]:
//!   Welch's t on the logarithms, or the repeated side's spread when the other has one
//!   run). An interval that straddles the threshold says about how many runs of each
//!   side would settle it.
//! - One run on each side: from each run's own standard error where its file gives one
//!   (fio's bandwidth samples: `bw_dev / sqrt(bw_samples)`), a normal interval on the log
//!   ratio. The samples are taken as independent, which they are not quite: weaker
//!   evidence than repeated runs, and said so.
//! - Otherwise there is no interval: the threshold alone decides, and the row says so.
//!   A run's spread (fio's `bw_dev / bw_mean`, the range of repeated requests) is how
//!   much the samples move, not how uncertain the value is; it is shown, not used.
//!
//! With an interval: **better** or **worse** when the whole interval lies beyond the
//! threshold on one side, **no change** when it lies within the threshold on both,
//! **inconclusive** otherwise.
//!
//! With two runs or more on both sides, Mann-Whitney's U test (exact, two-sided) is a
//! second opinion over the runs: where it can reach 5% with these numbers of runs (four
//! a side, or 3 and 5, ...) and its p is not under 5%, a better or worse from the
//! interval becomes inconclusive (the runs' ranks do not separate the sides). With
//! fewer runs it cannot decide anything (2 and 2 runs: its smallest p is 0.33); the row
//! says so and the interval decides.

use serde::Serialize;

use super::measure::Better;
use super::Pooled;
use crate::model::phrase::pct_bound;
use crate::model::units::three_digits;
use crate::stats::rank::{mann_whitney, RankTest};
use crate::stats::ratio::{apart, ratio, Ratio, Settle, APART};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    Better,
    Worse,
    NoChange,
    Inconclusive,
}

impl Change {
    pub fn label(self) -> &'static str {
        match self {
            Change::Better => "better",
            Change::Worse => "WORSE",
            Change::NoChange => "no change",
            Change::Inconclusive => "inconclusive",
        }
    }
}

/// What the judging of one row found.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub delta: f64,
    pub delta_pct: Option<f64>,
    pub noise_pct: Option<f64>,
    /// The 95% interval of the change, in percent of the base.
    pub interval_pct: Option<[f64; 2]>,
    /// How the interval (or its absence) came about.
    pub method: String,
    pub change: Change,
    pub why: String,
    /// Mann-Whitney's U test over the runs, where both sides have two or more.
    pub rank: Option<RankTest>,
}

/// The z quantile of a two-sided 95% interval.
const Z_975: f64 = 1.959_963_984_540_054;

fn direction(up: bool, better: Better) -> Change {
    if up == (better == Better::Higher) {
        Change::Better
    } else {
        Change::Worse
    }
}

/// The interval of the ratio new / base, its method, and the ratio of the runs when it
/// came from them (what says how many runs would settle it).
fn interval(base: &Pooled, new: &Pooled) -> (Option<(f64, f64)>, String, Option<Ratio>) {
    if base.runs >= 2 || new.runs >= 2 {
        if let Some(r) = ratio(&base.values, &new.values) {
            if let Some((lo, hi, _, method)) = r.interval {
                let what = format!(
                    "{} ({} vs {} runs; estimate: ratio of geometric means)",
                    method.name(),
                    r.n_base,
                    r.n_cand
                );
                return (Some((lo, hi)), what, Some(r));
            }
        }
        return (
            None,
            "no interval: a value is not positive, so no ratio of runs".into(),
            None,
        );
    }
    let plain = new.value / base.value;
    match (base.standard_error, new.standard_error) {
        (Some(sb), Some(sn)) if plain > 0.0 => {
            let d = plain.ln();
            let se = (sb * sb + sn * sn).sqrt();
            (
                Some(((d - Z_975 * se).exp(), (d + Z_975 * se).exp())),
                "normal interval on the log ratio from each run's own standard error \
                 (fio's bandwidth samples taken as independent: weaker evidence than \
                 repeated runs)"
                    .into(),
                None,
            )
        }
        _ => (
            None,
            "no interval: one run a side and no standard error in its files; the \
             threshold alone decides"
                .into(),
            None,
        ),
    }
}

/// A p value in words: three significant decimals, no more than the test can say.
fn p_words(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// The rank test as the row's method says it.
fn rank_words(r: &RankTest, interval: bool) -> String {
    let decides = if interval {
        "the interval decides"
    } else {
        "the threshold decides"
    };
    let p = p_words(r.p);
    if r.can_decide() {
        format!(
            "Mann-Whitney U over the runs (exact, two-sided): p = {p}, {}",
            if r.separates() {
                "the runs' ranks separate the sides"
            } else {
                "the runs' ranks do not separate the sides"
            }
        )
    } else {
        format!(
            "Mann-Whitney U over the runs (exact, two-sided): p = {p}; with {} and {} runs it cannot go under 5% (its smallest p is {}), so {decides}",
            r.n_x,
            r.n_y,
            p_words(r.smallest_p)
        )
    }
}

pub fn judge(better: Better, base: &Pooled, new: &Pooled, threshold: f64) -> Judged {
    let delta = new.value - base.value;
    let noise_pct = match (base.noise, new.noise) {
        (None, None) => None,
        (a, b) => Some(100.0 * a.unwrap_or(0.0).max(b.unwrap_or(0.0))),
    };
    if base.value == 0.0 {
        return from_zero(better, new.value, delta, noise_pct);
    }
    let pct = 100.0 * delta / base.value.abs();
    let (iv, method, runs) = interval(base, new);
    let rank = mann_whitney(&base.values, &new.values);
    let method = match &rank {
        Some(r) => format!("{method}; {}", rank_words(r, iv.is_some())),
        None => method,
    };
    // Repeats that disagree: more runs would dilute the odd one, not explain it, so no
    // count of runs is offered, with an interval or without one (a run at 0 gives none).
    let apart = apart_words(base, new);
    let Some((lo, hi)) = iv else {
        let (change, mut why) = if pct.abs() <= threshold {
            (
                Change::NoChange,
                format!("|{pct:+.1}%| within the {threshold}% threshold (no interval)"),
            )
        } else {
            (
                direction(delta > 0.0, better),
                format!("{pct:+.1}% beyond the {threshold}% threshold (no interval)"),
            )
        };
        if let Some(apart) = apart {
            why = format!("{why}; {apart}");
        }
        return Judged {
            delta,
            delta_pct: Some(pct),
            noise_pct,
            interval_pct: None,
            method,
            change,
            why,
            rank,
        };
    };
    let (lo_pct, hi_pct) = (100.0 * (lo - 1.0), 100.0 * (hi - 1.0));
    let ci = format!(
        "95% interval {}% to {}%",
        pct_bound(lo_pct),
        pct_bound(hi_pct)
    );
    let (change, why) = if lo_pct > threshold {
        (
            direction(true, better),
            format!("{pct:+.1}% ({ci}): the whole interval is beyond the {threshold}% threshold"),
        )
    } else if hi_pct < -threshold {
        (
            direction(false, better),
            format!("{pct:+.1}% ({ci}): the whole interval is beyond the {threshold}% threshold"),
        )
    } else if lo_pct >= -threshold && hi_pct <= threshold {
        (
            Change::NoChange,
            format!("{pct:+.1}% ({ci}): the whole interval is within ±{threshold}%"),
        )
    } else {
        let more = match &apart {
            Some(_) => String::new(),
            None => runs
                .and_then(|r| runs_to_settle_words(&r, threshold))
                .unwrap_or_default(),
        };
        (
            Change::Inconclusive,
            format!("{pct:+.1}% ({ci}): the interval straddles the {threshold}% threshold{more}"),
        )
    };
    let (change, mut why) =
        overruled_by_ranks(rank.as_ref(), (change, why), delta, pct, &ci, threshold);
    if let Some(apart) = apart {
        why = format!("{why}; {apart}");
    }
    Judged {
        delta,
        delta_pct: Some(pct),
        noise_pct,
        interval_pct: Some([lo_pct, hi_pct]),
        method,
        change,
        why,
        rank,
    }
}

/// A change from a base of 0: no interval; any change counts.
fn from_zero(better: Better, new: f64, delta: f64, noise_pct: Option<f64>) -> Judged {
    let (change, why) = if new == 0.0 {
        (Change::NoChange, "both 0".to_string())
    } else {
        (
            direction(new > 0.0, better),
            "from 0: any change counts".into(),
        )
    };
    Judged {
        delta,
        delta_pct: (new == 0.0).then_some(0.0),
        noise_pct,
        interval_pct: None,
        method: "no interval: the base is 0".into(),
        change,
        why,
        rank: None,
    }
}

/// "new's runs are 17,500-fold apart (0.416 to 7,281): ..." for each side whose repeats
/// are more than [`APART`] times apart.
fn apart_words(base: &Pooled, new: &Pooled) -> Option<String> {
    let sides: Vec<String> = [("base", base), ("new", new)]
        .into_iter()
        .filter_map(|(side, p)| {
            let (low_at, high_at, fold) = apart(&p.values)?;
            let fold = crate::model::phrase::fold(fold);
            Some(format!(
                "{side}'s runs are {fold} apart ({} to {})",
                three_digits(p.values[low_at]),
                three_digits(p.values[high_at])
            ))
        })
        .collect();
    (!sides.is_empty()).then(|| {
        format!(
            "{}: repeats more than {}-fold apart do not measure one thing, and more runs would dilute the odd one, not explain it; look at those runs before trusting the change",
            sides.join(", "),
            APART
        )
    })
}

/// "new's run 1 is 0 MB/s: ..." for each side with a run at 0 of a rate (a unit per
/// second): a rate of 0 over a run says the run moved nothing, which is a run that failed
/// or never started, not a slower setup. The change keeps its direction (a new build
/// whose job moves nothing is what a gate is for); the words say what the 0 is.
pub fn nothing_moved_words(unit: &str, base: &Pooled, new: &Pooled) -> Option<String> {
    if !unit.ends_with("/s") {
        return None;
    }
    let sides: Vec<String> = [("base", base), ("new", new)]
        .into_iter()
        .filter_map(|(side, p)| {
            let zero: Vec<String> = p
                .values
                .iter()
                .enumerate()
                .filter(|(_, v)| **v == 0.0)
                .map(|(i, _)| (i + 1).to_string())
                .collect();
            match zero.len() {
                0 => None,
                1 if p.values.len() == 1 => Some(format!("{side}'s run is 0 {unit}")),
                1 => Some(format!("{side}'s run {} is 0 {unit}", zero[0])),
                _ => Some(format!("{side}'s runs {} are 0 {unit}", zero.join(", "))),
            }
        })
        .collect();
    (!sides.is_empty()).then(|| {
        format!(
            "{}: a run that moved nothing failed or never started, which says nothing of the setup's speed; read its files (its error, its runtime) before trusting the change",
            sides.join(", ")
        )
    })
}

/// "About N runs of each side would settle it" for an interval that straddles the
/// threshold, where the runs give a spread.
fn runs_to_settle_words(r: &crate::stats::ratio::Ratio, threshold: f64) -> Option<String> {
    let t = threshold / 100.0;
    let estimate = r.estimate;
    // The bound the estimate must clear: the one beyond it, else the nearer.
    let bound = if estimate >= 1.0 + t {
        1.0 + t
    } else if estimate <= 1.0 - t {
        1.0 - t
    } else if (estimate.ln() - (1.0 + t).ln()).abs() < (estimate.ln() - (1.0 - t).ln()).abs() {
        1.0 + t
    } else {
        1.0 - t
    };
    match r.runs_to_settle(bound) {
        Settle::Runs(n) => Some(format!(
            "; about {n} runs of each side would settle it at the spread seen"
        )),
        Settle::MoreThan(n) => Some(format!("; more than {n} runs of each side")),
        Settle::OnThreshold => Some("; the estimate sits on the threshold".into()),
        Settle::NoSpread => None,
    }
}

/// A confident call as the rank test leaves it.
fn overruled_by_ranks(
    rank: Option<&RankTest>,
    (change, why): (Change, String),
    delta: f64,
    pct: f64,
    ci: &str,
    threshold: f64,
) -> (Change, String) {
    // The rank test overrules a confident call only where it could have agreed: it must
    // separate the sides, and in the interval's direction (the base runs ranking below
    // the new ones for a rise).
    match rank {
        Some(r)
            if matches!(change, Change::Better | Change::Worse)
                && r.can_decide()
                && !(r.separates() && r.base_below() == (delta > 0.0)) =>
        {
            let how = if r.separates() {
                "the runs' ranks separate the sides the other way"
            } else {
                "the runs' ranks do not separate the sides"
            };
            (
                Change::Inconclusive,
                format!(
                    "{pct:+.1}% ({ci}): the interval is beyond the {threshold}% threshold, but {how} (Mann-Whitney U, exact p = {}); more runs of each side would settle it",
                    p_words(r.p)
                ),
            )
        }
        _ => (change, why),
    }
}

#[cfg(test)]
mod tests;
