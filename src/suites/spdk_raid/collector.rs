//! `collect spdk-raid`: its arguments and how they become a plan, registered through the
//! suite (`Suite::collector`).

use std::path::PathBuf;

use clap::{ArgMatches, Args, FromArgMatches};

use crate::cli::Running;
use crate::collect::plan::expand_home;
use crate::collect::plugin::{Collector, Context};
use crate::error::UNUSABLE;

use super::collect as spdk_raid;

#[derive(Debug, Args)]
pub struct CollectSpdkArgs {
    /// The SPDK source tree (scripts/rpc.py, build/examples/bdevperf); the article's `./spdk`.
    #[arg(long, value_name = "DIR", default_value = "./spdk")]
    pub spdk_dir: PathBuf,
    /// SPDK's fio plugin (<spdk>/build/fio/spdk_bdev).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "./spdk/build/fio/spdk_bdev"
    )]
    pub fio_plugin: PathBuf,
    /// The fio binary the plugin was built against.
    #[arg(long, value_name = "FILE", default_value = "fio")]
    pub fio: PathBuf,
    /// PCIe addresses of the drives, comma separated, in the article's order (a dry run
    /// without it shows the article's 16).
    #[arg(long, value_delimiter = ',')]
    pub pcie: Vec<String>,
    /// Drive counts (the article: 8 and 16).
    #[arg(long, value_delimiter = ',', default_value = "8,16")]
    pub drives: Vec<u32>,
    /// Arrays: raw (the baseline), raid5f, xinnor.
    #[arg(long, value_delimiter = ',', default_value = "raw,raid5f,xinnor")]
    pub arrays: Vec<String>,
    /// Strip size in KiB (the article: 64)
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub strip_kb: u32,
    /// Runtime of small random I/O runs, seconds (the article: 900).
    #[arg(long, default_value_t = 900)]
    pub runtime: u32,
    /// Runtime of full-stripe runs, seconds (the article: 60).
    #[arg(long, default_value_t = 60)]
    pub seq_runtime: u32,
    /// Skip the degraded runs.
    #[arg(long)]
    pub no_degraded: bool,
    /// Runtime of each degraded run, seconds.
    #[arg(long, default_value_t = 60)]
    pub degraded_runtime: u32,
    /// How a member is removed for the degraded runs: `detach-controller` (the article's
    /// `bdev_nvme_detach_controller`, a drive lost) or `remove-base-bdev` (SPDK's graceful
    /// `bdev_raid_remove_base_bdev`).
    #[arg(long, default_value = "detach-controller", value_parser = ["detach-controller", "remove-base-bdev"])]
    pub degraded_method: String,
    /// The results folder: spdk/<array>-<drives>/.
    #[arg(short, long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
    /// A drive that looks used, named exactly (`pci:0000:45:00.0`); repeatable.
    #[arg(long, value_name = "DEV")]
    pub confirm_device: Vec<PathBuf>,
    #[command(flatten)]
    pub running: Running,
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

pub struct SpdkRaidCollector;

/// The suite's collector.
pub static COLLECTOR: SpdkRaidCollector = SpdkRaidCollector;

impl Collector for SpdkRaidCollector {
    fn command(&self) -> clap::Command {
        CollectSpdkArgs::augment_args(clap::Command::new("spdk-raid"))
            .about("The SPDK RAID article: raw drives, raid5f and Xinnor, degraded runs")
    }

    fn run(&self, args: &ArgMatches, cx: &Context) -> anyhow::Result<i32> {
        let a = &CollectSpdkArgs::from_arg_matches(args)?;
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
        spdk_raid::collect(&plan, cx.runner)
    }
}
