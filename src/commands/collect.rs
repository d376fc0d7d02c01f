//! `reprobench collect`: what is built in (the system facts, a manifest's replay) and
//! what every collection is handed; each procedure's own collection is its suite's
//! (`Suite::collector`), put on the command line by `command_line`.

use crate::cli::{CollectCommand, CollectSysinfoArgs};
use crate::collect::plan::{expand_home, Collection};
use crate::collect::plugin::Context;
use crate::collect::scripts::Scripts;
use crate::collect::steps::Session;
use crate::collect::sysinfo;
use crate::process::System;

use super::UNUSABLE;

/// What the collections are handed: the system's processes, and the analysis to judge
/// with as they go.
pub fn context() -> Context<'static> {
    Context {
        runner: &System,
        judge: |out| {
            crate::analysis::analyze(out, &crate::suites::Options::default())
                .map(|a| a.verdicts().cloned().collect())
                .map_err(|e| e.to_string())
        },
    }
}

pub fn run(cmd: &CollectCommand) -> anyhow::Result<i32> {
    match cmd {
        CollectCommand::Sysinfo(a) => facts(a),
        CollectCommand::Replay(a) => replay(a),
    }
}

fn facts(a: &CollectSysinfoArgs) -> anyhow::Result<i32> {
    let out = expand_home(&a.out);
    let s = Scripts::write()?;
    let steps = sysinfo::steps(
        &out,
        &s,
        a.xdp,
        a.ib_peer.as_deref(),
        a.ib_read_bw.as_deref(),
    );
    let manifest = out.join("manifests").join("sysinfo.json");
    let mut session = Session::new(
        manifest.clone(),
        "Reporting the results (both procedures)",
        "sysinfo",
        serde_json::json!({"xdp": a.xdp, "ib_peer": a.ib_peer, "ib_read_bw": a.ib_read_bw}),
        Vec::new(),
    );
    session.resume = !a.running.fresh;
    let mut checks = vec!["a missing program is recorded as missing, not an error".to_string()];
    let missing = sysinfo::not_collected(a.ib_peer.as_deref(), a.ib_read_bw.as_deref());
    if let Some(m) = &missing {
        checks.push(m.clone());
        crate::errln!("note: {m}");
    }
    session.manifest.not_collected.extend(missing);
    let code = Collection {
        session,
        steps,
        scripts: &s,
        preflight: Vec::new(),
        checks,
        dry_run: a.running.dry_run,
    }
    .run(&System)?;
    if !a.running.dry_run {
        crate::collect::plan::index_manifest(&out, "sysinfo", &manifest, &[])?;
    }
    Ok(code)
}

/// `collect replay MANIFEST --dry-run`: the recorded commands, step by step, in the dry
/// run's own form.
fn replay(a: &crate::cli::CollectReplayArgs) -> anyhow::Result<i32> {
    let bytes = match std::fs::read(&a.manifest) {
        Ok(b) => b,
        Err(e) => {
            crate::errln!("error: cannot read `{}`: {e}", a.manifest.display());
            return Ok(UNUSABLE);
        }
    };
    let m: crate::collect::steps::Manifest = match serde_json::from_slice(&bytes) {
        Ok(m) => m,
        Err(e) => {
            crate::errln!(
                "error: `{}` is not a collection manifest: {e}",
                a.manifest.display()
            );
            return Ok(UNUSABLE);
        }
    };
    if !a.dry_run {
        crate::errln!("error: a replay prints the commands (--dry-run); to measure again, run the collector with the manifest's parameters: {}", m.parameters);
        return Ok(UNUSABLE);
    }
    crate::outln!(
        "# replay of `{}` ({}; {} on {}, {} to {})",
        m.collection,
        m.procedure,
        m.tool,
        m.host,
        m.started,
        m.ended
    );
    for (name, sum) in &m.collectors {
        crate::outln!("#   collector {name} sha256 {sum}");
    }
    for (k, v) in &m.environment {
        crate::outln!("#   {k}={v}");
    }
    for s in &m.steps {
        crate::outln!("\n# {}", s.name);
        crate::collect::steps::print_origin(&s.origin, &s.differs);
        if s.expanded.is_empty() {
            crate::outln!("{}", s.command);
        } else {
            crate::out!("{}", s.expanded);
        }
    }
    Ok(0)
}
