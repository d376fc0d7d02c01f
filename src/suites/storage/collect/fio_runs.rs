//! The fio steps of a round: one run of the procedure's helper per job, each held against
//! the procedure's `run` line (or the sweep's own options) for how it differs.

use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::{lines, option_differences};
use crate::collect::steps::{Check, Origin, Step, Write};

use super::{device, sweep_runs, Plan, Sweep};

/// The file stem of a job's run in round `round`: the job's own name in the first, a
/// numbered repeat after (`randwrite-8k-j8-d8-run2`), which analyze pools with the first.
pub fn round_name(name: &str, round: u32) -> String {
    if round <= 1 {
        name.to_string()
    } else {
        format!("{name}-run{round}")
    }
}

/// One fio run per job of the plan (of `only`, when given), each to its JSON under the
/// array's folder. Rounds after the first repeat the measured runs, not the precondition.
pub(super) fn fio_steps(
    plan: &Plan,
    scripts: &Scripts,
    round: u32,
    only: Option<&[String]>,
) -> Vec<Step> {
    let dev = device(plan);
    let mut out = Vec::new();
    let results = plan.out.join(&plan.array);
    let precondition = Sweep::load()
        .map(|s| s.precondition.name)
        .unwrap_or_else(|_| "precondition".into());
    for r in &plan.runs {
        if round > 1 && r.name == precondition {
            continue;
        }
        if only.is_some_and(|o| !o.contains(&r.name)) {
            continue;
        }
        let stem = round_name(&r.name, round);
        let mut inv = scripts
            .call("storage-fio.sh")
            .arg(results.as_os_str())
            .arg(dev.as_os_str())
            .arg(&stem);
        for o in &r.options {
            inv = inv.arg(o);
        }
        let mut ours = r.options.clone();
        if plan.time_based {
            inv = inv.arg("--time_based=1");
            ours.push("--time_based=1".into());
        }
        let (origin, mut differs) = run_origin(&r.name, &ours);
        if round > 1 {
            differs.insert(
                0,
                format!("round {round}: a repeat the procedure does not ask for (it runs each job once), written as `{stem}.json` and pooled with the job's other runs by analyze"),
            );
        }
        out.push(
            Step::new(
                format!("{}/{stem}", plan.array),
                origin,
                inv,
                Check::Fio(results.join(format!("{stem}.json"))),
            )
            .differs(differs)
            .writes(Write::to(&dev))
            .estimate(u64::from(plan.runtime_s) + 2),
        );
    }
    out
}

/// The procedure's `run` line for a run and how the run's options differ from it. A run
/// the procedure lists no line for is held against the sweep's own options at the
/// procedure's span and time (the sentence that asks for the sweep is its origin).
fn run_origin(name: &str, ours: &[String]) -> (Origin, Vec<String>) {
    let literal = lines::RUNS
        .iter()
        .find(|l| l.split_whitespace().nth(1) == Some(name));
    if let Some(line) = literal {
        let theirs: Vec<&str> = line.split_whitespace().skip(2).collect();
        return (
            Origin::procedure(lines::STORAGE_RUN, line),
            option_differences(ours, &theirs),
        );
    }
    let defaults = Sweep::load()
        .map(|s| sweep_runs(&s, &s.size, s.runtime_s))
        .unwrap_or_default();
    let mut differs = vec![
        "the procedure lists no command for this run: its options are reprobench's (reports/storage-sweep.toml), split into jobs and depth as the headline runs are".to_string(),
    ];
    if let Some(d) = defaults.iter().find(|d| d.name == name) {
        let theirs: Vec<&str> = d.options.iter().map(String::as_str).collect();
        differs.extend(option_differences(ours, &theirs));
    }
    (Origin::procedure(lines::STORAGE_RUN, lines::SWEEP), differs)
}
