//! `collect kv-dram`: KV test 3, the connector alone (`adp`) against LMCache with a DRAM
//! tier (`lmcache`): the warm restore with `reset_prefix_cache` three times
//! (`dram/<variant>-warm.txt`; it needs `VLLM_SERVER_DEV_MODE=1`, and the collection
//! stops with that reason when the endpoint answers 404), the restore after a restart
//! (test 1 on the variant: `dram/<variant>-restart.txt`), and the ladder at 8, 16 and 32
//! clients for `lmcache`, two runs, each on a freshly started server.

use crate::process::Runner;

use crate::collect::plan::Collection;
use crate::collect::scripts::Scripts;
use crate::collect::steps::Step;
use crate::suites::kv_common::collect::{transcript_done, KvPlan, ADP, LMCACHE};

/// The warm restore: the prompt once, then three times reset the GPU prefix cache and send
/// it again.
fn warm(p: &KvPlan, s: &Scripts, variant: &str) -> Vec<Step> {
    let transcript = format!("dram/{variant}-warm.txt");
    if !p.fresh && !p.dry_run && transcript_done(&p.kv.out.join(&transcript), 4, false) {
        crate::errln!("`{transcript}` is complete: not run again (--fresh runs it)");
        return Vec::new();
    }
    let k = &p.kv;
    let mut out = vec![
        k.start_transcript(variant, &transcript),
        k.up(s, variant),
        k.ready(s, variant),
        k.new_prompt(s, variant),
        k.ask(s, variant, &transcript, "first send", 1).required(),
    ];
    for i in 1..=3 {
        out.push(k.reset(s, variant, i));
        out.push(k.ask(s, variant, &transcript, &format!("warm restore {i}"), i + 1));
    }
    out.push(k.down(s, variant));
    out
}

pub fn steps(p: &KvPlan, s: &Scripts, levels: &[u32], runs: u32) -> Vec<Step> {
    let mut out = Vec::new();
    for variant in [ADP, LMCACHE] {
        out.extend(warm(p, s, variant));
        let transcript = format!("dram/{variant}-restart.txt");
        if p.fresh || p.dry_run || !transcript_done(&p.kv.out.join(&transcript), 4, true) {
            out.extend(p.kv.test1(s, variant, &transcript, false, variant == LMCACHE));
        }
    }
    for run in 1..=runs {
        out.extend(p.kv.ladder_run(s, LMCACHE, run, levels));
    }
    out
}

pub fn collect(
    p: &KvPlan,
    sysinfo: Vec<Step>,
    s: &Scripts,
    levels: &[u32],
    runs: u32,
    runner: &dyn Runner,
) -> anyhow::Result<i32> {
    let mut list = sysinfo;
    list.extend(steps(p, s, levels, runs));
    let mut preflight = p.dram_preflight(runner);
    preflight.extend(crate::suites::kv_common::collect::workload_problems(
        &p.kv.out,
    ));
    let session = p.session(
        crate::suites::kv_dram::NAME,
        "Reproducing the benchmarks: AI Key-Value Caching, test 3",
    );
    let path = session.path.clone();
    let mut checks = p.server_checks(&[ADP, LMCACHE]);
    checks.push(
        "the lmcache compose file has LMCacheMPConnector, LMC_L1_GB=400, LMC_XKV_HOST=gateway and LMC_XKV_FRAG=131072 (its image is LMCache's own, provided on request: not checked)".into(),
    );
    checks.push(
        "both compose files set VLLM_SERVER_DEV_MODE=1 (the warm restores POST /reset_prefix_cache)".into(),
    );
    let code = Collection {
        session,
        steps: list,
        scripts: s,
        preflight,
        checks,
        dry_run: p.dry_run,
    }
    .run(runner)?;
    if !p.dry_run && code != 2 {
        p.index(crate::suites::kv_dram::NAME, &path)?;
    }
    Ok(code)
}
