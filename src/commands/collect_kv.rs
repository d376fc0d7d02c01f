//! `collect kv`: the KV-cache procedure end to end, in its order: the system facts, test 1
//! (plain vLLM, then the connector), test 2 alternating the variants on a freshly started
//! server, two runs each (or `--runs`), and with `--dram` test 3.

use clap::{ArgMatches, Args, FromArgMatches};

use crate::collect::plugin::Context;
use crate::process::Runner;
use crate::suites::kv_common::collect_args::{start, KvCommon};

use crate::collect::plan::Collection;
use crate::collect::scripts::Scripts;
use crate::collect::steps::Step;
use crate::suites::kv_common::collect::{KvPlan, ADP, LMCACHE, PLAIN};
use crate::suites::{kv_dram::collect as kv_dram, kv_restore::collect as kv_restore};

pub fn steps(p: &KvPlan, s: &Scripts, levels: &[u32], runs: u32, dram: bool) -> Vec<Step> {
    let mut out = kv_restore::steps(p, s);
    for run in 1..=runs {
        for variant in [ADP, PLAIN] {
            out.extend(p.kv.ladder_run(s, variant, run, levels));
        }
    }
    if dram {
        let dram_levels: Vec<u32> = p.reference.dram.levels.clone();
        out.extend(kv_dram::steps(p, s, &dram_levels, runs));
    }
    out
}

#[allow(clippy::too_many_arguments)]
pub fn collect(
    p: &KvPlan,
    sysinfo: Vec<Step>,
    s: &Scripts,
    levels: &[u32],
    runs: u32,
    dram: bool,
    runner: &dyn Runner,
) -> anyhow::Result<i32> {
    let mut list = sysinfo;
    list.extend(steps(p, s, levels, runs, dram));
    let variants: Vec<&str> = if dram {
        vec![PLAIN, ADP, LMCACHE]
    } else {
        vec![PLAIN, ADP]
    };
    let mut preflight = p.server_preflight(&[PLAIN, ADP], runner);
    if variants.contains(&LMCACHE) {
        // Test 3's variants as test 3 checks them (the LMCache image is its own).
        let more: Vec<String> = p
            .dram_preflight(runner)
            .into_iter()
            .filter(|x| !preflight.contains(x))
            .collect();
        preflight.extend(more);
    }
    preflight.extend(crate::suites::kv_common::collect::workload_problems(
        &p.kv.out,
    ));
    let session = p.session(
        "kv",
        "Reproducing the benchmarks: AI Key-Value Caching, tests 1-3",
    );
    let path = session.path.clone();
    let code = Collection {
        session,
        steps: list,
        scripts: s,
        preflight,
        checks: p.server_checks(&variants),
        dry_run: p.dry_run,
    }
    .run(runner)?;
    if !p.dry_run && code != 2 {
        p.index("kv", &path)?;
    }
    Ok(code)
}

#[derive(Debug, Args)]
pub struct CollectKvAllArgs {
    /// Runs of each variant's ladder (the procedure: at least two).
    #[arg(long, default_value_t = 2)]
    pub runs: u32,
    /// Client counts of the ladder.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    pub levels: Vec<u32>,
    /// Also test 3 (LMCache with a DRAM tier; needs ~/bench/lmcache).
    #[arg(long)]
    pub dram: bool,
    #[command(flatten)]
    pub kv: KvCommon,
}

/// `collect kv`: the KV procedure's three tests in order, beside the suites' own
/// collections.
pub struct KvCollector;

pub static COLLECTOR: KvCollector = KvCollector;

impl crate::collect::plugin::Collector for KvCollector {
    fn command(&self) -> clap::Command {
        CollectKvAllArgs::augment_args(clap::Command::new("kv"))
            .about("The KV-cache procedure end to end: tests 1 and 2 (and 3 with --dram), in order")
    }

    fn run(&self, args: &ArgMatches, cx: &Context) -> anyhow::Result<i32> {
        let a = &CollectKvAllArgs::from_arg_matches(args)?;
        let st = start(&a.kv)?;
        collect(
            &st.plan,
            st.facts,
            &st.scripts,
            &a.levels,
            a.runs,
            a.dram,
            cx.runner,
        )
    }
}
