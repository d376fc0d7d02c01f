//! One headline ratio judged: the runs of both sides found, the point with one run a
//! side (by the interval from within the runs where there is one), else the pools.

use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, fixed, qty, Phrase, UnitOf};
use crate::model::verdict::{Status, Verdict};
use crate::phrase;
use crate::suites::storage::load::RunGroup;
use crate::suites::storage::reference::Workload;

use super::notes::{before, join};
use super::pooled::pooled;
use super::runs::{common_tree, find_runs};
use super::Sides;

/// Total bandwidth in decimal MB/s, read + write, as the procedure's script sums it.
pub fn mb_s(g: &RunGroup) -> f64 {
    g.group.read.bw_bytes / 1e6 + g.group.write.bw_bytes / 1e6
}

/// Batch means of a run's per-second throughput over its steady window, where it has one.
pub type Within<'a> = dyn Fn(&RunGroup) -> Option<crate::stats::batch::BatchMeans> + 'a;

pub fn headline_verdict(
    groups: &[RunGroup],
    sides: &Sides,
    w: &Workload,
    within: &Within,
) -> Verdict {
    let tree = common_tree(groups, sides, w);
    let (base, base_note) = find_runs(groups, &sides.baseline, w, tree.as_deref());
    let (cand, cand_note) = find_runs(groups, &sides.candidate, w, tree.as_deref());
    let cmp = if w.strict { ">" } else { ">=" };
    let mut v = Verdict {
        note: Phrase::words(join(&base_note, &cand_note)),
        ..Verdict::new(
            format!("storage.{}", w.id),
            format!("{}: {}", w.title, w.criterion),
            phrase!("{} {}", phrase::name(cmp), qty(w.min_ratio, 1, Unit::Ratio)),
            Phrase::text(&w.published),
        )
    }
    .with_numbers(
        None,
        Some(w.min_ratio),
        Some(w.candidate_mb_s / w.baseline_mb_s),
        UnitOf::of(Unit::Ratio),
    );
    v.files.extend(base.iter().map(|g| g.run.file.clone()));
    v.files.extend(cand.iter().map(|g| g.run.file.clone()));
    if base.is_empty() || cand.is_empty() {
        no_run_of(&mut v, &base, &cand, sides, w);
        return v;
    }
    both_sides(&mut v, &base, &cand, sides, w, within);
    v
}

/// A side without a run of `w`: named before the note.
fn no_run_of(v: &mut Verdict, base: &[&RunGroup], cand: &[&RunGroup], sides: &Sides, w: &Workload) {
    let missing: Vec<&str> = [
        (base.is_empty(), sides.baseline.as_str()),
        (cand.is_empty(), sides.candidate.as_str()),
    ]
    .iter()
    .filter(|(m, _)| *m)
    .map(|(_, a)| *a)
    .collect();
    let why = format!(
        "no `{}` run (or one with its options) in {}",
        w.name,
        missing.join(" and ")
    );
    v.note = before(Phrase::words(why), &v.note);
}

/// Runs on both sides: the point with one run a side, no number from a run that is not a
/// result, then one run a side judged, else the pools.
fn both_sides(
    v: &mut Verdict,
    base: &[&RunGroup],
    cand: &[&RunGroup],
    sides: &Sides,
    w: &Workload,
    within: &Within,
) {
    let (bs, cs): (Vec<f64>, Vec<f64>) = (
        base.iter().map(|g| mb_s(g)).collect(),
        cand.iter().map(|g| mb_s(g)).collect(),
    );
    let single = base.len() == 1 && cand.len() == 1;
    if single {
        let (bm, cm) = (bs[0], cs[0]);
        v.set_measured((bm > 0.0).then(|| cm / bm));
        let ratio = if bm > 0.0 {
            phrase!("{}", qty(cm / bm, 2, Unit::Ratio))
        } else {
            Phrase::dash()
        };
        v.measured = phrase!("{} ({} vs {} MB/s)", ratio, fixed(cm, 0), fixed(bm, 0));
    }
    for g in base.iter().chain(cand) {
        if let Some(why) = not_a_result(g) {
            // A run that is not a result gives no number to show, nor to hold against
            // the published one.
            v.status = Status::Inconclusive;
            v.set_measured(None);
            v.measured = Phrase::dash();
            v.note = before(Phrase::words(why), &v.note);
            return;
        }
    }
    if single {
        one_run_a_side(v, (base[0], bs[0]), (cand[0], cs[0]), w, within);
        return;
    }
    let Some(r) = crate::stats::ratio::ratio(&bs, &cs) else {
        v.status = Status::Inconclusive;
        v.note = before(
            Phrase::from("a run moved 0 MB/s: no ratio of the pools"),
            &v.note,
        );
        return;
    };
    v.set_measured(Some(r.estimate));
    pooled(v, &r, (base, &bs), (cand, &cs), sides, w);
}

/// One run a side: judged by the interval from within the two runs where both give one,
/// else by the point, as the procedure's script does.
fn one_run_a_side(
    v: &mut Verdict,
    (base, bm): (&RunGroup, f64),
    (cand, cm): (&RunGroup, f64),
    w: &Workload,
    within: &Within,
) {
    let in_run = within(base)
        .zip(within(cand))
        .and_then(|(b, c)| crate::stats::batch::within_run_ratio((bm, &b), (cm, &c)));
    if let Some(r) = in_run {
        one_run_interval(v, &r, w);
        return;
    }
    let ratio = cm / bm;
    let ok = if w.strict {
        ratio > w.min_ratio
    } else {
        ratio >= w.min_ratio
    };
    v.status = if ok { Status::Pass } else { Status::Fail };
}

/// One run a side with an interval from within each run (batch means): the point stays
/// the script's ratio, the status follows the interval, and the note says what the
/// interval cannot tell.
fn one_run_interval(v: &mut Verdict, r: &crate::stats::ratio::Ratio, w: &Workload) {
    use crate::stats::ratio::Against;
    let Some((low, high, _, method)) = r.interval else {
        return;
    };
    v.interval = Some(crate::model::verdict::Interval {
        low,
        high,
        level: 0.95,
        method: method.name().to_string(),
        runs: vec![1, 1],
        apart: false,
    });
    v.status = match r.against(w.min_ratio, w.strict) {
        Some(Against::Above) => Status::Pass,
        Some(Against::Below) => Status::Fail,
        _ => Status::Inconclusive,
    };
    let mut why = phrase!(
        "one run a side: the 95% interval ({}x to {}x) comes from within each run ({} batch means of its per-second throughput over its steady window) and says nothing of how runs differ from one another",
        fixed(low, 2),
        fixed(high, 2),
        count(crate::stats::batch::BATCHES)
    );
    if v.status == Status::Inconclusive {
        why = phrase!("{}; it straddles the threshold: repeat the runs (`collect storage --until-settled`) to settle it", why);
    }
    v.note = before(why, &v.note);
}

/// Why a run's bandwidth is not a result (fio's error, no I/O), or None.
fn not_a_result(g: &RunGroup) -> Option<String> {
    if g.group.error != 0 {
        return Some(format!(
            "fio reported error {} for `{}`: its bandwidth is not a result",
            g.group.error, g.run.file
        ));
    }
    if g.group.total_err > 0 {
        return Some(format!(
            "fio went on past {} I/O errors in `{}` (total_err, continue_on_error): its bandwidth is not a clean result",
            crate::model::units::grouped(&g.group.total_err.to_string()),
            g.run.file
        ));
    }
    if let Some(line) = crate::fio::params::logged_error(g.run.output) {
        return Some(format!(
            "fio logged `{line}` in `{}`: its bandwidth is not a clean result",
            g.run.file
        ));
    }
    let ios = g.group.read.total_ios + g.group.write.total_ios;
    let runtime = g.group.read.runtime_ms.max(g.group.write.runtime_ms);
    (ios == 0 || runtime == 0).then(|| {
        format!(
            "`{}` moved no data ({ios} I/Os in {runtime} ms): the job did not run, so there is nothing to compare",
            g.run.file
        )
    })
}
