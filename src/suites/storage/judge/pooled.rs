//! Repeated runs judged: every run listed, the ratio of the geometric means with its 95%
//! interval, and the status from the interval (or from the point where the runs agree).

use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, fixed, qty, Phrase};
use crate::model::units::three_digit_decimals;
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
                    fixed(*x, three_digit_decimals(*x))
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
        apart: false,
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
    let disagree = disagreeing(base, cand, v.status);
    if let Some(i) = v.interval.as_mut() {
        i.apart = disagree.is_some();
    }
    if v.status == Status::Inconclusive {
        use crate::stats::ratio::Settle;
        // The reason first: the terminal's summary shows a note's first clause.
        let straddles = "the interval straddles the threshold";
        // Repeats that disagree get no count of runs: more would dilute the odd one, not
        // explain it.
        let settle = disagree.is_none().then(|| r.runs_to_settle(w.min_ratio));
        let reason = match settle {
            None => Phrase::from(straddles),
            Some(Settle::Runs(n)) => phrase!(
                "{}: about {} runs of each side would settle it at the spread seen (the n at which t(0.975, 2n-2) x the spread x sqrt(2/n) falls below the distance from the threshold)",
                straddles,
                count(n)
            ),
            Some(Settle::MoreThan(n)) => phrase!(
                "{}: more than {} runs of each side would be needed at the spread seen",
                straddles,
                count(n)
            ),
            Some(Settle::OnThreshold) => phrase!(
                "{} and the estimate sits on it: no number of runs settles it",
                straddles
            ),
            Some(Settle::NoSpread) => Phrase::from(straddles),
        };
        why = phrase!("{}; {}", reason, why);
    }
    // Runs apart are the reason an inconclusive verdict gives first; a pass or a fail is
    // the interval's, and says so first, the runs apart after.
    match disagree {
        Some(d) if v.status == Status::Inconclusive => why = phrase!("{}; {}", d, why),
        Some(d) => why = phrase!("{}; {}", why, d),
        None => {}
    }
    v.note = before(why, &v.note);
}

/// The repeats of a side more than [`APART`] times apart, the slowest and the fastest
/// named (which of them is the odd one the files do not say): the pooled estimate leans
/// on a run that likely measured something else (a failed device, a job that stalled),
/// and more runs would dilute it, not explain it.
fn disagreeing(
    base: (&[&RunGroup], &[f64]),
    cand: (&[&RunGroup], &[f64]),
    status: Status,
) -> Option<Phrase> {
    let sides: Vec<Phrase> = [base, cand]
        .into_iter()
        .filter_map(|(gs, xs)| {
            let (low_at, high_at, fold) = apart(xs)?;
            let mbs = |at: usize| fixed(xs[at], three_digit_decimals(xs[at]));
            let run = |at: usize| -> Option<Phrase> {
                let g = gs.get(at)?;
                Some(phrase!(
                    "run {} `{}`",
                    count(g.number),
                    phrase::name(&g.run.file)
                ))
            };
            let fold = phrase::fold(fold);
            // The numbers first: the terminal's summary shows the first clause, cut.
            Some(phrase!(
                "repeats {} apart ({} vs {} MB/s): {} and {}",
                fold,
                mbs(low_at),
                mbs(high_at),
                run(low_at)?,
                run(high_at)?
            ))
        })
        .collect();
    let then = if status == Status::Inconclusive {
        "more runs would dilute the odd one, not explain it: look at those runs"
    } else {
        // The interval cleared the threshold with the odd run pooled in.
        "the interval is on one side of the threshold even with them pooled, but look at those runs"
    };
    (!sides.is_empty()).then(|| {
        phrase!(
            "{}; repeats more than {}-fold apart do not measure one thing; {}",
            Phrase::join(sides, "; "),
            count(APART as i64),
            then
        )
    })
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
