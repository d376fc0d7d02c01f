//! The storage procedure's fio runs on one array, in its layout: `OUT/<job>.json`,
//! `OUT/iostat/<job>.iostat`, plus `manifest.json` with the device and every command.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use crate::process::{Invocation, Runner};

use super::safety;

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
    /// The device the user named as safe to overwrite, if any.
    pub confirmed: Option<PathBuf>,
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
    exit_status: Vec<(String, String)>,
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

/// Checks the device, then runs (or, with dry-run, prints) every run. Returns the exit
/// code: 0 done, 1 a fio run failed, 2 refused.
pub fn collect(plan: &Plan, runner: &dyn Runner) -> anyhow::Result<i32> {
    let findings = safety::check(&plan.dev, runner);
    let confirmed = plan.confirmed.as_deref() == Some(plan.dev.as_path());
    if !findings.problems.is_empty() {
        for p in &findings.problems {
            eprintln!("{}: {p}", if confirmed { "warning" } else { "refused" });
        }
        if !confirmed {
            eprintln!(
                "refused to write to `{}`. If you are sure, name exactly it: --confirm-device {}",
                plan.dev.display(),
                plan.dev.display()
            );
            return Ok(2);
        }
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
    let mut statuses = Vec::new();
    let mut failed = 0;
    for r in &plan.runs {
        let inv = command(plan, &script, r);
        eprintln!("running {}", r.name);
        let status = match runner.run(&inv) {
            Ok(_) => "0".to_string(),
            Err(e) => {
                failed += 1;
                eprintln!("{e}");
                e.to_string()
            }
        };
        statuses.push((r.name.clone(), status));
    }
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
        exit_status: statuses,
    };
    let path = plan.out.join("manifest.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest)?)
        .with_context(|| format!("failed to write `{}`", path.display()))?;
    crate::outln!("wrote {} runs into {}", plan.runs.len(), plan.out.display());
    Ok(if failed > 0 { 1 } else { 0 })
}
