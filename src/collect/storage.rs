//! The storage procedure's fio runs on one array, in its layout: `OUT/<job>.json`,
//! `OUT/iostat/<job>.iostat`, plus `manifest.json` with the device and every command.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use crate::process::{Invocation, Runner};

use super::{guard, steps};

pub const SCRIPT: &str = include_str!("../../collectors/storage-fio.sh");

/// One run of the procedure's helper: its name and fio options.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub name: String,
    pub options: Vec<String>,
}

fn run(name: &str, opts: &str) -> Run {
    Run {
        name: name.into(),
        options: opts.split_whitespace().map(String::from).collect(),
    }
}

/// The procedure's precondition and five headline runs, with `size` and `runtime`.
pub fn headline(size: &str, runtime: u32) -> Vec<Run> {
    let tail = format!("--size={size} --runtime={runtime}");
    vec![
        run(
            "precondition",
            &format!(
                "--readwrite=write --bs=128k --numjobs=8 --iodepth=8 --size=1g --runtime={runtime}"
            ),
        ),
        run(
            "randread-8k-j32-d32",
            &format!("--readwrite=randread --bs=8k --numjobs=32 --iodepth=32 {tail}"),
        ),
        run(
            "randrw-8k-j128-d8",
            &format!("--readwrite=randrw --bs=8k --numjobs=128 --iodepth=8 --rwmixread=70 {tail}"),
        ),
        run(
            "randwrite-8k-j8-d8",
            &format!("--readwrite=randwrite --bs=8k --numjobs=8 --iodepth=8 {tail}"),
        ),
        run(
            "read-1m-j8-d4",
            &format!("--readwrite=read --bs=1m --numjobs=8 --iodepth=4 {tail}"),
        ),
        run(
            "write-1m-j8-d4",
            &format!("--readwrite=write --bs=1m --numjobs=8 --iodepth=4 {tail}"),
        ),
        run(
            "randread-8k-j1-d1",
            &format!("--readwrite=randread --bs=8k --numjobs=1 --iodepth=1 --ioengine=sync {tail}"),
        ),
    ]
}

pub struct Plan {
    pub array: String,
    pub dev: PathBuf,
    pub out: PathBuf,
    pub runs: Vec<Run>,
    pub dry_run: bool,
    /// Devices the user named as safe to overwrite although they look used.
    pub confirmed: Vec<PathBuf>,
    /// Stretch fio's runtime to the time asked even if the device is small.
    pub time_based: bool,
}

#[derive(Serialize)]
struct Manifest<'a> {
    procedure: &'static str,
    tool: String,
    array: &'a str,
    dev: String,
    commands: Vec<String>,
    steps: &'a [steps::Record],
    runs_written: usize,
    runs_failed: usize,
}

/// The command line the helper runs for `r`, as the user would type it.
fn command(plan: &Plan, script: &Path, r: &Run) -> Invocation {
    let mut inv = Invocation::new("bash")
        .arg(script.as_os_str())
        .arg(plan.out.as_os_str())
        .arg(plan.dev.as_os_str())
        .arg(&r.name);
    for o in &r.options {
        inv = inv.arg(o);
    }
    if plan.time_based {
        inv = inv.arg("--time_based=1");
    }
    inv
}

/// Checks the device, then runs (or, with dry-run, prints) every run; the guard looks at
/// the device again before each. Returns the exit code: 0 done, 1 a run failed, 2
/// refused.
pub fn collect(plan: &Plan, runner: &dyn Runner) -> anyhow::Result<i32> {
    let findings = guard::check(&plan.dev, runner);
    match guard::decide(&findings, &plan.confirmed) {
        guard::Decision::Refused(why) => {
            eprintln!("{why}");
            return Ok(2);
        }
        guard::Decision::Confirmed(warnings) => {
            for w in warnings {
                eprintln!("warning: {w} (confirmed with --confirm-device)");
            }
        }
        guard::Decision::Free => {}
    }
    let tmp = tempfile::tempdir().context("failed to create a temporary folder")?;
    let script = tmp.path().join("storage-fio.sh");
    std::fs::write(&script, SCRIPT).context("failed to write the collector script")?;
    if plan.dry_run {
        crate::outln!(
            "# dry run: nothing is written; these commands would run ({} on {}):",
            plan.array,
            plan.dev.display()
        );
        for r in &plan.runs {
            crate::outln!(
                "{}",
                command(plan, Path::new("collectors/storage-fio.sh"), r).display()
            );
        }
        return Ok(0);
    }
    std::fs::create_dir_all(&plan.out)
        .with_context(|| format!("failed to create `{}`", plan.out.display()))?;
    let list: Vec<steps::Step> = plan
        .runs
        .iter()
        .map(|r| steps::Step {
            name: format!("{}/{}", plan.array, r.name),
            invocation: command(plan, &script, r),
            writes: vec![plan.dev.clone()],
            check: steps::Check::Fio(plan.out.join(format!("{}.json", r.name))),
        })
        .collect();
    let ran = steps::execute(&list, &plan.confirmed, runner);
    let manifest = Manifest {
        procedure: "Reproducing the benchmarks: Storage acceleration",
        tool: format!("reprobench {}", env!("CARGO_PKG_VERSION")),
        array: &plan.array,
        dev: plan.dev.display().to_string(),
        commands: plan
            .runs
            .iter()
            .map(|r| command(plan, Path::new("collectors/storage-fio.sh"), r).display())
            .collect(),
        steps: &ran.records,
        runs_written: ran.ok,
        runs_failed: ran.failed,
    };
    let path = plan.out.join("manifest.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest)?)
        .with_context(|| format!("failed to write `{}`", path.display()))?;
    crate::outln!(
        "wrote {} of {} runs into {}{}",
        ran.ok,
        plan.runs.len(),
        plan.out.display(),
        if ran.failed > 0 {
            format!("; {} failed (see manifest.json)", ran.failed)
        } else {
            String::new()
        }
    );
    if let Some(why) = &ran.refused {
        eprintln!("{why}");
    }
    Ok(ran.exit_code())
}
