//! `--until-settled`: the headline criteria a round can settle, and after each round
//! where they stand and which runs go again.

use crate::collect::rounds::{self, Next, Watched};
use crate::collect::scripts::Scripts;
use crate::collect::steps::Step;

use super::fio_steps;
use super::Plan;

/// The headline criteria a round of this array's runs can settle: those the procedure
/// judges on a run of the plan, when the array is one of the two it compares.
pub(super) fn watched(plan: &Plan) -> Vec<Watched> {
    let Ok(reference) = crate::suites::storage::Reference::load() else {
        return Vec::new();
    };
    let compared = [&reference.arrays.baseline, &reference.arrays.candidate]
        .iter()
        .any(|a| a.eq_ignore_ascii_case(&plan.array));
    if !compared {
        return Vec::new();
    }
    reference
        .workload
        .iter()
        .filter(|w| plan.runs.iter().any(|r| r.name == w.name))
        .map(|w| Watched {
            verdict: format!("{}.{}", crate::suites::storage::NAME, w.id),
            run: w.name.clone(),
        })
        .collect()
}

/// After a round: the watched criteria judged on the results folder as it is now, the
/// line that shows where they stand, and the next round's runs (or why the rounds stop).
pub(super) fn after_round(
    plan: &Plan,
    scripts: &Scripts,
    round: u32,
    max: u32,
) -> (String, Option<Vec<Step>>) {
    let watched = watched(plan);
    let verdicts: Vec<crate::model::verdict::Verdict> = match (plan.judge)(&plan.out) {
        Ok(v) => v,
        Err(e) => {
            return (
                format!("stopped: the results folder does not analyze: {e}"),
                None,
            )
        }
    };
    let standings = rounds::standings(&verdicts, &watched);
    match rounds::next(&standings, round, max) {
        Next::Stop(why) => (format!("stopped: {why}"), None),
        Next::Again(runs) => {
            let now: Vec<String> = standings
                .iter()
                .map(|s| format!("{}: {}", s.verdict, s.line))
                .collect();
            let steps = fio_steps(plan, scripts, round + 1, Some(&runs));
            (
                format!(
                    "{}; round {} runs again: {}",
                    now.join("; "),
                    round + 1,
                    runs.join(", ")
                ),
                Some(steps),
            )
        }
    }
}
