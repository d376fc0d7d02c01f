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

use crate::process::Runner;

use crate::collect::outcome::Outcome;
use crate::collect::plan::{self, Collection, More};
use crate::collect::rounds::Rounds;
use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::lines;
use crate::collect::steps::{Check, Origin, Session, Step, Write};
use crate::collect::sysinfo;

mod fio_runs;
mod preflight;
mod sweep;
mod until_settled;

use fio_runs::fio_steps;
use preflight::{checks, devices_free, needed_programs, params, skipped_preparation};
use until_settled::after_round;

pub use fio_runs::round_name;
pub use sweep::{headline_runs, sweep_runs, Depth, Precondition, Run, Sweep};

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
