//! The procedure's layout, read from the catalog: `<array>/<job>.json` (fio) and
//! `<array>/iostat/<job>.iostat`. Anything unreadable is skipped with a reason.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Problem;
use crate::fio::groups::Group;
use crate::fio::signature::Signature;
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Item, Kind, Record};
use crate::parse::fio::FioOutput;
use crate::parse::iostat::IostatLog;

/// One fio output file.
#[derive(Debug, Clone)]
pub struct Run<'c> {
    /// The file, relative to the input folder.
    pub file: String,
    /// The folder holding it, relative to the input folder ("" at the top).
    pub array_dir: String,
    /// The folder's own name: the array (`raid10`, `adp`, or the user's).
    pub array: String,
    /// The file name without `.json`: the job name the procedure's helper gives it.
    pub stem: String,
    pub output: &'c FioOutput,
    pub groups: &'c [Group],
}

/// One reporting group of one run, with its shape.
#[derive(Debug, Clone)]
pub struct RunGroup<'a> {
    pub run: &'a Run<'a>,
    pub group: &'a Group,
    pub signature: Signature,
    /// `array/jobname`, with `#g<N>` when the file holds several groups.
    pub label: String,
    /// The job this group is a run of: its fio job name, or for a numbered repeat the
    /// job it repeats (`NAME-run2.json` is a run of `NAME`).
    pub job: String,
    /// Which run of its job it is: the repeat's number (`NAME-run3.json` is 3), 1 for
    /// the unnumbered file.
    pub number: u32,
}

#[derive(Debug, Clone)]
pub struct IostatFile<'c> {
    pub file: String,
    pub log: &'c IostatLog,
}

/// A job the helper started (its iostat log exists) for which fio left no usable JSON.
#[derive(Debug, Clone)]
pub struct NoResult {
    pub array_dir: String,
    /// The array the folder is (its name, or the input's at the top).
    pub array: String,
    pub job: String,
    pub evidence: String,
    pub reason: String,
    /// The result file is there but could not be read here (a special file, a link out
    /// of the folder, a read error): that is the reader's problem, and says nothing of
    /// how fio ran.
    pub unreadable: bool,
}

#[derive(Debug, Default)]
pub struct Loaded<'c> {
    pub runs: Vec<Run<'c>>,
    /// Keyed by (array_dir, job stem).
    pub iostat: BTreeMap<(String, String), IostatFile<'c>>,
    /// fio's own bandwidth logs (`--write_bw_log`), keyed by (array_dir, job): one per
    /// job with per-job logs, else one.
    pub bw_logs: BTreeMap<(String, String), Vec<(String, &'c crate::parse::fio_log::FioLog)>>,
    pub no_result: Vec<NoResult>,
    /// What the folder says about the arrays' member drives.
    pub evidence: super::evidence::Evidence<'c>,
}

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

/// The fio results this suite reads: fio JSON outside the SPDK article's layout that did
/// not run through SPDK's bdev engine (those are the spdk-raid suite's, wherever they are).
fn storage_fio(item: &Item) -> bool {
    !layout::in_spdk_tree(&item.rel)
        && !layout::is_manifest(&item.rel)
        && !item.fio().is_some_and(|o| o.uses_ioengine("spdk_bdev"))
}

/// Whether `item` is one of this suite's fio results or iostat logs.
pub fn claims(item: &Item) -> bool {
    match item.kind {
        Kind::Fio => storage_fio(item),
        Kind::Iostat | Kind::FioLog => !layout::in_spdk_tree(&item.rel),
        _ => false,
    }
}

/// Whether the catalog holds anything for this suite: an iostat log, or a fio result.
pub fn detect(catalog: &Catalog) -> bool {
    catalog.of(Kind::Iostat).next().is_some()
        || catalog
            .of(Kind::Fio)
            .any(|i| i.fio().is_some() && storage_fio(i))
}

pub fn load<'c>(catalog: &'c Catalog, skipped: &mut Vec<Skipped>) -> Loaded<'c> {
    let mut loaded = Loaded {
        evidence: super::evidence::Evidence::read(catalog),
        ..Loaded::default()
    };
    // Folders that hold an iostat/ subfolder are array folders by the procedure's layout.
    let iostat_items: Vec<&Item> = catalog
        .of(Kind::Iostat)
        .filter(|i| !layout::in_spdk_tree(&i.rel))
        .collect();
    let mut array_dirs: BTreeSet<String> =
        iostat_items.iter().map(|i| iostat_dir(&i.rel)).collect();
    read_results(catalog, &mut loaded, &mut array_dirs, skipped);
    // A result file in an array folder that the walk could not use (a special file, a
    // link out of the folder): fio wrote it; this reader cannot read it.
    for p in &catalog.problems {
        let dir = layout::dir_of(&p.file);
        if p.file.ends_with(".json") && array_dirs.contains(dir) {
            loaded.no_result.push(NoResult {
                array_dir: dir.to_string(),
                array: array_name(catalog, dir),
                job: layout::stem(&p.file).to_string(),
                evidence: p.file.clone(),
                reason: format!("could not be read here: {}", p.reason),
                unreadable: true,
            });
        }
    }
    for item in catalog
        .of(Kind::FioLog)
        .filter(|i| !layout::in_spdk_tree(&i.rel))
    {
        let Some(job) = crate::parse::fio_log::job_of(layout::file_name(&item.rel)) else {
            continue;
        };
        match &item.record {
            Ok(Record::FioLog(log)) => loaded
                .bw_logs
                .entry((iostat_dir(&item.rel), job.to_string()))
                .or_default()
                .push((item.rel.clone(), log)),
            Ok(_) => {}
            Err(p) => skipped.push(item.skipped(p)),
        }
    }
    // The jobs with a fio result or a known reason for none: looked up per iostat log.
    let mut accounted: BTreeSet<(String, String)> = loaded
        .runs
        .iter()
        .map(|r| (r.array_dir.clone(), r.stem.clone()))
        .chain(
            loaded
                .no_result
                .iter()
                .map(|n| (n.array_dir.clone(), n.job.clone())),
        )
        .collect();
    for item in iostat_items {
        read_iostat(catalog, item, &mut loaded, &mut accounted, skipped);
    }
    drop_implausible_iostat(&mut loaded, skipped);
    loaded
}

/// An array's name from its folder: files at the top of the input belong to the input
/// folder itself, as the procedure's script (`f.split("/")[-2]`) names them.
fn array_name(catalog: &Catalog, dir: &str) -> String {
    if dir.is_empty() {
        catalog.root_name.clone()
    } else {
        layout::name_of(dir).to_string()
    }
}

/// The array folder of a file in it or in its `iostat/` subfolder.
fn iostat_dir(rel: &str) -> String {
    let dir = layout::dir_of(rel);
    if layout::name_of(dir) == "iostat" {
        layout::dir_of(dir).to_string()
    } else {
        dir.to_string()
    }
}

/// The fio results: each readable one a run (its folder an array folder); one that is
/// not readable, in an array folder, a job with no result.
fn read_results<'c>(
    catalog: &'c Catalog,
    loaded: &mut Loaded<'c>,
    array_dirs: &mut BTreeSet<String>,
    skipped: &mut Vec<Skipped>,
) {
    let mut failed: Vec<(&Item, Skipped, bool)> = Vec::new();
    for item in catalog
        .items
        .iter()
        .filter(|i| matches!(i.kind, Kind::Fio | Kind::OtherJson) && storage_fio(i))
    {
        match &item.record {
            Ok(Record::Fio(fio)) => {
                let array_dir = layout::dir_of(&item.rel).to_string();
                array_dirs.insert(array_dir.clone());
                loaded.runs.push(Run {
                    file: item.rel.clone(),
                    array: array_name(catalog, &array_dir),
                    array_dir,
                    stem: item.stem().to_string(),
                    groups: &fio.groups,
                    output: &fio.output,
                });
            }
            Ok(_) => {
                // Valid JSON of another shape: not a fio file, unless it sits in an array.
                let p = Problem::at(1, "valid JSON, but not fio output (no `jobs` array)");
                failed.push((item, item.skipped(&p), true));
            }
            Err(p) => failed.push((item, item.skipped(p), item.kind == Kind::OtherJson)),
        }
    }
    for (item, skip, other) in failed {
        let dir = layout::dir_of(&item.rel);
        if other && !array_dirs.contains(dir) {
            continue; // another suite's file, outside the storage layout
        }
        if array_dirs.contains(dir) {
            loaded.no_result.push(NoResult {
                array_dir: dir.to_string(),
                array: array_name(catalog, dir),
                job: item.stem().to_string(),
                evidence: item.rel.clone(),
                reason: skip.reason.clone(),
                unreadable: crate::parse::text::is_unreadable(&skip.reason),
            });
        }
        skipped.push(skip);
    }
}

/// One job's iostat log; with no fio result beside it, a job fio refused.
fn read_iostat<'c>(
    catalog: &Catalog,
    item: &'c Item,
    loaded: &mut Loaded<'c>,
    accounted: &mut BTreeSet<(String, String)>,
    skipped: &mut Vec<Skipped>,
) {
    let key = (iostat_dir(&item.rel), item.stem().to_string());
    match &item.record {
        Ok(Record::Iostat(log)) => {
            loaded.iostat.insert(
                key.clone(),
                IostatFile {
                    file: item.rel.clone(),
                    log,
                },
            );
        }
        Ok(_) => {}
        Err(p) => skipped.push(item.skipped(p)),
    }
    if accounted.insert(key.clone()) {
        let expected = if key.0.is_empty() {
            format!("{}.json", key.1)
        } else {
            format!("{}/{}.json", key.0, key.1)
        };
        loaded.no_result.push(NoResult {
            array_dir: key.0.clone(),
            array: array_name(catalog, &key.0),
            job: key.1.clone(),
            evidence: item.rel.clone(),
            reason: format!(
                "no `{expected}`: fio wrote no JSON (it refuses bad options before running)"
            ),
            unreadable: false,
        });
    }
}

/// The samples an iostat log beside a job may hold: the procedure's helper runs
/// `iostat -xm 1` from just before fio starts until it ends, so about one per second of
/// the job, plus what fio spends before and after its runtime (laying out files, ramp
/// time): half the runtime again and 30 s more. Only an upper bound: a longer interval
/// gives fewer samples.
fn samples_allowed(runtime_s: f64) -> f64 {
    runtime_s * 1.5 + 30.0
}

/// The host most of an array folder's iostat logs name in their banners, when more than
/// half of those with a banner agree.
fn usual_hosts(loaded: &Loaded) -> BTreeMap<String, (String, usize)> {
    // Host names compared without case (DNS names have none).
    let mut counts: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    let mut named: BTreeMap<&str, usize> = BTreeMap::new();
    for ((dir, _), io) in &loaded.iostat {
        if let Some(h) = io.log.banner_host() {
            *counts
                .entry(dir)
                .or_default()
                .entry(h.to_ascii_lowercase())
                .or_default() += 1;
            *named.entry(dir).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter_map(|(dir, hosts)| {
            let (host, n) = hosts.into_iter().max_by_key(|(_, n)| *n)?;
            (n * 2 > named[dir]).then(|| (dir.to_string(), (host, n)))
        })
        .collect()
}

/// An iostat log that cannot be this job's is not used for it: what it says about the
/// drives would be about another run. It is skipped with the reason. Three signs, each
/// from the files: far more one-second samples than the job ran, a banner dated outside
/// the job's days (its start to when fio wrote its result, a day either side), and a
/// banner naming another host than most of the array folder's logs (case aside: another
/// machine's log renamed beside the job).
fn drop_implausible_iostat(loaded: &mut Loaded, skipped: &mut Vec<Skipped>) {
    let usual = usual_hosts(loaded);
    let mut drop = Vec::new();
    for (key, io) in &loaded.iostat {
        let Some(run) = loaded
            .runs
            .iter()
            .find(|r| r.array_dir == key.0 && r.stem == key.1)
        else {
            continue;
        };
        let runtime_ms = run
            .groups
            .iter()
            .map(|g| g.read.runtime_ms.max(g.write.runtime_ms))
            .max()
            .unwrap_or(0);
        let runtime_s = runtime_ms as f64 / 1000.0;
        let samples = io.log.samples.len();
        let date = |(y, m, d): (i64, u32, u32)| format!("{y}-{m:02}-{d:02}");
        // A timestamp before 2000 is no clock reading (files made by hand or from
        // published figures write 0): the date is then unknown, and not compared.
        let fio_clock = run.output.timestamp.filter(|&ts| ts >= 946_684_800);
        let why = if samples as f64 > samples_allowed(runtime_s) {
            Some(format!(
                "{samples} samples beside a job of {runtime_s:.1} s (`{}`); iostat -xm 1 runs only while the job does",
                run.file
            ))
        } else if let (Some(ts), Some(false)) = (
            fio_clock,
            // fio writes its timestamp when the job ends: the log is dated between the
            // job's start and its end.
            fio_clock.and_then(|ts| io.log.dated_within(ts - runtime_s.ceil() as i64, ts)),
        ) {
            Some(format!(
                "its banner is dated {} and fio wrote `{}` on {} (UTC); iostat runs beside the job",
                io.log
                    .banner_dates()
                    .into_iter()
                    .map(date)
                    .collect::<Vec<_>>()
                    .join(" or "),
                run.file,
                date(crate::parse::iostat_record::civil_from_unix(ts))
            ))
        } else {
            match (io.log.banner_host(), usual.get(&key.0)) {
                (Some(h), Some((usual_host, n))) if !h.eq_ignore_ascii_case(usual_host) => Some(format!(
                    "its banner names host `{h}`, and {n} of the folder's other iostat logs name `{usual_host}`"
                )),
                _ => None,
            }
        };
        if let Some(why) = why {
            drop.push(key.clone());
            skipped.push(Skipped {
                file: io.file.clone(),
                line: None,
                reason: format!("not this job's iostat log: {why}"),
            });
        }
    }
    for key in drop {
        loaded.iostat.remove(&key);
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

#[cfg(test)]
mod tests {
    use super::repeat_number;

    #[test]
    fn repeat_numbers_come_from_the_suffix_after_the_jobs_own_name() {
        let job = "randwrite-8k-j8-d8";
        for (stem, n) in [
            ("randwrite-8k-j8-d8-run2", Some(2)),
            ("randwrite-8k-j8-d8_run3", Some(3)),
            ("randwrite-8k-j8-d8.2", Some(2)),
            ("randwrite-8k-j8-d8-rep12", Some(12)),
            ("randwrite-8k-j8-d8", None),
            ("randwrite-8k-j8-d8-run", None),
            ("randwrite-8k-j8-d8-runx", None),
            ("randwrite-8k-j8-d8-fast", None),
            ("randwrite-8k-j8-d80", None),
            ("randwrite-8k-j8-d8-run99999999999", None),
        ] {
            assert_eq!(repeat_number(stem, job), n, "{stem}");
        }
    }
}
