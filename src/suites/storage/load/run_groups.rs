//! The loaded runs' look-ups: their reporting groups labelled and ordered (which job
//! each is a run of, the number of each numbered repeat `NAME-run2.json`), a run's
//! iostat log, the array folders.

use std::collections::{BTreeMap, BTreeSet};

use crate::fio::groups::Group;
use crate::fio::signature::Signature;

use super::{IostatFile, Loaded, Run, RunGroup};

impl<'c> Loaded<'c> {
    /// Every reporting group of every run, labelled `array/job`, or `path/job` where
    /// another folder has the same array name. A job run more than once in one array folder
    /// (`NAME.json`, `NAME-run2.json`, ...) is labelled with each run's number, `(run 1)`
    /// for the unnumbered file, and its runs follow one another in that order (by file
    /// name alone `NAME-run2.json` sorts before `NAME.json`).
    pub fn run_groups(&self) -> Vec<RunGroup<'_>> {
        // The folders each array name stands in: read once, so many runs stay linear.
        let mut folders: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for run in &self.runs {
            folders
                .entry(run.array.as_str())
                .or_default()
                .insert(run.array_dir.as_str());
        }
        let jobs = self.jobs();
        // The jobs, per folder, that have numbered repeats: their unnumbered run is run 1.
        let repeated: BTreeSet<(&str, &str)> = jobs
            .iter()
            .filter(|j| j.3.is_some())
            .map(|(run, _, job, _)| (run.array_dir.as_str(), job.as_str()))
            .collect();
        let mut out: Vec<(RunGroup<'_>, u32)> = Vec::with_capacity(jobs.len());
        for (run, g, job, number) in &jobs {
            // Two folders of one array name (`results/adp`, `results-newfio/adp`: two
            // result trees, two campaigns) are told apart by their paths.
            let array = if folders.get(run.array.as_str()).is_some_and(|f| f.len() > 1) {
                &run.array_dir
            } else {
                &run.array
            };
            let base = if run.groups.len() > 1 {
                format!("{array}/{job}#g{}", g.groupid)
            } else {
                format!("{array}/{job}")
            };
            let label = if repeated.contains(&(run.array_dir.as_str(), job.as_str())) {
                format!("{base} (run {})", number.unwrap_or(1))
            } else {
                base
            };
            out.push((
                RunGroup {
                    run,
                    group: g,
                    signature: Signature::from_options(&g.options),
                    label,
                    job: job.clone(),
                    number: number.unwrap_or(1),
                },
                number.unwrap_or(1),
            ));
        }
        // Each group keeps the place of its job's first group (same folder, job and
        // group), then goes by run number: only a numbered repeat moves.
        let job = |g: &RunGroup<'_>| (g.run.array_dir.clone(), g.job.clone(), g.group.groupid);
        let mut first = BTreeMap::new();
        for (i, (g, _)) in out.iter().enumerate() {
            first.entry(job(g)).or_insert(i);
        }
        let mut keyed: Vec<((usize, u32), RunGroup<'_>)> = out
            .into_iter()
            .map(|(g, n)| ((first[&job(&g)], n), g))
            .collect();
        keyed.sort_by_key(|(k, _)| *k);
        keyed.into_iter().map(|(_, g)| g).collect()
    }

    /// Every group of every run, in order, with the job it is a run of and its repeat
    /// number (None for the unnumbered file).
    fn jobs(&self) -> Vec<(&Run<'c>, &Group, String, Option<u32>)> {
        // What each folder holds (its files' stems and fio's job names): read once, so a
        // folder of many runs stays linear.
        let mut names: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for run in &self.runs {
            let here = names.entry(run.array_dir.as_str()).or_default();
            here.insert(run.stem.as_str());
            here.extend(run.groups.iter().map(|g| g.jobname.as_str()));
        }
        let empty = BTreeSet::new();
        self.runs
            .iter()
            .flat_map(|run| {
                let here = names.get(run.array_dir.as_str()).unwrap_or(&empty);
                run.groups.iter().map(move |g| {
                    let (job, number) = repeat_of_job(&run.stem, &g.jobname, here);
                    (run, g, job, number)
                })
            })
            .collect()
    }

    /// Each run's number among the runs of its job, in the order of `runs`: the number
    /// its labels and verdicts give (`NAME-run3.json` is 3, the unnumbered file 1).
    pub fn run_numbers(&self) -> Vec<u32> {
        let jobs = self.jobs();
        let mut at = 0;
        self.runs
            .iter()
            .map(|run| {
                let mine = &jobs[at..at + run.groups.len()];
                at += run.groups.len();
                mine.iter().filter_map(|j| j.3).min().unwrap_or(1)
            })
            .collect()
    }

    pub fn iostat_for(&self, run: &Run) -> Option<&IostatFile<'c>> {
        self.iostat.get(&(run.array_dir.clone(), run.stem.clone()))
    }

    pub fn array_dirs(&self) -> BTreeSet<String> {
        self.runs.iter().map(|r| r.array_dir.clone()).collect()
    }
}

/// The job a run of `jobname` in the file `stem` repeats, and its run number:
/// `NAME-run2.json` whose fio job is `NAME` (a copy, a hand-made repeat), or whose fio job
/// is named like the file (`--name=NAME-run2`, as the collector's repeats are) when the
/// folder holds `NAME` too (`here`: its files' stems and fio's job names). Otherwise the
/// job itself, no number.
fn repeat_of_job(stem: &str, jobname: &str, here: &BTreeSet<&str>) -> (String, Option<u32>) {
    if let Some(n) = repeat_number(stem, jobname) {
        return (jobname.to_string(), Some(n));
    }
    for (i, _) in stem.match_indices(['-', '_', '.']).rev() {
        let base = &stem[..i];
        if let Some(n) = repeat_number(stem, base).filter(|_| here.contains(base)) {
            return (base.to_string(), Some(n));
        }
    }
    (jobname.to_string(), None)
}

/// The number of a numbered repeat of the job `name`: `NAME-run2`, `NAME_run3`, `NAME.2`,
/// `NAME-rep2` give 2, 3, 2, 2; the unnumbered `NAME` and other names give none.
pub fn repeat_number(stem: &str, name: &str) -> Option<u32> {
    let rest = stem.strip_prefix(name)?.strip_prefix(['-', '_', '.'])?;
    let digits = rest
        .strip_prefix("run")
        .or_else(|| rest.strip_prefix("rep"))
        .unwrap_or(rest);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}
