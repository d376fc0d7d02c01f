//! Test 2's ladder for one variant and run, through `collectors/kv-ladder.sh`, into the
//! procedure's `results/<variant>-<run>-L<clients>.*` layout plus a manifest.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use crate::process::{which, Invocation, Runner};

pub const SCRIPT: &str = include_str!("../../collectors/kv-ladder.sh");

pub struct Plan {
    /// The load folder holding agents.json (the procedure's ~/bench/load).
    pub workdir: PathBuf,
    pub url: String,
    pub model: String,
    pub served_name: String,
    pub variant: String,
    pub run: String,
    pub levels: Vec<u32>,
    pub pause_s: u32,
    pub dry_run: bool,
}

#[derive(Serialize)]
struct Manifest<'a> {
    procedure: &'static str,
    tool: String,
    variant: &'a str,
    run: &'a str,
    url: &'a str,
    model: &'a str,
    levels: &'a [u32],
    command: String,
    exit: String,
}

fn invocation(plan: &Plan, script: &Path) -> Invocation {
    let mut inv = Invocation::new("bash")
        .arg(script.as_os_str())
        .arg(&plan.url)
        .arg(&plan.model)
        .arg(&plan.served_name)
        .arg(&plan.variant)
        .arg(&plan.run)
        .arg(plan.pause_s.to_string())
        .dir(&plan.workdir);
    for l in &plan.levels {
        inv = inv.arg(l.to_string());
    }
    inv.passthrough()
}

/// Why the plan cannot run here, before anything starts.
pub fn check(plan: &Plan) -> Vec<String> {
    let mut problems = Vec::new();
    if !plan.workdir.join("agents.json").is_file() {
        problems.push(format!(
            "no `{}`: create the workload file as the procedure's \"Prepare the workload directory\" says",
            plan.workdir.join("agents.json").display()
        ));
    }
    for tool in ["jq", "curl", "docker", "tee"] {
        if which(tool).is_none() {
            problems.push(format!("`{tool}` is not on PATH"));
        }
    }
    if plan.levels.is_empty() {
        problems.push("no levels".into());
    }
    let name_ok = !plan.variant.is_empty()
        && plan
            .variant
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !name_ok {
        problems.push(format!(
            "variant `{}`: use letters, digits and dashes (adp, gpu-only, lmcache)",
            plan.variant
        ));
    }
    problems
}

pub fn collect(plan: &Plan, runner: &dyn Runner) -> anyhow::Result<i32> {
    if plan.dry_run {
        crate::outln!(
            "# dry run: nothing runs; in `{}` this would run:",
            plan.workdir.display()
        );
        crate::outln!(
            "{}",
            invocation(plan, Path::new("collectors/kv-ladder.sh")).display()
        );
        return Ok(0);
    }
    let problems = check(plan);
    if !problems.is_empty() {
        for p in problems {
            eprintln!("error: {p}");
        }
        return Ok(2);
    }
    let tmp = tempfile::tempdir().context("failed to create a temporary folder")?;
    let script = tmp.path().join("kv-ladder.sh");
    std::fs::write(&script, SCRIPT).context("failed to write the collector script")?;
    let inv = invocation(plan, &script);
    let exit = match runner.run(&inv) {
        Ok(_) => "0".to_string(),
        Err(e) => {
            eprintln!("{e}");
            e.to_string()
        }
    };
    let results = plan.workdir.join("results");
    std::fs::create_dir_all(&results)?;
    let manifest = Manifest {
        procedure: "Reproducing the benchmarks: AI Key-Value Caching, test 2",
        tool: format!("reprobench {}", env!("CARGO_PKG_VERSION")),
        variant: &plan.variant,
        run: &plan.run,
        url: &plan.url,
        model: &plan.served_name,
        levels: &plan.levels,
        command: invocation(plan, Path::new("collectors/kv-ladder.sh")).display(),
        exit: exit.clone(),
    };
    let path = results.join(format!("{}-{}.manifest.json", plan.variant, plan.run));
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest)?)
        .with_context(|| format!("failed to write `{}`", path.display()))?;
    crate::outln!(
        "wrote {} levels into {}",
        plan.levels.len(),
        results.display()
    );
    Ok(if exit == "0" { 0 } else { 1 })
}
