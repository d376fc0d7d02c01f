//! The share criteria: an array's best run against the raw drives' theoretical maximum,
//! judged by its interval from within the runs where fio's samples give one.

use crate::model::measurement::Unit;
use crate::model::phrase::{fixed, name, printed, qty, Phrase, UnitOf};
use crate::model::verdict::{Status, Verdict};
use crate::phrase;
use crate::suites::spdk_raid::load::ArrayDir;
use crate::suites::spdk_raid::reference::SpdkReference;
use crate::suites::spdk_raid::theory::{drives_worth, Op};

use super::classify::{best, per_drive};
use super::Shares;

#[allow(clippy::too_many_arguments)]
pub(super) fn share_verdict(
    arrays: &[ArrayDir],
    a: &ArrayDir,
    name: &str,
    lvl: &str,
    op: Op,
    min: f64,
    what: &str,
    r: &SpdkReference,
    shares: &mut Shares,
) -> Verdict {
    let mut v = Verdict {
        ..Verdict::new(
            format!("spdk-raid.{name}.{}", op.label().replace(' ', "-")),
            format!("{name} ({lvl}, {} drives): {what}", a.drives),
            phrase!(">= {}", qty(min * 100.0, 0, Unit::Percent)),
            "90-95% of theoretical (Xinnor's design goal)",
        )
    }
    .with_numbers(
        None,
        Some(min * 100.0),
        None,
        UnitOf::new(Unit::Percent, "of theoretical"),
    );
    let Some((value, file)) = best(a, op, r, false) else {
        v.note = Phrase::words(format!("no clean {} run in {}", op.label(), a.dir));
        return v;
    };
    v.files.push(file);
    let Some((pd, raw_file, same_n)) = per_drive(arrays, a.drives, op, r) else {
        v.note = Phrase::words(format!("no raw-drive {} run to compare with", op.label()));
        return v;
    };
    v.files.push(raw_file);
    let Some(worth) = drives_worth(lvl, op, a.drives) else {
        v.note = Phrase::words(format!("no theoretical maximum for {lvl}"));
        return v;
    };
    let theory = pd * worth;
    if !(theory > 0.0 && theory.is_finite()) {
        v.note = Phrase::words(format!(
            "the raw drives' {} result is zero: no theoretical maximum",
            op.label()
        ));
        return v;
    }
    let share = value / theory;
    v.set_measured(Some(share * 100.0));
    shares.insert((a.dir.clone(), op), theory);
    let unit = |x: f64| match op {
        Op::RandomRead | Op::RandomWrite => phrase!("{}k IOPS", printed(x / 1000.0, 0)),
        _ => phrase!("{}", qty(x, 1, Unit::GigabytesPerSecond)),
    };
    v.measured = phrase!(
        "{} ({} of {})",
        qty(share * 100.0, 1, Unit::Percent),
        unit(value),
        unit(theory)
    );
    if !same_n {
        v.note = Phrase::words(format!(
            "the raw baseline has another drive count; scaled per drive to {}",
            a.drives
        ));
    }
    v.status = share_status(&mut v, arrays, share, min);
    failed_runs_not_counted(&mut v, a, op, r);
    v
}

/// A share below the mark, judged on the best clean run while runs of the same kind
/// failed (an error, failed I/Os, nothing moved, cut short) or files of the folder could
/// not be read: those would have judged it, so the files do not say whether the array
/// reaches the mark.
fn failed_runs_not_counted(v: &mut Verdict, a: &ArrayDir, op: Op, r: &SpdkReference) {
    if v.status != Status::Fail {
        return;
    }
    let failed: Vec<String> = a
        .runs
        .iter()
        .filter(|run| {
            !run.degraded && !run.clean() && super::classify::op_of(run, a, r) == Some(op)
        })
        // A failed job rerun clean: the files say what that job reached.
        .filter(|run| {
            !a.runs
                .iter()
                .any(|o| !o.degraded && o.clean() && o.sig == run.sig)
        })
        .map(|run| format!("`{}`", run.file))
        .collect();
    let unread: Vec<String> = a.unread.iter().map(|(f, _)| format!("`{f}`")).collect();
    let mut why = Vec::new();
    if !failed.is_empty() {
        why.push(format!(
            "{} {} run(s) failed and are not counted ({})",
            failed.len(),
            op.label(),
            failed.join(", ")
        ));
    }
    if !unread.is_empty() {
        why.push(format!(
            "{} file(s) of {} could not be read ({}; see the skipped files)",
            unread.len(),
            a.dir,
            unread.join(", ")
        ));
    }
    if why.is_empty() {
        return;
    }
    v.status = Status::Inconclusive;
    v.note = Phrase::joined(
        [
            Phrase::words(format!(
                "{}: the best clean run is below the mark, and whether those runs would reach it the files do not say",
                why.join("; ")
            )),
            v.note.clone(),
        ],
        "; ",
    );
}

/// A share's status: more than the drives can give means the baseline does not measure
/// the drives the way the array was measured (inconclusive, said why); else by its
/// interval from within the runs.
fn share_status(v: &mut Verdict, arrays: &[ArrayDir], share: f64, min: f64) -> Status {
    const IMPLAUSIBLE: f64 = 1.10;
    if share > IMPLAUSIBLE {
        let why = phrase!(
            "{}% of the theoretical maximum is more than the drives can give: the raw baseline ({}) ran another shape or was held back, so the share says nothing",
            fixed(share * 100.0, 0),
            name(v.files.last().cloned().unwrap_or_default())
        );
        v.note = Phrase::joined([why, v.note.clone()], "; ");
        Status::Inconclusive
    } else {
        within_run(v, arrays, share, min)
    }
}

/// The status of a share from one run a side: by its 95% interval from within the runs
/// where both files give their throughput's standard error (fio's bandwidth samples),
/// else by the point, said so. The article runs each job once; repeats are optional.
fn within_run(v: &mut Verdict, arrays: &[ArrayDir], share: f64, min: f64) -> Status {
    let rel_se = |file: &String| {
        arrays
            .iter()
            .flat_map(|a| a.runs.iter())
            .find(|run| run.file == *file)
            .and_then(|run| run.rel_se())
    };
    let se: Option<f64> = v
        .files
        .iter()
        .map(rel_se)
        .collect::<Option<Vec<f64>>>()
        .map(|ses| ses.iter().map(|x| x * x).sum::<f64>().sqrt());
    let mut say = |words: Phrase| {
        v.note = Phrase::joined([v.note.clone(), words], "; ");
    };
    // Without an interval the point judges (the suite says so once, for every such share).
    let point = if share >= min {
        Status::Pass
    } else {
        Status::Fail
    };
    let Some(se) = se.filter(|se| *se > 0.0) else {
        return point;
    };
    // A normal interval on the logarithm of the share: the two runs' relative standard
    // errors add as independent.
    let z = 1.959963984540054;
    let (low, high) = (share * (-z * se).exp(), share * (z * se).exp());
    if !(low.is_finite() && high.is_finite() && low > 0.0) {
        // Samples so spread that the interval is unbounded: no interval to judge by.
        return point;
    }
    v.interval = Some(crate::model::verdict::Interval {
        low: low * 100.0,
        high: high * 100.0,
        level: 0.95,
        method: WITHIN_RUN.to_string(),
        runs: vec![1, 1],
        apart: false,
    });
    if low >= min {
        Status::Pass
    } else if high < min {
        Status::Fail
    } else {
        say(phrase!(
            "its 95% interval from within one run a side ({}% to {}%) straddles {}%: the files cannot tell which side it is on; repeated runs of the array and the raw drives would give an interval over the runs (how many cannot be told from one run a side, whose spread between runs is unseen)",
            fixed(low * 100.0, 1),
            fixed(high * 100.0, 1),
            fixed(min * 100.0, 0)
        ));
        Status::Inconclusive
    }
}

/// How a share's interval from within one run a side is had.
const WITHIN_RUN: &str = "within one run a side: each run's relative standard error from fio's bandwidth samples (bw_dev / sqrt(bw_samples), taken as independent), added in quadrature, normal interval on the log of the share (weaker than repeated runs; the runs are each side's best of its sweep, a choice the interval does not account for)";
