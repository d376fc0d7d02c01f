//! What every KV collection takes (`KvCommon`), how it becomes a plan, and the system
//! facts a KV collection gathers first.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::cli::Running;
use crate::collect::scripts::Scripts;
use crate::collect::steps::Step;
use crate::collect::sysinfo;

use super::collect::KvPlan;

/// Where the KV tests run.
#[derive(Debug, Args)]
pub struct KvCommon {
    /// The folder with one compose folder per variant: adp/, gpu-only/, lmcache/.
    #[arg(long, value_name = "DIR", default_value = "~/bench")]
    pub bench: PathBuf,
    /// The load folder (agents.json); results/, restore/, dram/, logs/, compose/ and
    /// system/ are written into it.
    #[arg(long, value_name = "DIR", default_value = "~/bench/load")]
    pub workdir: PathBuf,
    /// The server's address, as the procedure's helpers use it (port 8000 on the host)
    #[arg(long, default_value = "http://127.0.0.1:8000")]
    pub url: String,
    /// The model: glm-5.3, deepseek-v4-flash, minimax-m3 or kimi-linear (its row of the
    /// procedure: image, --max-model-len, prompt size, chunk_size, extra flags), or the
    /// weights path the ladder client reads.
    #[arg(long, default_value = "glm-5.3")]
    pub model: String,
    /// The served model name requests carry (default: the model's id).
    #[arg(long)]
    pub served_model_name: Option<String>,
    /// The ask helper's LINES (default: the model's row, about its published prompt).
    #[arg(long)]
    pub lines: Option<u64>,
    /// Seconds to wait for a server to answer /health.
    #[arg(long, default_value_t = 3600)]
    pub ready_timeout: u64,
    /// Seconds between ladder levels (the procedure: 15).
    #[arg(long, default_value_t = 15)]
    pub pause: u32,
    /// Also collect the system facts first (`collect sysinfo`).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub sysinfo: bool,
    /// ib_read_bw against this peer for system/ib_read_bw.txt.
    #[arg(long, value_name = "HOST")]
    pub ib_peer: Option<String>,
    #[command(flatten)]
    pub running: Running,
}

pub fn kv_plan(k: &KvCommon) -> anyhow::Result<KvPlan> {
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

pub fn facts_steps(k: &KvCommon, out: &Path, s: &Scripts) -> Vec<Step> {
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

/// What a KV collection starts from: its plan, the KV scripts written out, and the
/// system facts' steps when `--sysinfo` asks for them.
pub struct Start {
    pub plan: KvPlan,
    pub scripts: Scripts,
    pub facts: Vec<Step>,
}

pub fn start(k: &KvCommon) -> anyhow::Result<Start> {
    let plan = kv_plan(k)?;
    let scripts = Scripts::write_with(super::collect::SCRIPTS)?;
    let facts = facts_steps(k, &plan.kv.out, &scripts);
    Ok(Start {
        plan,
        scripts,
        facts,
    })
}
