//! `collect kv-dram`: its arguments, registered through the suite (`Suite::collector`).

use clap::{ArgMatches, Args, FromArgMatches};

use crate::collect::plugin::{Collector, Context};
use crate::suites::kv_common::collect_args::{start, KvCommon};

#[derive(Debug, Args)]
pub struct CollectKvDramArgs {
    /// Runs of the lmcache ladder (the procedure: at least two).
    #[arg(long, default_value_t = 2)]
    pub runs: u32,
    /// Client counts of the lmcache ladder.
    #[arg(long, value_delimiter = ',', default_value = "8,16,32")]
    pub levels: Vec<u32>,
    #[command(flatten)]
    pub kv: KvCommon,
}

pub struct KvDramCollector;

/// The suite's collector.
pub static COLLECTOR: KvDramCollector = KvDramCollector;

impl Collector for KvDramCollector {
    fn command(&self) -> clap::Command {
        CollectKvDramArgs::augment_args(clap::Command::new("kv-dram"))
            .about("KV test 3: the connector alone vs LMCache with a DRAM tier")
    }

    fn run(&self, args: &ArgMatches, cx: &Context) -> anyhow::Result<i32> {
        let a = &CollectKvDramArgs::from_arg_matches(args)?;
        let st = start(&a.kv)?;
        super::collect::collect(
            &st.plan,
            st.facts,
            &st.scripts,
            &a.levels,
            a.runs,
            cx.runner,
        )
    }
}
