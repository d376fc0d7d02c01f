//! What the collection works out before anything runs: the programs it needs, whether
//! every device is free, the checks the dry run lists and the session's parameters.

use std::path::PathBuf;

use crate::process::Runner;

use crate::collect::rounds::Rounds;

use super::until_settled::watched;
use super::{device, is_raid10, Plan};

/// The session's parameters, as its manifest records them.
pub(super) fn params(plan: &Plan, skipped: Option<&str>) -> serde_json::Value {
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
pub(super) fn checks(
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
pub(super) fn needed_programs(plan: &Plan) -> Vec<&'static str> {
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
pub(super) fn devices_free(plan: &Plan, runner: &dyn Runner) -> bool {
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
pub(super) fn skipped_preparation(plan: &Plan) -> Option<String> {
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
