//! Repeated runs judged: every run listed, the ratio of the geometric means with its 95%
//! interval, and the status from the interval (or from the point where the runs agree).

use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, fixed, qty, Phrase};
use crate::model::verdict::{Status, Verdict};
use crate::phrase;
use crate::stats::ratio::{apart, APART};
use crate::suites::storage::load::RunGroup;
use crate::suites::storage::reference::Workload;

use super::notes::before;
use super::Sides;

/// The verdict on repeated runs: every run listed, the ratio of the geometric means with
/// its 95% interval, and the status from the interval.
pub(super) fn pooled(
    v: &mut Verdict,
    r: &crate::stats::ratio::Ratio,
    base: (&[&RunGroup], &[f64]),
    cand: (&[&RunGroup], &[f64]),
    sides: &Sides,
    w: &Workload,
) {
    let listed = listed_runs(base, cand, sides);
    match r.interval {
        Some((low, high, _, method)) => {
            with_interval(v, r, (low, high, method), base, cand, listed, w);
        }
        None => on_the_point(v, r, listed, w),
    }
}

/// Every pooled run of both sides with its MB/s, and which fio versions made a side's
/// runs where they were more than one.
fn listed_runs(
    base: (&[&RunGroup], &[f64]),
    cand: (&[&RunGroup], &[f64]),
    sides: &Sides,
) -> Phrase {
    let runs = |array: &str, (gs, xs): (&[&RunGroup], &[f64])| {
        let each: Vec<Phrase> = gs
            .iter()
            .zip(xs)
            .map(|(g, x)| {
                phrase!(
                    "run {} `{}` {} MB/s",
                    count(g.number),
                    phrase::name(&g.run.file),
                    fixed(*x, 0)
                )
            })
            .collect();
        phrase!("{}: {}", phrase::name(array), Phrase::join(each, ", "))
    };
    let mut listed = phrase!(
        "{}; {}",
        runs(&sides.baseline, base),
        runs(&sides.candidate, cand)
    );
    // Repeats pooled across fio versions are said to be: a new fio may measure otherwise.
    for (array, gs) in [(&sides.baseline, base.0), (&sides.candidate, cand.0)] {
        let versions: std::collections::BTreeSet<&str> = gs
            .iter()
            .filter_map(|g| g.run.output.fio_version.as_deref())
            .collect();
        if versions.len() > 1 {
            let versions: Vec<&str> = versions.into_iter().collect();
            listed = phrase!(
            "{}; {}'s runs were made by {}: pooled as repeats, though fio versions may measure differently",
            listed,
            phrase::name(array.as_str()),
            phrase::name(versions.join(" and "))
        );
        }
    }
    listed
}

/// Pooled runs with an interval: the ratio, the interval and the means shown, the status
/// from the interval, and what would settle one that straddles the threshold.
fn with_interval(
    v: &mut Verdict,
    r: &crate::stats::ratio::Ratio,
    (low, high, method): (f64, f64, crate::stats::ratio::Method),
    base: (&[&RunGroup], &[f64]),
    cand: (&[&RunGroup], &[f64]),
    listed: Phrase,
    w: &Workload,
) {
    use crate::stats::ratio::Against;
    let geo = |xs: &[f64]| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp();
    v.measured = phrase!(
        "{} (95% CI {} to {}; {} vs {} MB/s, geometric means of {} and {} runs)",
        qty(r.estimate, 2, Unit::Ratio),
        phrase::ratio_bound(low),
        phrase::ratio_bound(high),
        fixed(geo(cand.1), 0),
        fixed(geo(base.1), 0),
        count(cand.1.len()),
        count(base.1.len())
    );
    v.interval = Some(crate::model::verdict::Interval {
        low,
        high,
        level: 0.95,
        method: method.name().to_string(),
        runs: vec![base.1.len(), cand.1.len()],
    });
    v.status = match r.against(w.min_ratio, w.strict) {
        Some(Against::Above) => Status::Pass,
        Some(Against::Below) => Status::Fail,
        _ => Status::Inconclusive,
    };
    let mut why = phrase!(
        "{}; interval: {}",
        listed.clone(),
        phrase::name(method.name())
    );
    let apart = disagreeing(base, cand);
    if v.status == Status::Inconclusive {
        use crate::stats::ratio::Settle;
        // The reason first: the terminal's summary shows a note's first clause.
        let straddles = "the interval straddles the threshold";
        // More runs do not settle repeats that disagree: the spread is not noise.
        let settle = match apart {
            Some(_) => Settle::NoSpread,
            None => r.runs_to_settle(w.min_ratio),
        };
        let reason = match settle {
            Settle::Runs(n) => phrase!(
                "{}: about {} runs of each side would settle it at the spread seen (the n at which t(0.975, 2n-2) x the spread x sqrt(2/n) falls below the distance from the threshold)",
                straddles,
                count(n)
            ),
            Settle::MoreThan(n) => phrase!(
                "{}: more than {} runs of each side would be needed at the spread seen",
                straddles,
                count(n)
            ),
            Settle::OnThreshold => phrase!(
                "{} and the estimate sits on it: no number of runs settles it",
                straddles
            ),
            Settle::NoSpread => Phrase::from(straddles),
        };
        why = phrase!("{}; {}", reason, why);
    }
    if let Some(apart) = apart {
        why = phrase!("{}; {}", apart, why);
    }
    v.note = before(why, &v.note);
}

/// The repeats of a side that are more than [`APART`] times apart, the slowest named:
/// their interval then says only that they disagree, and the pooled estimate leans on a
/// run that likely measured something else (a failed device, a job that stalled).
fn disagreeing(base: (&[&RunGroup], &[f64]), cand: (&[&RunGroup], &[f64])) -> Option<Phrase> {
    let sides: Vec<Phrase> = [base, cand]
        .into_iter()
        .filter_map(|(gs, xs)| {
            let (slow, fold) = apart(xs)?;
            let g = gs.get(slow)?;
            let high = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Some(phrase!(
                "run {} `{}` ({} MB/s) is {} the fastest of its repeats ({} MB/s)",
                count(g.number),
                phrase::name(&g.run.file),
                fixed(xs[slow], 1),
                fold_text(fold),
                fixed(high, 0)
            ))
        })
        .collect();
    (!sides.is_empty()).then(|| {
        phrase!(
            "the repeats disagree (more than {}-fold apart), so the interval says only that: {}; look at that run before pooling it",
            count(APART as i64),
            Phrase::join(sides, "; ")
        )
    })
}

/// `17,000-fold below`, or `infinitely below` for a run at 0 MB/s.
fn fold_text(fold: f64) -> Phrase {
    if fold.is_finite() {
        phrase!("{}-fold below", fixed(fold, 0))
    } else {
        Phrase::from("infinitely below")
    }
}

/// Pooled runs with no interval: judged on the point, and said.
fn on_the_point(v: &mut Verdict, r: &crate::stats::ratio::Ratio, listed: Phrase, w: &Workload) {
    // Repeats that agree in every number: no spread, so no interval. Judged on
    // the point, as one run a side is, and said.
    let ok = if w.strict {
        r.estimate > w.min_ratio
    } else {
        r.estimate >= w.min_ratio
    };
    v.status = if ok { Status::Pass } else { Status::Fail };
    let why = phrase!(
        "the runs agree to the last digit: no spread between them, so no interval (judged on the point); repeats that agree this closely may be copies of one run; {}",
        listed
    );
    v.note = before(why, &v.note);
}
