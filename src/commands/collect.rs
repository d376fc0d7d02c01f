//! `reprobench collect`: the procedures' runs through the shell collectors.

use std::path::Path;

use crate::cli::{
    CollectCommand, CollectKvAllArgs, CollectKvDramArgs, CollectKvLadderArgs, CollectKvRestoreArgs,
    CollectSpdkArgs, CollectStorageArgs, CollectSysinfoArgs, KvCommon,
};
use crate::collect::kv_server::KvPlan;
use crate::collect::plan::{expand_home, Collection};
use crate::collect::scripts::Scripts;
use crate::collect::steps::{Session, Step};
use crate::collect::{kv, kv_dram, kv_ladder, kv_restore, spdk_raid, storage, sysinfo};
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
        sysinfo::steps(out, s, 0, k.ib_peer.as_deref(), None)
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
            eprintln!(
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
    // With --dev the array exists: the drives are not touched.
    let prepare = raid10 && !a.no_prepare && a.dev.is_none();
    let teardown = raid10 && !a.keep_array && a.dev.is_none();
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
    };
    storage::collect(&plan, &System)
}

fn spdk(a: &CollectSpdkArgs) -> anyhow::Result<i32> {
    let plan = spdk_raid::Plan {
        out: expand_home(&a.out),
        spdk_dir: expand_home(&a.spdk_dir),
        fio: a.fio.clone(),
        plugin: expand_home(&a.fio_plugin),
        pcie: a.pcie.clone(),
        counts: a.drives.clone(),
        arrays: a.arrays.clone(),
        strip_kb: a.strip_kb,
        runtime_s: a.runtime,
        seq_runtime_s: a.seq_runtime,
        degraded: !a.no_degraded,
        degraded_runtime_s: a.degraded_runtime,
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
    let code = Collection {
        session,
        steps,
        scripts: &s,
        preflight: Vec::new(),
        checks: vec!["a missing program is recorded as missing, not an error".into()],
        dry_run: a.running.dry_run,
    }
    .run(&System)?;
    if !a.running.dry_run {
        crate::collect::plan::index_manifest(&out, "sysinfo", &manifest, &[])?;
    }
    Ok(code)
}
