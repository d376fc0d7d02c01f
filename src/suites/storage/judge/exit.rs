//! "Both arrays: every fio job exits with status 0", over the two compared arrays: the
//! problems the runs show, the files not read, and the arrays not judged.

use crate::model::phrase::{count, Phrase, UnitOf};
use crate::model::verdict::{Status, Verdict};
use crate::phrase;
use crate::suites::storage::load::{Loaded, RunGroup};

use super::Sides;

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
        } else if g.group.total_err > 0 {
            problems.push(format!(
                "`{}`: job `{}` went on past {} I/O errors (total_err, continue_on_error)",
                g.run.file,
                g.group.jobname,
                crate::model::units::grouped(&g.group.total_err.to_string())
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
        if let Some(line) = crate::fio::params::interrupted(run.output) {
            problems.push(format!(
                "`{}`: fio logged `{line}`: the run was cut short",
                run.file
            ));
            files.push(run.file.clone());
        } else if let Some(first) = crate::fio::params::logged_error(run.output) {
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
