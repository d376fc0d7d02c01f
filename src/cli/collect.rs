//! The `collect` subcommands and their arguments, with what every collector takes.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum CollectCommand {
    /// The system facts the procedures ask support to receive, under system/.
    Sysinfo(CollectSysinfoArgs),
    /// Print the commands a collection's manifest recorded, as its dry run printed them.
    Replay(CollectReplayArgs),
}

#[derive(Debug, Args)]
pub struct CollectReplayArgs {
    /// A collection's manifest (OUT/manifests/<collection>.json).
    pub manifest: PathBuf,
    /// Print the commands (the only way a replay runs: rerun the collector with the
    /// manifest's parameters to measure again).
    #[arg(long)]
    pub dry_run: bool,
}

/// What every collector takes.
#[derive(Debug, Args)]
pub struct Running {
    /// Print every command, expanded, and what the preflight and the device guard would
    /// check; run nothing, write nothing. Needs no hardware.
    #[arg(long)]
    pub dry_run: bool,
    /// Run every step again, even those an earlier run finished (a rerun resumes by
    /// default: finished steps whose output still reads back are skipped).
    #[arg(long)]
    pub fresh: bool,
}

#[derive(Debug, Args)]
pub struct CollectSysinfoArgs {
    /// The results folder: facts go to OUT/system/.
    #[arg(short, long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// The card index for pliocli raid get_raid_info -x N.
    #[arg(long, default_value_t = 1)]
    pub xdp: u32,
    /// Run ib_read_bw against this peer (start `ib_read_bw` on the peer first).
    #[arg(long, value_name = "HOST", conflicts_with = "ib_read_bw")]
    pub ib_peer: Option<String>,
    /// A saved ib_read_bw output to file as system/ib_read_bw.txt instead.
    #[arg(long, value_name = "FILE")]
    pub ib_read_bw: Option<PathBuf>,
    #[command(flatten)]
    pub running: Running,
}
