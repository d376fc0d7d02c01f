//! `collect storage`: the storage procedure on one array, end to end. For RAID10: the
//! system facts, the drive preparation (`blkdiscard` of each drive, `mdadm --create ...
//! --assume-clean`, `[UUUU]` checked in `/proc/mdstat`), the precondition and the
//! 63-configuration sweep (`iostat -xm 1` beside each run), then `mdadm --stop`,
//! `--zero-superblock` and `blkdiscard` as the procedure does before the ADP bundle. For
//! ADP: the system facts, the card's state (`systemctl is-active pliostore@N`, `pliocli`),
//! the precondition and the sweep. Results in `OUT/<array>/` as the procedure's helper
//! writes them; the manifest in `OUT/manifests/storage-<array>.json`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::process::Runner;

use crate::collect::outcome::Outcome;
use crate::collect::plan::{self, Collection, More};
use crate::collect::rounds::{self, Next, Rounds, Watched};
use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::{lines, option_differences};
use crate::collect::steps::{Check, Origin, Session, Step, Write};
use crate::collect::sysinfo;

/// The storage procedure's collector scripts (`collectors/storage/`): its `run()` helper
/// (fio with iostat beside it) and the drives' preparation and teardown.
pub const SCRIPTS: &[(&str, &str)] = &[
    (
        "storage-fio.sh",
        include_str!("../../../collectors/storage/storage-fio.sh"),
    ),
    (
        "storage-drives.sh",
        include_str!("../../../collectors/storage/storage-drives.sh"),
    ),
];

pub const SWEEP_TOML: &str = include_str!("../../../reports/storage-sweep.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Sweep {
    pub source: String,
    pub block_sizes: Vec<String>,
    pub random: Vec<String>,
    pub sequential: Vec<String>,
    pub rwmixread: u32,
    pub size: String,
    pub runtime_s: u32,
    pub precondition: Precondition,
    pub depth: Vec<Depth>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Precondition {
    pub name: String,
    pub options: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Depth {
    pub qd: u32,
    pub numjobs: u32,
    pub iodepth: u32,
    #[serde(default)]
    pub ioengine: Option<String>,
    #[serde(default)]
    pub writes_numjobs: Option<u32>,
    #[serde(default)]
    pub writes_iodepth: Option<u32>,
}

impl Sweep {
    pub fn load() -> Result<Sweep, toml::de::Error> {
        toml::from_str(SWEEP_TOML)
    }
}

/// One run of the procedure's helper: its name and fio options.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Run {
    pub name: String,
    pub options: Vec<String>,
}

fn split(opts: &str) -> Vec<String> {
    opts.split_whitespace().map(String::from).collect()
}

/// The precondition and the 63 runs, with the span and time asked.
pub fn sweep_runs(sweep: &Sweep, size: &str, runtime: u32) -> Vec<Run> {
    let mut runs = vec![Run {
        name: sweep.precondition.name.clone(),
        options: split(&format!(
            "{} --runtime={runtime}",
            sweep.precondition.options
        )),
    }];
    for bs in &sweep.block_sizes {
        let kinds = if bs.ends_with('m') {
            &sweep.sequential
        } else {
            &sweep.random
        };
        for rw in kinds {
            for d in &sweep.depth {
                let reads = rw == "randread" || rw == "read";
                let (nj, io) = match (reads, d.writes_numjobs, d.writes_iodepth) {
                    (false, Some(n), Some(i)) => (n, i),
                    _ => (d.numjobs, d.iodepth),
                };
                let mut o = format!("--readwrite={rw} --bs={bs} --numjobs={nj} --iodepth={io}");
                if rw == "randrw" || rw == "rw" {
                    o.push_str(&format!(" --rwmixread={}", sweep.rwmixread));
                }
                o.push_str(&format!(" --size={size} --runtime={runtime}"));
                if let Some(e) = &d.ioengine {
                    o.push_str(&format!(" --ioengine={e}"));
                }
                runs.push(Run {
                    name: format!("{rw}-{bs}-j{nj}-d{io}"),
                    options: split(&o),
                });
            }
        }
    }
    runs
}

/// The procedure's precondition, five headline runs and QD 1 read, for a quick pass.
pub fn headline_runs(sweep: &Sweep, size: &str, runtime: u32) -> Vec<Run> {
    let keep = [
        "precondition",
        "randread-8k-j32-d32",
        "randrw-8k-j128-d8",
        "randwrite-8k-j8-d8",
        "read-1m-j8-d4",
        "write-1m-j8-d4",
        "randread-8k-j1-d1",
    ];
    let all = sweep_runs(sweep, size, runtime);
    keep.iter()
        .filter_map(|k| all.iter().find(|r| r.name == *k).cloned())
        .collect()
}

pub struct Plan {
    pub array: String,
    pub dev: Option<PathBuf>,
    pub drives: Vec<PathBuf>,
    /// The results folder: runs in `out/<array>/`, facts in `out/system/`.
    pub out: PathBuf,
    pub runs: Vec<Run>,
    pub prepare: bool,
    pub teardown: bool,
    pub xdp: u32,
    pub md: PathBuf,
    pub dry_run: bool,
    pub fresh: bool,
    pub confirmed: Vec<PathBuf>,
    pub time_based: bool,
    pub runtime_s: u32,
    /// Rounds of the measured runs (`--repeat`, `--until-settled`).
    pub rounds: Rounds,
    /// Judges the results folder as `analyze` does, for `--until-settled` (handed in:
    /// the analysis sits above the suites).
    pub judge: Judge,
}

pub use crate::collect::plugin::Judge;

fn is_raid10(plan: &Plan) -> bool {
    plan.array.eq_ignore_ascii_case("raid10")
}

/// Where fio runs: `--dev`, or for RAID10 the procedure's `/dev/md126`.
fn device(plan: &Plan) -> PathBuf {
    plan.dev.clone().unwrap_or_else(|| {
        if is_raid10(plan) {
            plan.md.clone()
        } else {
            PathBuf::from("<the ADP block device>")
        }
    })
}

/// `[UUUU]` for the array in `/proc/mdstat`, as the procedure asks before fio runs.
fn mdstat_all_up(system: &Path, md: &Path, drives: usize) -> Outcome {
    let name = md
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok(text) = std::fs::read_to_string(system.join("mdstat.txt")) else {
        return Outcome::Failed("no /proc/mdstat was saved".into());
    };
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.starts_with(&format!("{name} ")) {
            let status = lines.next().unwrap_or("");
            let want = format!("[{}]", "U".repeat(drives));
            return if status.contains(&want) {
                Outcome::Ok
            } else {
                Outcome::Failed(format!(
                    "{name} is not {want} in /proc/mdstat: `{}`",
                    status.trim()
                ))
            };
        }
    }
    Outcome::Failed(format!("{name} is not in /proc/mdstat"))
}

fn steps(plan: &Plan, scripts: &Scripts) -> Vec<Step> {
    let mut out = sysinfo::steps(&plan.out, scripts, plan.xdp, None, None);
    if !is_raid10(plan) {
        // The card's own steps capture these two (and check the status): not twice.
        out.retain(|s| {
            s.name != "sysinfo/pliocli-system-get_status.txt"
                && s.name != "sysinfo/pliocli-raid-get_raid_info.txt"
        });
    }
    if is_raid10(plan) && plan.prepare {
        out.extend(prepare_steps(plan, scripts));
    }
    if !is_raid10(plan) {
        out.extend(card_steps(plan, scripts));
    }
    out.extend(fio_steps(plan, scripts, 1, None));
    if let Rounds::Fixed(n) = plan.rounds {
        for round in 2..=n {
            out.extend(fio_steps(plan, scripts, round, None));
        }
    }
    out
}

/// What runs after the last round: the RAID10 teardown.
fn tail_steps(plan: &Plan, scripts: &Scripts) -> Vec<Step> {
    if is_raid10(plan) && plan.teardown {
        teardown_steps(plan, scripts)
    } else {
        Vec::new()
    }
}

/// The headline criteria a round of this array's runs can settle: those the procedure
/// judges on a run of the plan, when the array is one of the two it compares.
fn watched(plan: &Plan) -> Vec<Watched> {
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
fn after_round(
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

/// RAID10: discard the drives, build the array, check all its members are up.
fn prepare_steps(plan: &Plan, scripts: &Scripts) -> Vec<Step> {
    let system = plan.out.join("system");
    let drives = || scripts.call("storage-drives.sh");
    let mut out = Vec::new();
    for d in &plan.drives {
        out.push(
            Step::new(
                format!("prepare/blkdiscard {}", d.display()),
                Origin::procedure(lines::STORAGE_PREPARE, lines::BLKDISCARD),
                drives().arg("discard").arg(d.as_os_str()),
                Check::Exit,
            )
            .writes(Write::claimed(d))
            .estimate(30)
            .required(),
        );
    }
    let mut create = drives().arg("create").arg(plan.md.as_os_str());
    for d in &plan.drives {
        create = create.arg(d.as_os_str());
    }
    let mut step = Step::new(
        format!("prepare/mdadm --create {}", plan.md.display()),
        Origin::procedure(lines::STORAGE_RAID10, lines::MDADM_CREATE),
        create,
        Check::Exit,
    )
    .estimate(10)
    .required();
    for d in &plan.drives {
        step = step.writes(Write::claimed(d));
    }
    out.push(step);
    let (sys, md, n) = (system.clone(), plan.md.clone(), plan.drives.len());
    out.push(
        Step::new(
            "prepare/verify [UUUU]".to_string(),
            Origin::procedure(lines::STORAGE_RAID10, lines::MDSTAT),
            drives()
                .arg("verify")
                .arg(plan.md.as_os_str())
                .arg(system.as_os_str()),
            Check::Custom(Arc::new(move |exit| match exit {
                Ok(_) => mdstat_all_up(&sys, &md, n),
                Err(e) => Outcome::Failed(e.to_string()),
            })),
        )
        .required(),
    );
    out
}

/// The card: its service active, its status OK, its RAID info saved.
fn card_steps(plan: &Plan, scripts: &Scripts) -> Vec<Step> {
    let system = plan.out.join("system");
    let mut out = Vec::new();
    let xdp = plan.xdp.to_string();
    let capture = |file: &str, cmd: &[&str]| {
        let mut inv = scripts
            .call("capture.sh")
            .arg(system.join(file).as_os_str());
        for c in cmd {
            inv = inv.arg(c);
        }
        inv
    };
    out.push(
        Step::new(
            format!("card/systemctl is-active pliostore@{xdp}"),
            Origin::procedure(lines::STORAGE_SWITCH, lines::SYSTEMCTL),
            capture(
                "systemctl-pliostore.txt",
                &["systemctl", "is-active", &format!("pliostore@{xdp}")],
            ),
            Check::Exit,
        )
        .required(),
    );
    let sys = system.clone();
    out.push(
        Step::new(
            "card/pliocli system get_status".to_string(),
            Origin::procedure(lines::STORAGE_SWITCH, lines::GET_STATUS),
            capture(
                "pliocli-system-get_status.txt",
                &["pliocli", "system", "get_status"],
            ),
            Check::Custom(Arc::new(move |exit| {
                if let Err(e) = exit {
                    return Outcome::Failed(e.to_string());
                }
                let t = std::fs::read_to_string(sys.join("pliocli-system-get_status.txt"))
                    .unwrap_or_default();
                if t.to_ascii_uppercase().contains("OK") {
                    Outcome::Ok
                } else {
                    Outcome::Failed("pliocli does not report an OK aggregated status".into())
                }
            })),
        )
        .required(),
    );
    out.push(Step::new(
        format!("card/pliocli raid get_raid_info -x {xdp}"),
        Origin::procedure(lines::STORAGE_SWITCH, lines::RAID_INFO),
        capture(
            "pliocli-raid-get_raid_info.txt",
            &["pliocli", "raid", "get_raid_info", "-x", &xdp],
        ),
        Check::Exit,
    ));
    out
}

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
fn fio_steps(plan: &Plan, scripts: &Scripts, round: u32, only: Option<&[String]>) -> Vec<Step> {
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

/// RAID10: stop the array, zero the members' superblocks, discard the drives.
fn teardown_steps(plan: &Plan, scripts: &Scripts) -> Vec<Step> {
    let drives = || scripts.call("storage-drives.sh");
    let mut out = Vec::new();
    out.push(Step::new(
        format!("teardown/mdadm --stop {}", plan.md.display()),
        Origin::procedure(lines::STORAGE_SWITCH, lines::MDADM_STOP),
        drives().arg("stop").arg(plan.md.as_os_str()),
        Check::Exit,
    ));
    let mut zero = drives().arg("zero");
    for d in &plan.drives {
        zero = zero.arg(d.as_os_str());
    }
    let mut step = Step::new(
        "teardown/mdadm --zero-superblock",
        Origin::procedure(lines::STORAGE_SWITCH, lines::MDADM_ZERO),
        zero,
        Check::Exit,
    );
    for d in &plan.drives {
        step = step.writes(Write {
            expect: Some("linux_raid_member"),
            ..Write::claimed(d)
        });
    }
    out.push(step);
    for d in &plan.drives {
        out.push(
            Step::new(
                format!("teardown/blkdiscard {}", d.display()),
                Origin::procedure(lines::STORAGE_SWITCH, lines::BLKDISCARD),
                drives().arg("discard").arg(d.as_os_str()),
                Check::Exit,
            )
            .writes(Write::claimed(d))
            .estimate(30),
        );
    }
    out
}

/// Checks what it can before anything runs, then runs (or prints) every step.
pub fn collect(plan: &Plan, runner: &dyn Runner) -> anyhow::Result<i32> {
    let scripts = Scripts::write_with(SCRIPTS)?;
    let mut list = steps(plan, &scripts);
    let tail = tail_steps(plan, &scripts);
    let settle = match plan.rounds {
        Rounds::UntilSettled(max) => Some(max),
        Rounds::Fixed(_) => None,
    };
    if settle.is_none() || plan.dry_run {
        list.extend(tail.iter().cloned());
    }
    let mut preflight = Vec::new();
    let needed = needed_programs(plan);
    preflight.extend(plan::missing_programs(&needed));
    if !is_raid10(plan) && plan.dev.is_none() {
        preflight
            .push("--dev: name the ADP block device (see `lsblk -d -o NAME,SIZE,MODEL`)".into());
    }
    if !devices_free(plan, runner) {
        return Ok(2);
    }
    if let Some(p) = plan::space_problem(&plan.out, 64 << 20, runner) {
        preflight.push(p);
    }
    let skipped_preparation = skipped_preparation(plan);
    let params = params(plan, skipped_preparation.as_deref());
    let manifest = plan.out.join("manifests").join(format!(
        "{}-{}.json",
        crate::suites::storage::NAME,
        plan.array
    ));
    let mut session = Session::new(
        manifest.clone(),
        "Reproducing the benchmarks: Storage acceleration",
        &format!("{}-{}", crate::suites::storage::NAME, plan.array),
        params,
        plan.confirmed.clone(),
    );
    session.resume = !plan.fresh;
    let checks = checks(
        plan,
        &needed,
        skipped_preparation.as_deref(),
        settle,
        tail.is_empty(),
    );
    let collection = Collection {
        session,
        steps: list,
        scripts: &scripts,
        preflight,
        checks,
        dry_run: plan.dry_run,
    };
    let code = match settle {
        Some(max) if !plan.dry_run => {
            let mut next = |round: u32| after_round(plan, &scripts, round, max);
            collection.run_with(
                runner,
                Some(More {
                    next: &mut next,
                    tail,
                }),
            )?
        }
        _ => collection.run(runner)?,
    };
    if !plan.dry_run && code != 2 {
        plan::index_manifest(
            &plan.out,
            &format!("{}-{}", crate::suites::storage::NAME, plan.array),
            &manifest,
            &[("procedure", "Storage acceleration".to_string())],
        )?;
    }
    Ok(code)
}

/// The session's parameters, as its manifest records them.
fn params(plan: &Plan, skipped: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "array": plan.array,
        "dev": device(plan),
        "drives": plan.drives,
        "runs": plan.runs,
        "prepare": plan.prepare,
        "prepare_skipped": skipped,
        "teardown": plan.teardown,
        "time_based": plan.time_based,
        // Another number of rounds collects something else: nothing is taken as done.
        "rounds": match plan.rounds {
            Rounds::Fixed(n) => format!("{n}"),
            Rounds::UntilSettled(max) => format!("until settled, at most {max}"),
        },
    })
}

/// What the collection checks before it runs, as the dry run lists them.
fn checks(
    plan: &Plan,
    needed: &[&str],
    skipped: Option<&str>,
    settle: Option<u32>,
    no_tail: bool,
) -> Vec<String> {
    let mut checks = vec![
        format!("programs: {}", needed.join(", ")),
        format!("free space for `{}`", plan.out.display()),
        "each device: not mounted (directly, through a partition or an md/dm/LVM device), not swap, not held by md/dm/LVM; a signature needs --confirm-device".into(),
    ];
    if let Some(why) = skipped {
        checks.push(format!("note: {why}"));
    }
    if let Some(max) = settle {
        let watched: Vec<String> = watched(plan).into_iter().map(|w| w.verdict).collect();
        checks.push(format!(
            "then up to {max} rounds in all: after each, the criteria {} are judged on `{}` as analyze judges them; the runs of those not yet settled (pass or fail by a 95% interval over repeated runs; one run a side settles nothing) run again as NAME-runK.json, before {}",
            if watched.is_empty() { "(none for this array and these runs)".to_string() } else { watched.join(", ") },
            plan.out.display(),
            if no_tail { "the collection ends" } else { "the teardown" },
        ));
    }
    checks
}

/// The programs the collection runs.
fn needed_programs(plan: &Plan) -> Vec<&'static str> {
    let mut needed = vec!["fio", "iostat", "bash"];
    if is_raid10(plan) && (plan.prepare || plan.teardown) {
        needed.extend(["blkdiscard", "mdadm"]);
    }
    if !crate::process::is_root() {
        needed.push("sudo");
    }
    if !is_raid10(plan) {
        needed.extend(["pliocli", "systemctl"]);
    }
    needed
}

/// Before anything writes, every device as it is now: false (the reason said) when one
/// is in use, at once. A dry run says so too, but never refuses a device that is not
/// there.
fn devices_free(plan: &Plan, runner: &dyn Runner) -> bool {
    let mut devices: Vec<PathBuf> = plan.drives.clone();
    if let Some(d) = &plan.dev {
        devices.push(d.clone());
    }
    if is_raid10(plan) && plan.dev.is_none() && !plan.prepare {
        devices.push(plan.md.clone());
    }
    for d in &devices {
        if plan.dry_run && !d.exists() {
            continue;
        }
        // The array the preparation creates does not exist yet.
        if is_raid10(plan) && plan.prepare && *d == plan.md {
            continue;
        }
        let found = crate::collect::guard::check(d, runner);
        if plan.dry_run && found.in_use.is_empty() {
            if let Some(why) = &found.unchecked {
                crate::errln!("note: {why}; the real run refuses the device until it can check");
                continue;
            }
        }
        match crate::collect::guard::decide(&found, &plan.confirmed) {
            crate::collect::guard::Decision::Refused(why) => {
                crate::errln!("{why}");
                return false;
            }
            crate::collect::guard::Decision::Confirmed(warnings) => {
                for w in warnings {
                    crate::errln!("warning: {w} (confirmed with --confirm-device)");
                }
            }
            crate::collect::guard::Decision::Free => {}
        }
    }
    true
}

/// What the procedure does that this collection will not, said before it runs: the
/// drive preparation, where it is skipped.
fn skipped_preparation(plan: &Plan) -> Option<String> {
    (is_raid10(plan) && !plan.prepare).then(|| {
        format!(
            "the drive preparation (blkdiscard of each drive, mdadm --create {}, the [UUUU] check) is not done: {}; the procedure does it before the RAID10 runs",
            plan.md.display(),
            match &plan.dev {
                Some(d) if *d != plan.md => format!("--dev {} is not the md device it builds", d.display()),
                _ => "--no-prepare".to_string(),
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_is_63_runs_holding_the_headline_and_observed_shapes() {
        let s = Sweep::load().expect("storage-sweep.toml parses");
        let runs = sweep_runs(&s, "3800000000000", 60);
        assert_eq!(runs.len(), 64, "the precondition and 63 runs");
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        for want in [
            "randread-8k-j32-d32",
            "randrw-8k-j128-d8",
            "randwrite-8k-j8-d8",
            "read-1m-j8-d4",
            "write-1m-j8-d4",
            "randread-8k-j1-d1",
            "randrw-8k-j32-d8",
        ] {
            assert!(names.contains(&want), "{want}");
        }
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "names are unique");
        let qd1 = runs
            .iter()
            .find(|r| r.name == "randwrite-16k-j1-d1")
            .expect("qd1");
        assert!(qd1.options.contains(&"--ioengine=sync".to_string()));
        let mixed = runs
            .iter()
            .find(|r| r.name == "randrw-8k-j128-d8")
            .expect("mixed");
        assert!(mixed.options.contains(&"--rwmixread=70".to_string()));
        assert_eq!(headline_runs(&s, "1g", 4).len(), 7);
    }
}
