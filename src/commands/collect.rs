//! `reprobench collect`: the procedures' runs through the shell collectors.

use std::path::Path;

use crate::cli::{
    CollectCommand, CollectKvAllArgs, CollectKvDramArgs, CollectKvLadderArgs, CollectKvRestoreArgs,
    CollectSpdkArgs, CollectStorageArgs, CollectSysinfoArgs, KvCommon,
};
use crate::collect::plan::{expand_home, Collection};
use crate::collect::scripts::Scripts;
use crate::collect::steps::{Session, Step};
use crate::collect::sysinfo;
use crate::suites::kv_common::collect::KvPlan;
use crate::suites::kv_dram::collect as kv_dram;
use crate::suites::kv_ladder::collect as kv_ladder;
use crate::suites::kv_restore::collect as kv_restore;
use crate::suites::spdk_raid::collect as spdk_raid;
use crate::suites::storage::collect as storage;

use super::collect_kv as kv;
use crate::process::System;

use super::UNUSABLE;

pub fn run(cmd: &CollectCommand) -> anyhow::Result<i32> {
    match cmd {
        CollectCommand::Storage(a) => storage_cmd(a),
        CollectCommand::KvLadder(a) => ladder(a),
        CollectCommand::KvRestore(a) => restore(a),
        CollectCommand::KvDram(a) => dram(a),
        CollectCommand::Kv(a) => all(a),
        CollectCommand::SpdkRaid(a) => spdk(a),
        CollectCommand::Sysinfo(a) => facts(a),
        CollectCommand::Replay(a) => replay(a),
    }
}

fn kv_plan(k: &KvCommon) -> anyhow::Result<KvPlan> {
    KvPlan::new(
        &k.bench,
        &k.workdir,
        &k.url,
        &k.model,
        k.served_model_name.as_deref(),
        k.lines,
        k.ready_timeout,
        k.pause,
        k.running.dry_run,
        k.running.fresh,
    )
}

fn facts_steps(k: &KvCommon, out: &Path, s: &Scripts) -> Vec<Step> {
    if k.sysinfo {
        // The KV collections run on the GPU server; the procedure asks for pliocli's
        // output from the storage server, where the card is.
        sysinfo::steps(out, s, 0, k.ib_peer.as_deref(), None)
            .into_iter()
            .map(|step| {
                if step.name.starts_with("sysinfo/pliocli") {
                    step.differs(["run on this host (the GPU server), where the procedure runs it from the storage server: where the card is not, it fails and is recorded as missing; run it on the storage server and put its output in system/ under the same name".to_string()])
                } else {
                    step
                }
            })
            .collect()
    } else {
        Vec::new()
    }
}

fn restore(a: &CollectKvRestoreArgs) -> anyhow::Result<i32> {
    let p = kv_plan(&a.kv)?;
    let s = Scripts::write()?;
    let facts = facts_steps(&a.kv, &p.kv.out, &s);
    kv_restore::collect(&p, facts, &s, &System)
}

fn dram(a: &CollectKvDramArgs) -> anyhow::Result<i32> {
    let p = kv_plan(&a.kv)?;
    let s = Scripts::write()?;
    let facts = facts_steps(&a.kv, &p.kv.out, &s);
    kv_dram::collect(&p, facts, &s, &a.levels, a.runs, &System)
}

fn all(a: &CollectKvAllArgs) -> anyhow::Result<i32> {
    let p = kv_plan(&a.kv)?;
    let s = Scripts::write()?;
    let facts = facts_steps(&a.kv, &p.kv.out, &s);
    kv::collect(&p, facts, &s, &a.levels, a.runs, a.dram, &System)
}

fn ladder(a: &CollectKvLadderArgs) -> anyhow::Result<i32> {
    let p = kv_plan(&a.kv)?;
    let s = Scripts::write()?;
    kv_ladder::collect(&p, &s, &a.variant, a.run, &a.levels, &System)
}

fn storage_cmd(a: &CollectStorageArgs) -> anyhow::Result<i32> {
    let sweep = storage::Sweep::load()?;
    let mut runs = if a.headline {
        storage::headline_runs(&sweep, &a.size, a.runtime)
    } else {
        storage::sweep_runs(&sweep, &a.size, a.runtime)
    };
    if !a.only.is_empty() {
        let all = storage::sweep_runs(&sweep, &a.size, a.runtime);
        let unknown: Vec<&String> = a
            .only
            .iter()
            .filter(|o| !all.iter().any(|r| &r.name == *o))
            .collect();
        if !unknown.is_empty() {
            let names: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
            crate::errln!(
                "error: no run named {unknown:?}; runs: {}",
                names.join(", ")
            );
            return Ok(UNUSABLE);
        }
        runs = all
            .into_iter()
            .filter(|r| a.only.contains(&r.name))
            .collect();
    }
    let raid10 = a.array.eq_ignore_ascii_case("raid10");
    // The procedure builds /dev/md126 from the drives: `--dev` naming that md device
    // still prepares it (unless --no-prepare); `--dev` naming another device means the
    // array exists elsewhere and the drives are not touched (said in the dry run and the
    // manifest).
    let builds = a.dev.as_ref().is_none_or(|d| *d == a.md);
    let prepare = raid10 && !a.no_prepare && builds;
    let teardown = raid10 && !a.keep_array && builds;
    let plan = storage::Plan {
        array: a.array.clone(),
        dev: a.dev.clone(),
        drives: if prepare || teardown {
            a.drives.clone()
        } else {
            Vec::new()
        },
        out: expand_home(&a.out),
        runs,
        prepare,
        teardown,
        xdp: a.xdp,
        md: a.md.clone(),
        dry_run: a.running.dry_run,
        fresh: a.running.fresh,
        confirmed: a.confirm_device.clone(),
        time_based: a.time_based,
        runtime_s: a.runtime,
        rounds: match a.until_settled {
            Some(max) => crate::collect::rounds::Rounds::UntilSettled(max),
            None => crate::collect::rounds::Rounds::Fixed(a.repeat),
        },
        judge: |out| {
            crate::analysis::analyze(out, &crate::suites::Options::default())
                .map(|a| a.verdicts().cloned().collect())
                .map_err(|e| e.to_string())
        },
    };
    storage::collect(&plan, &System)
}

/// The 16 drives of the article, in its order (nvme0 from its config, nvme1-15 from its
/// `bdev_nvme_attach_controller` lines): what a dry run shows without --pcie.
const ARTICLE_PCIE: [&str; 16] = [
    "0000:02:00.0",
    "0000:45:00.0",
    "0000:03:00.0",
    "0000:81:00.0",
    "0000:84:00.0",
    "0000:41:00.0",
    "0000:46:00.0",
    "0000:44:00.0",
    "0000:43:00.0",
    "0000:82:00.0",
    "0000:48:00.0",
    "0000:47:00.0",
    "0000:83:00.0",
    "0000:42:00.0",
    "0000:01:00.0",
    "0000:04:00.0",
];

fn spdk(a: &CollectSpdkArgs) -> anyhow::Result<i32> {
    let pcie = if !a.pcie.is_empty() {
        a.pcie.clone()
    } else if a.running.dry_run {
        crate::errln!("note: no --pcie: the dry run shows the article's 16 drive addresses");
        ARTICLE_PCIE.iter().map(|s| s.to_string()).collect()
    } else {
        crate::errln!("error: --pcie: give the drives' PCIe addresses in the article's order (`lspci -D | grep -i nvme`); a --dry-run shows the article's");
        return Ok(UNUSABLE);
    };
    let plan = spdk_raid::Plan {
        out: expand_home(&a.out),
        spdk_dir: expand_home(&a.spdk_dir),
        fio: a.fio.clone(),
        plugin: expand_home(&a.fio_plugin),
        pcie,
        counts: a.drives.clone(),
        arrays: a.arrays.clone(),
        strip_kb: a.strip_kb,
        runtime_s: a.runtime,
        seq_runtime_s: a.seq_runtime,
        degraded: !a.no_degraded,
        degraded_runtime_s: a.degraded_runtime,
        degraded_method: a.degraded_method.clone(),
        dry_run: a.running.dry_run,
        fresh: a.running.fresh,
        confirmed: a.confirm_device.clone(),
    };
    spdk_raid::collect(&plan, &System)
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
