//! `collect kv-ladder`: its arguments, registered through the suite (`Suite::collector`).

use clap::{ArgMatches, Args, FromArgMatches};

use crate::collect::plugin::{Collector, Context};
use crate::collect::scripts::Scripts;
use crate::suites::kv_common::collect_args::{kv_plan, KvCommon};

#[derive(Debug, Args)]
pub struct CollectKvLadderArgs {
    /// The variant: adp, gpu-only (or lmcache for test 3).
    #[arg(long)]
    pub variant: String,
    /// The run number (the procedure asks for at least two per variant).
    #[arg(long, default_value_t = 1)]
    pub run: u32,
    /// Client counts, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    pub levels: Vec<u32>,
    #[command(flatten)]
    pub kv: KvCommon,
}

pub struct KvLadderCollector;

/// The suite's collector.
pub static COLLECTOR: KvLadderCollector = KvLadderCollector;

impl Collector for KvLadderCollector {
    fn command(&self) -> clap::Command {
        CollectKvLadderArgs::augment_args(clap::Command::new("kv-ladder")).about(
            "KV test 2: the concurrency ladder for one variant and run, against a running server",
        )
    }

    fn run(&self, args: &ArgMatches, cx: &Context) -> anyhow::Result<i32> {
        let a = &CollectKvLadderArgs::from_arg_matches(args)?;
        let p = kv_plan(&a.kv)?;
        let s = Scripts::write_with(crate::suites::kv_common::collect::SCRIPTS)?;
        super::collect::collect(&p, &s, &a.variant, a.run, &a.levels, cx.runner)
    }
}
