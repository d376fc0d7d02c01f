//! `collect kv-restore`: KV test 1 as the procedure writes it, for plain vLLM and the
//! connector: `restore/<variant>.txt` (the `ask` lines), `logs/<variant>-vllm.log`,
//! `logs/adp-gateway.log` and `compose/<variant>/compose.yaml`. A variant whose
//! transcript is complete is not run again (`--fresh` runs it anyway).

use crate::process::Runner;

use crate::collect::plan::Collection;
use crate::collect::scripts::Scripts;
use crate::collect::steps::Step;
use crate::suites::kv_common::collect::{transcript_done, KvPlan, ADP, PLAIN};

/// Test 1's steps: plain vLLM first, then the connector, as the procedure orders them.
pub fn steps(p: &KvPlan, s: &Scripts) -> Vec<Step> {
    let mut out = Vec::new();
    for (variant, lines, gateway) in [(PLAIN, 3, false), (ADP, 4, true)] {
        let transcript = format!("restore/{variant}.txt");
        if !p.fresh && !p.dry_run && transcript_done(&p.kv.out.join(&transcript), lines, true) {
            crate::errln!(
                "`{transcript}` is complete: {variant} is not run again (--fresh runs it)"
            );
            continue;
        }
        out.extend(p.kv.test1(s, variant, &transcript, gateway, true));
    }
    out
}

pub fn collect(
    p: &KvPlan,
    sysinfo: Vec<Step>,
    s: &Scripts,
    runner: &dyn Runner,
) -> anyhow::Result<i32> {
    let mut list = sysinfo;
    list.extend(steps(p, s));
    let session = p.session(
        crate::suites::kv_restore::NAME,
        "Reproducing the benchmarks: AI Key-Value Caching, test 1",
    );
    let path = session.path.clone();
    let code = Collection {
        session,
        steps: list,
        scripts: s,
        preflight: p.server_preflight(&[PLAIN, ADP], runner),
        checks: p.server_checks(&[PLAIN, ADP]),
        dry_run: p.dry_run,
    }
    .run(runner)?;
    if !p.dry_run && code != 2 {
        p.index(crate::suites::kv_restore::NAME, &path)?;
    }
    Ok(code)
}
