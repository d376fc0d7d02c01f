//! `collect kv-restore`: its arguments, registered through the suite (`Suite::collector`).

use clap::{ArgMatches, Args, FromArgMatches};

use crate::collect::plugin::{Collector, Context};
use crate::suites::kv_common::collect_args::{start, KvCommon};

#[derive(Debug, Args)]
pub struct CollectKvRestoreArgs {
    #[command(flatten)]
    pub kv: KvCommon,
}

pub struct KvRestoreCollector;

/// The suite's collector.
pub static COLLECTOR: KvRestoreCollector = KvRestoreCollector;

impl Collector for KvRestoreCollector {
    fn command(&self) -> clap::Command {
        CollectKvRestoreArgs::augment_args(clap::Command::new("kv-restore"))
            .about("KV test 1: long-context restore after restarts, plain vLLM then the connector")
    }

    fn run(&self, args: &ArgMatches, cx: &Context) -> anyhow::Result<i32> {
        let a = &CollectKvRestoreArgs::from_arg_matches(args)?;
        let st = start(&a.kv)?;
        super::collect::collect(&st.plan, st.facts, &st.scripts, cx.runner)
    }
}
