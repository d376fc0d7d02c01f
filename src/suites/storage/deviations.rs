//! Each run of the compared arrays against the procedure's helper and headline runs: the
//! options in effect (from the fio JSON, not from the procedure), fio's own runtime, and
//! what every difference does to the comparison with the published numbers.

mod md_state;
mod options;
mod runtime;
mod shape;
#[cfg(test)]
mod tests;

use crate::fio::params;
use crate::model::deviation::Deviation;
use crate::suites::RanCommand;

use super::judge::{find_workload, Sides};
use super::load::{Loaded, RunGroup};
use super::reference::{Reference, Workload};
use super::steady::Steady;

use options::{device, helper_options, size};
use runtime::{not_steady, runtime};
use shape::{name_mismatch, not_one_whole_run, shape};

fn on_side(g: &RunGroup, sides: &Sides) -> bool {
    g.run.array.eq_ignore_ascii_case(&sides.baseline)
        || g.run.array.eq_ignore_ascii_case(&sides.candidate)
}

/// Every deviation of the runs in the two compared arrays.
pub fn deviations(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
    steadies: &[Option<(Steady, String)>],
) -> Vec<Deviation> {
    let mut out = Vec::new();
    // Which headline verdicts each run feeds, found once.
    let mut matched: Vec<(&RunGroup, &Workload)> = Vec::new();
    for w in &reference.workload {
        for side in [&sides.baseline, &sides.candidate] {
            if let Some(g) = find_workload(groups, side, w).0 {
                matched.push((g, w));
            }
        }
    }
    let feeds = |g: &RunGroup| -> Vec<&Workload> {
        matched
            .iter()
            .filter(|(m, _)| std::ptr::eq(m.group, g.group))
            .map(|(_, w)| *w)
            .collect()
    };
    for (g, steady) in groups
        .iter()
        .zip(steadies)
        .filter(|(g, _)| on_side(g, sides))
    {
        let workloads = feeds(g);
        let base = |d: Deviation| {
            let mut d = d.subject(g.label.clone()).file(g.run.file.clone());
            for w in &workloads {
                d = d.verdict(format!("storage.{}", w.id));
            }
            d
        };
        out.extend(not_one_whole_run(g, reference).into_iter().map(base));
        out.extend(md_state::degraded(loaded, g).map(base));
        let first = g
            .run
            .output
            .jobs
            .iter()
            .find(|j| j.jobname == g.group.jobname);
        let recorded = first.is_some_and(|j| params::recorded(g.run.output, j));
        if !recorded {
            out.push(base(
                Deviation::new("fio options", "recorded by the helper", "unknown")
                    .effect(
                        "the file records no `global options` and no job options: how the job ran (shape, runtime, flags) is unknown",
                        true,
                    )
                    .source(reference.procedure.source.clone()),
            ));
            continue;
        }
        for w in &workloads {
            out.extend(shape(g, w).into_iter().map(base));
        }
        if workloads.is_empty() {
            out.extend(name_mismatch(g).map(base));
        }
        let headline = !workloads.is_empty();
        let compared = headline || super::observe::beside_published(g);
        out.extend(runtime(g, reference, compared, steady.as_ref()).map(base));
        if headline {
            out.extend(not_steady(g, reference, steady.as_ref()).map(base));
        }
        if headline {
            out.extend(size(g, reference).map(base));
        }
        out.extend(helper_options(g, reference).into_iter().map(base));
        out.extend(device(g, sides, reference).map(base));
    }
    out
}

/// The fio command each run of the compared arrays ran, rebuilt from its JSON.
pub fn commands_ran(groups: &[RunGroup], sides: &Sides) -> Vec<RanCommand> {
    let mut out: Vec<RanCommand> = groups
        .iter()
        .filter(|g| on_side(g, sides))
        .map(|g| {
            let first = g
                .run
                .output
                .jobs
                .iter()
                .find(|j| j.jobname == g.group.jobname);
            let recorded = first.is_some_and(|j| params::recorded(g.run.output, j));
            RanCommand {
                subject: g.label.clone(),
                command: if recorded {
                    params::command_line(&g.group.jobname, &g.group.options)
                } else {
                    "unknown: the file records no fio options".into()
                },
                source: g.run.file.clone(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}
