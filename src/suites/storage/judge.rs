//! The procedure's pass criteria: the five headline ratios and "every fio job exits with
//! status 0".

use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, fixed, qty, Phrase, UnitOf};
use crate::model::verdict::{Status, Verdict};
use crate::phrase;

use super::load::{Loaded, RunGroup};
use super::reference::{Reference, Workload};
use crate::fio::signature::{parse_size, Signature};

/// Which array folders are compared: names from the user or the procedure.
#[derive(Debug, Clone)]
pub struct Sides {
    pub baseline: String,
    pub candidate: String,
}

/// The run of `array` that is the procedure's `w` (the first of [`find_runs`]), and a
/// note when the choice needs saying.
pub fn find_workload<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    w: &Workload,
) -> (Option<&'a RunGroup<'a>>, String) {
    let (runs, note) = find_runs(groups, array, w, None);
    (runs.first().copied(), note)
}

/// The result tree a run stands in: the folder above its array's folder.
fn tree_of(g: &RunGroup) -> String {
    let dir = crate::ingest::layout::dir_of(&g.run.file);
    crate::ingest::layout::dir_of(dir).to_string()
}

/// The result tree both sides are judged from: the first that holds runs of `w` for both
/// arrays, else the first that holds any (None when neither side has a run).
pub fn common_tree(groups: &[RunGroup], sides: &Sides, w: &Workload) -> Option<String> {
    let trees = |array: &str| -> Vec<String> {
        let (runs, _) = candidates(groups, array, w);
        let mut t: Vec<String> = runs.iter().map(|g| tree_of(g)).collect();
        t.sort();
        t.dedup();
        t
    };
    let (b, c) = (trees(&sides.baseline), trees(&sides.candidate));
    b.iter()
        .find(|t| c.contains(t))
        .or(b.first())
        .or(c.first())
        .cloned()
}

/// The runs of `array` that may be the procedure's `w`, in every tree: by the job's
/// name (its own file and its numbered repeats; of a file with several groups, the one
/// named for the job, else its first), else by shape; and the note on how they matched.
fn candidates<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    w: &Workload,
) -> (Vec<&'a RunGroup<'a>>, String) {
    let want = workload_signature(w);
    let in_array: Vec<&RunGroup> = groups
        .iter()
        .filter(|g| g.run.array.eq_ignore_ascii_case(array))
        .collect();
    let mut by_name: Vec<&RunGroup> = Vec::new();
    for g in in_array.iter().copied().filter(|g| {
        g.group.jobname == w.name || g.run.stem == w.name || repeat_of(&g.run.stem, &w.name)
    }) {
        match by_name.iter_mut().find(|x| x.run.file == g.run.file) {
            Some(x) if x.group.jobname != w.name && g.group.jobname == w.name => *x = g,
            Some(_) => {}
            None => by_name.push(g),
        }
    }
    if !by_name.is_empty() {
        return (by_name, String::new());
    }
    let by_shape: Vec<&RunGroup> = in_array
        .iter()
        .copied()
        .filter(|g| g.signature == want)
        .collect();
    let note = match by_shape.as_slice() {
        [] => String::new(),
        [one] => format!("matched `{}` by its options ({want})", one.run.file),
        many => format!(
            "matched {} by their options ({want})",
            many.iter()
                .map(|g| format!("`{}`", g.run.file))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    (by_shape, note)
}

/// Every run of `array` that is the procedure's `w`, in `tree` (else the first tree that
/// has one): the job's own file first, then its numbered repeats
/// (`randwrite-8k-j8-d8-run2.json`), pooled when they ran what the first ran. Runs of one
/// array folder are repeats of one campaign; the same array in another result tree
/// (`results/adp`, `results-newfio/adp`) is another campaign: not pooled, and the note
/// says which tree is judged and how to judge the other.
pub fn find_runs<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    w: &Workload,
    tree: Option<&str>,
) -> (Vec<&'a RunGroup<'a>>, String) {
    let want = workload_signature(w);
    let (mut found, mut note) = candidates(groups, array, w);
    found.sort_by_key(|g| (g.run.stem != w.name, g.run.file.clone()));
    let Some(chosen) = tree
        .map(str::to_string)
        .or_else(|| found.first().map(|g| tree_of(g)))
    else {
        return (found, note);
    };
    let mut others: Vec<String> = found
        .iter()
        .map(|g| tree_of(g))
        .filter(|t| *t != chosen)
        .collect();
    others.sort();
    others.dedup();
    found.retain(|g| tree_of(g) == chosen);
    if let Some(first) = found.first().copied() {
        if first.signature != want {
            note = join(
                &note,
                &format!(
                    "`{}` ran {} where the procedure runs {want}",
                    first.run.file, first.signature
                ),
            );
        }
        let apart: Vec<String> = found
            .iter()
            .filter(|g| g.signature != first.signature)
            .map(|g| format!("`{}` ran {}", g.run.file, g.signature))
            .collect();
        if !apart.is_empty() {
            note = join(
                &note,
                &format!(
                    "not pooled with `{}` ({}): {}",
                    first.run.file,
                    first.signature,
                    apart.join(", ")
                ),
            );
        }
        found.retain(|g| g.signature == first.signature);
    }
    if !others.is_empty() {
        let shown = |t: &str| {
            if t.is_empty() {
                "the top folder".to_string()
            } else {
                format!("`{t}`")
            }
        };
        note = join(
            &note,
            &format!(
                "`{array}` also stands in {}: another result tree is another campaign, not a repeat; this verdict judges {}; analyze the other tree on its own to judge it",
                others.iter().map(|t| shown(t)).collect::<Vec<_>>().join(", "),
                shown(&chosen)
            ),
        );
    }
    (found, note)
}

/// Whether a file's stem is a numbered repeat of the job `name` (`NAME-run2`,
/// `NAME_run3`, `NAME.2`, `NAME-rep2`).
fn repeat_of(stem: &str, name: &str) -> bool {
    super::load::repeat_number(stem, name).is_some()
}

pub fn workload_signature(w: &Workload) -> Signature {
    Signature {
        rw: w.rw.clone(),
        bs: parse_size(&w.bs),
        numjobs: w.numjobs,
        iodepth: w.iodepth,
        rwmixread: w.rwmixread,
    }
}

/// `why` before what the note already says.
fn before(why: Phrase, note: &Phrase) -> Phrase {
    Phrase::joined([why, note.clone()], "; ")
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}; {b}"),
    }
}

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
        return v;
    }
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
    for g in base.iter().chain(&cand) {
        if let Some(why) = not_a_result(g) {
            // A run that is not a result gives no number to show, nor to hold against
            // the published one.
            v.status = Status::Inconclusive;
            v.set_measured(None);
            v.measured = Phrase::dash();
            v.note = before(Phrase::words(why), &v.note);
            return v;
        }
    }
    if single {
        one_run_a_side(&mut v, (base[0], bs[0]), (cand[0], cs[0]), w, within);
        return v;
    }
    let Some(r) = crate::stats::ratio::ratio(&bs, &cs) else {
        v.status = Status::Inconclusive;
        v.note = before(
            Phrase::from("a run moved 0 MB/s: no ratio of the pools"),
            &v.note,
        );
        return v;
    };
    v.set_measured(Some(r.estimate));
    pooled(&mut v, &r, (&base, &bs), (&cand, &cs), sides, w);
    v
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

/// The verdict on repeated runs: every run listed, the ratio of the geometric means with
/// its 95% interval, and the status from the interval.
fn pooled(
    v: &mut Verdict,
    r: &crate::stats::ratio::Ratio,
    base: (&[&RunGroup], &[f64]),
    cand: (&[&RunGroup], &[f64]),
    sides: &Sides,
    w: &Workload,
) {
    use crate::stats::ratio::Against;
    let geo = |xs: &[f64]| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp();
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
    match r.interval {
        Some((low, high, _, method)) => {
            v.measured = phrase!(
                "{} (95% CI {} to {}; {} vs {} MB/s, geometric means of {} and {} runs)",
                qty(r.estimate, 2, Unit::Ratio),
                qty(low, 2, Unit::Ratio),
                qty(high, 2, Unit::Ratio),
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
            if v.status == Status::Inconclusive {
                use crate::stats::ratio::Settle;
                // The reason first: the terminal's summary shows a note's first clause.
                let straddles = "the interval straddles the threshold";
                let reason = match r.runs_to_settle(w.min_ratio) {
                    Settle::Runs(n) => format!(
                        "{straddles}: about {n} runs of each side would settle it at the spread seen (the n at which t(0.975, 2n-2) x the spread x sqrt(2/n) falls below the distance from the threshold)"
                    ),
                    Settle::MoreThan(n) => format!(
                        "{straddles}: more than {n} runs of each side would be needed at the spread seen"
                    ),
                    Settle::OnThreshold => {
                        format!("{straddles} and the estimate sits on it: no number of runs settles it")
                    }
                    Settle::NoSpread => straddles.to_string(),
                };
                why = phrase!("{}; {}", Phrase::words(reason), why);
            }
            v.note = before(why, &v.note);
        }
        None => {
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
    }
}

/// Why a run's bandwidth is not a result (fio's error, no I/O), or None.
fn not_a_result(g: &RunGroup) -> Option<String> {
    if g.group.error != 0 {
        return Some(format!(
            "fio reported error {} for `{}`: its bandwidth is not a result",
            g.group.error, g.run.file
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

/// "Both arrays: every fio job exits with status 0", over the two compared arrays only.
pub fn clean_exit_verdict(loaded: &Loaded, groups: &[RunGroup], sides: &Sides) -> Verdict {
    let compared = |array: &str| {
        array.eq_ignore_ascii_case(&sides.baseline) || array.eq_ignore_ascii_case(&sides.candidate)
    };
    let (mut problems, mut files) = exit_problems(loaded, groups, &compared);
    let no_result: Vec<_> = loaded
        .no_result
        .iter()
        .filter(|n| compared(&n.array))
        .collect();
    // A result file this reader could not read says nothing of fio's exit status: it
    // is listed, and leaves the criterion inconclusive, never failed.
    let (unread, refused): (Vec<&&super::load::NoResult>, Vec<&&super::load::NoResult>) =
        no_result.iter().partition(|n| n.unreadable);
    let unreadable: Vec<String> = unread
        .iter()
        .map(|n| format!("`{}` {}", n.evidence, n.reason))
        .collect();
    for n in refused {
        problems.push(format!("`{}`: {}", n.evidence, n.reason));
        files.push(n.evidence.clone());
    }
    files.sort();
    files.dedup();
    let runs = loaded.runs.iter().filter(|r| compared(&r.array)).count();
    let total = runs + no_result.len();
    let clean = total.saturating_sub(files.len() + unreadable.len());
    // The verdict comes from every file it counted, clean ones included.
    let mut files: Vec<String> = loaded
        .runs
        .iter()
        .filter(|r| compared(&r.array))
        .map(|r| r.file.clone())
        .chain(files)
        .collect();
    files.sort();
    files.dedup();
    // The criterion is about both arrays: with one missing it is not measured.
    let missing = missing_sides(loaded, sides);
    if !missing.is_empty() && total > 0 {
        problems.push(format!("no results of {}", missing.join(" and ")));
    }
    let status = exit_status(total, &missing, &problems, &unreadable);
    if !unreadable.is_empty() {
        problems.push(format!(
            "{} of {} result files could not be read here (this says nothing of how fio exited): {}",
            unreadable.len(),
            total,
            unreadable.join("; ")
        ));
    }
    problems.extend(not_compared(loaded, sides, &compared));
    Verdict {
        status,
        measured: phrase!("{} of {} result files clean", count(clean), count(total)),
        files,
        note: Phrase::words(problems.join("; ")),
        ..Verdict::new(
            "storage.exit-status",
            format!(
                "Both arrays ({} and {}): every fio job exits with status 0",
                sides.baseline, sides.candidate
            ),
            "all",
            Phrase::dash(),
        )
    }
    .with_numbers(
        (total > 0).then_some(clean as f64),
        (total > 0).then_some(total as f64),
        None,
        UnitOf::count("result files"),
    )
}

/// Not measured without results of both arrays, failed on a problem, inconclusive on a
/// file this reader could not read, else passed.
fn exit_status(
    total: usize,
    missing: &[&str],
    problems: &[String],
    unreadable: &[String],
) -> Status {
    if total == 0 || !missing.is_empty() {
        Status::NotMeasured
    } else if !problems.is_empty() {
        Status::Fail
    } else if !unreadable.is_empty() {
        Status::Inconclusive
    } else {
        Status::Pass
    }
}

/// The arrays in the folder that are not the compared two: not judged here, and said.
fn not_compared(loaded: &Loaded, sides: &Sides, compared: &dyn Fn(&str) -> bool) -> Option<String> {
    let others: std::collections::BTreeSet<&str> = loaded
        .runs
        .iter()
        .filter(|r| !compared(&r.array))
        .map(|r| r.array.as_str())
        .collect();
    (!others.is_empty()).then(|| {
        format!(
            "not judged here: {} (not one of the compared arrays `{}` and `{}`)",
            others.into_iter().collect::<Vec<_>>().join(", "),
            sides.baseline,
            sides.candidate
        )
    })
}

/// What the compared arrays' runs say of fio's exit: a job with an error, a job that
/// moved no data, a run cut short or an error fio logged; and the files that say it.
fn exit_problems(
    loaded: &Loaded,
    groups: &[RunGroup],
    compared: &dyn Fn(&str) -> bool,
) -> (Vec<String>, Vec<String>) {
    let mut problems: Vec<String> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for g in groups.iter().filter(|g| compared(&g.run.array)) {
        if g.group.error != 0 {
            problems.push(format!(
                "`{}`: job `{}` error {}",
                g.run.file, g.group.jobname, g.group.error
            ));
            files.push(g.run.file.clone());
        } else if g.group.read.total_ios + g.group.write.total_ios == 0
            && g.run.output.documents > 0
        {
            let said = g
                .run
                .output
                .text_before
                .first()
                .map(|t| format!(" (fio: `{t}`)"))
                .unwrap_or_default();
            problems.push(format!(
                "`{}`: job `{}` moved no data{said}; fio exits non-zero for that",
                g.run.file, g.group.jobname
            ));
            files.push(g.run.file.clone());
        }
    }
    for run in loaded.runs.iter().filter(|r| compared(&r.array)) {
        let fio_errors: Vec<&String> = run
            .output
            .text_before
            .iter()
            .filter(|l| l.starts_with("fio: ") && l.contains("error"))
            .collect();
        if let Some(line) = crate::fio::params::interrupted(run.output) {
            problems.push(format!(
                "`{}`: fio logged `{line}`: the run was cut short",
                run.file
            ));
            files.push(run.file.clone());
        } else if let Some(first) = fio_errors.first() {
            if run.groups.iter().all(|g| g.error == 0) {
                problems.push(format!("`{}`: fio logged `{first}`", run.file));
                files.push(run.file.clone());
            }
        }
    }
    (problems, files)
}

/// The compared arrays with no result file at all.
fn missing_sides<'a>(loaded: &Loaded, sides: &'a Sides) -> Vec<&'a str> {
    [&sides.baseline, &sides.candidate]
        .into_iter()
        .filter(|side| {
            !loaded
                .runs
                .iter()
                .any(|r| r.array.eq_ignore_ascii_case(side))
                && !loaded
                    .no_result
                    .iter()
                    .any(|n| n.array.eq_ignore_ascii_case(side))
        })
        .map(String::as_str)
        .collect()
}

/// The sides to compare: the user's names, else the procedure's (`raid10`, `adp`).
pub fn sides(reference: &Reference, baseline: Option<&str>, candidate: Option<&str>) -> Sides {
    Sides {
        baseline: baseline.unwrap_or(&reference.arrays.baseline).to_string(),
        candidate: candidate.unwrap_or(&reference.arrays.candidate).to_string(),
    }
}
