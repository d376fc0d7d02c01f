//! The degraded criterion: with one member removed, every job completes cleanly on an
//! array that is degraded, not down.

use crate::model::phrase;
use crate::model::phrase::{count, Phrase, UnitOf};
use crate::model::verdict::{Status, Verdict};
use crate::phrase;
use crate::suites::spdk_raid::load::{ArrayDir, RaidState, Run};
use crate::suites::spdk_raid::reference::SpdkReference;

use super::classify::{level, unsupported};

pub(super) fn degraded_verdict(a: &ArrayDir, name: &str, r: &SpdkReference) -> Verdict {
    let mut v = Verdict::new(
        format!("spdk-raid.{name}.degraded"),
        format!(
            "{name}: with one member removed, every job completes with no error and moves data"
        ),
        "all degraded jobs clean",
        r.degraded
            .get(&a.array.to_ascii_lowercase())
            .map_or(Phrase::dash(), Phrase::text),
    )
    .with_numbers(
        None,
        Some(0.0),
        None,
        UnitOf::count("degraded jobs not clean"),
    );
    let runs: Vec<&Run> = a
        .runs
        .iter()
        .filter(|x| x.degraded && !unsupported(x, a, r))
        .collect();
    if runs.is_empty() && a.degraded_unread.is_empty() {
        v.note = Phrase::words(format!("no runs in {}/degraded/", a.dir));
        return v;
    }
    v.files = runs.iter().map(|x| x.file.clone()).collect();
    v.files
        .extend(a.degraded_unread.iter().map(|(f, _, _)| f.clone()));
    v.files
        .extend(a.degraded_state.iter().map(|s| s.file.clone()));
    // A job whose output says it failed is not clean; one whose output cannot be read is
    // not known to be: neither is a clean job.
    let mut bad: Vec<String> = runs
        .iter()
        .filter(|x| !x.clean())
        .map(|x| format!("`{}`: {}", x.file, not_clean(x)))
        .collect();
    bad.extend(
        a.degraded_unread
            .iter()
            .filter(|(_, _, failed)| *failed)
            .map(|(f, why, _)| format!("`{f}`: {why}")),
    );
    let unread: Vec<String> = a
        .degraded_unread
        .iter()
        .filter(|(_, _, failed)| !*failed)
        .map(|(f, why, _)| format!("`{f}`: {why}"))
        .collect();
    let jobs = runs.len() + a.degraded_unread.len();
    let state = a.degraded_state.as_ref();
    v.set_measured(Some(bad.len() as f64));
    v.measured = phrase!(
        "{} of {} jobs clean{}",
        count(jobs - bad.len() - unread.len()),
        count(jobs),
        state
            .map(|s| phrase!("; array {}", phrase::name(s.label())))
            .unwrap_or_default()
    );
    let (mut status, mut note) = degraded_status(a, state, &bad);
    if !unread.is_empty() && status == Status::Pass {
        status = Status::Inconclusive;
        note = format!(
            "a degraded job's output could not be read, so it is not known to be clean: {}",
            unread.join("; ")
        );
    }
    (v.status, v.note) = (status, Phrase::words(note));
    v
}

/// Why a run is not clean: cut short, an error, failed I/Os, or no I/O at all.
fn not_clean(x: &Run) -> String {
    if let Some(line) = &x.interrupted {
        format!("cut short (`{line}`)")
    } else if x.error != 0 {
        format!("error {} ({} bytes moved)", x.error, x.io_bytes)
    } else if x.failed_ios > 0 {
        format!("{} failed I/Os", x.failed_ios)
    } else {
        "no I/O".to_string()
    }
}

/// The degraded criterion's status and note, from the array's state after the member was
/// removed and the runs that were not clean.
fn degraded_status(a: &ArrayDir, state: Option<&RaidState>, bad: &[String]) -> (Status, String) {
    let survives = level(a).map(survivable);
    let missing = state.map(|s| s.members.saturating_sub(s.operational));
    match (state, missing, survives) {
        // The array the runs hit could not have served them: never a pass.
        (Some(s), Some(m), Some(k)) if s.state != "online" || m > k => (
            Status::Fail,
            format!(
                "`{}`: the array is {} with {m} member(s) missing; {} survives {k}: it is down, not degraded{}",
                s.file,
                s.state,
                level(a).unwrap_or("this level"),
                if bad.is_empty() { String::new() } else { format!("; {}", bad.join("; ")) }
            ),
        ),
        _ if !bad.is_empty() => (Status::Fail, bad.join("; ")),
        (Some(s), Some(0), _) => (
            Status::NotComparable,
            format!(
                "`{}` shows all {} members operational: the runs in degraded/ did not run degraded",
                s.file, s.members
            ),
        ),
        (Some(_), _, _) => (Status::Pass, String::new()),
        (None, _, _) => (
            Status::Inconclusive,
            format!(
                "every job is clean, but no `{}/degraded/bdev_raid_get_bdevs.json` shows that a member was removed",
                a.dir
            ),
        ),
    }
}

/// How many members a level can lose and still serve I/O.
fn survivable(level: &str) -> u64 {
    match level {
        "raid5" | "raid5f" | "raid10" => 1,
        "raid6" => 2,
        _ => 0,
    }
}
