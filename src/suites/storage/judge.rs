//! The procedure's pass criteria: the five headline ratios and "every fio job exits with
//! status 0".

use crate::measurement::Unit;
use crate::phrase;
use crate::phrase::{count, fixed, qty, Phrase, UnitOf};
use crate::verdict::{Status, Verdict};

use super::load::{Loaded, RunGroup};
use super::reference::{Reference, Workload};
use crate::fio::signature::{parse_size, Signature};

/// Which array folders are compared: names from the user or the procedure.
#[derive(Debug, Clone)]
pub struct Sides {
    pub baseline: String,
    pub candidate: String,
}

/// The run of `array` that is the procedure's `w`: by the procedure's job name first,
/// then by shape. Returns the run and a note when the choice needs saying.
pub fn find_workload<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    w: &Workload,
) -> (Option<&'a RunGroup<'a>>, String) {
    let want = workload_signature(w);
    let in_array: Vec<&RunGroup> = groups
        .iter()
        .filter(|g| g.run.array.eq_ignore_ascii_case(array))
        .collect();
    let by_name: Vec<&RunGroup> = in_array
        .iter()
        .copied()
        .filter(|g| g.group.jobname == w.name || g.run.stem == w.name)
        .collect();
    if let Some(first) = by_name.first() {
        let mut note = String::new();
        if first.signature != want {
            note = format!(
                "`{}` ran {} where the procedure runs {}",
                first.run.file, first.signature, want
            );
        }
        if by_name.len() > 1 {
            note = join(
                &note,
                &format!(
                    "{} runs named `{}`; used `{}`",
                    by_name.len(),
                    w.name,
                    first.run.file
                ),
            );
        }
        return (Some(first), note);
    }
    let by_shape: Vec<&RunGroup> = in_array
        .iter()
        .copied()
        .filter(|g| g.signature == want)
        .collect();
    match by_shape.first() {
        Some(first) => {
            let mut note = format!("matched `{}` by its options ({want})", first.run.file);
            if by_shape.len() > 1 {
                note = join(
                    &note,
                    &format!("{} runs have this shape; used the first", by_shape.len()),
                );
            }
            (Some(first), note)
        }
        None => (None, String::new()),
    }
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

pub fn headline_verdict(groups: &[RunGroup], sides: &Sides, w: &Workload) -> Verdict {
    let (base, base_note) = find_workload(groups, &sides.baseline, w);
    let (cand, cand_note) = find_workload(groups, &sides.candidate, w);
    let cmp = if w.strict { ">" } else { ">=" };
    let mut v = Verdict {
        note: join(&base_note, &cand_note),
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
    let (Some(b), Some(c)) = (base, cand) else {
        let missing: Vec<&str> = [
            (base.is_none(), sides.baseline.as_str()),
            (cand.is_none(), sides.candidate.as_str()),
        ]
        .iter()
        .filter(|(m, _)| *m)
        .map(|(_, a)| *a)
        .collect();
        v.note = join(
            &format!(
                "no `{}` run (or one with its options) in {}",
                w.name,
                missing.join(" and ")
            ),
            &v.note,
        );
        return v;
    };
    let (bm, cm) = (mb_s(b), mb_s(c));
    v.set_measured((bm > 0.0).then(|| cm / bm));
    let ratio = if bm > 0.0 {
        phrase!("{}", qty(cm / bm, 2, Unit::Ratio))
    } else {
        Phrase::dash()
    };
    v.measured = phrase!("{} ({} vs {} MB/s)", ratio, fixed(cm, 0), fixed(bm, 0));
    for g in [b, c] {
        if g.group.error != 0 {
            v.status = Status::Inconclusive;
            v.note = join(
                &format!(
                    "fio reported error {} for `{}`: its bandwidth is not a result",
                    g.group.error, g.run.file
                ),
                &v.note,
            );
            return v;
        }
        let ios = g.group.read.total_ios + g.group.write.total_ios;
        let runtime = g.group.read.runtime_ms.max(g.group.write.runtime_ms);
        if ios == 0 || runtime == 0 {
            v.status = Status::Inconclusive;
            v.note = join(
                &format!(
                    "`{}` moved no data ({ios} I/Os in {runtime} ms): the job did not run, so there is nothing to compare",
                    g.run.file
                ),
                &v.note,
            );
            return v;
        }
    }
    let ratio = cm / bm;
    let ok = if w.strict {
        ratio > w.min_ratio
    } else {
        ratio >= w.min_ratio
    };
    v.status = if ok { Status::Pass } else { Status::Fail };
    v
}

/// "Both arrays: every fio job exits with status 0", over the two compared arrays only.
pub fn clean_exit_verdict(loaded: &Loaded, groups: &[RunGroup], sides: &Sides) -> Verdict {
    let compared = |array: &str| {
        array.eq_ignore_ascii_case(&sides.baseline) || array.eq_ignore_ascii_case(&sides.candidate)
    };
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
    let no_result: Vec<_> = loaded
        .no_result
        .iter()
        .filter(|n| compared(&n.array))
        .collect();
    for n in &no_result {
        problems.push(format!("`{}`: {}", n.evidence, n.reason));
        files.push(n.evidence.clone());
    }
    files.sort();
    files.dedup();
    let runs = loaded.runs.iter().filter(|r| compared(&r.array)).count();
    let total = runs + no_result.len();
    let clean = total.saturating_sub(files.len());
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
    let missing: Vec<&str> = [&sides.baseline, &sides.candidate]
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
        .collect();
    if !missing.is_empty() && total > 0 {
        problems.push(format!("no results of {}", missing.join(" and ")));
    }
    let status = if total == 0 || !missing.is_empty() {
        Status::NotMeasured
    } else if problems.is_empty() {
        Status::Pass
    } else {
        Status::Fail
    };
    let others: std::collections::BTreeSet<&str> = loaded
        .runs
        .iter()
        .filter(|r| !compared(&r.array))
        .map(|r| r.array.as_str())
        .collect();
    if !others.is_empty() {
        problems.push(format!(
            "not judged here: {} (not one of the compared arrays `{}` and `{}`)",
            others.into_iter().collect::<Vec<_>>().join(", "),
            sides.baseline,
            sides.candidate
        ));
    }
    Verdict {
        status,
        measured: phrase!("{} of {} result files clean", count(clean), count(total)),
        files,
        note: problems.join("; "),
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

/// The sides to compare: the user's names, else the procedure's (`raid10`, `adp`).
pub fn sides(reference: &Reference, baseline: Option<&str>, candidate: Option<&str>) -> Sides {
    Sides {
        baseline: baseline.unwrap_or(&reference.arrays.baseline).to_string(),
        candidate: candidate.unwrap_or(&reference.arrays.candidate).to_string(),
    }
}
