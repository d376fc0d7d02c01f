//! `collect storage`: its arguments and how they become a plan, registered through the
//! suite (`Suite::collector`).

use std::path::PathBuf;

use clap::{ArgMatches, Args, FromArgMatches};

use crate::cli::Running;
use crate::collect::plan::expand_home;
use crate::collect::plugin::{Collector, Context};
use crate::error::UNUSABLE;

use super::collect as storage;

#[derive(Debug, Args)]
pub struct CollectStorageArgs {
    /// The array's folder name: raid10 or adp in the procedure.
    #[arg(long)]
    pub array: String,
    /// The device fio runs on (DEV): for raid10 the procedure's /dev/md126, for adp the
    /// ADP block device (lsblk). Its contents are destroyed.
    #[arg(long, value_name = "DEV")]
    pub dev: Option<PathBuf>,
    /// The four drives (raid10: discarded, built into the array, discarded again).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "/dev/nvme0n1,/dev/nvme1n1,/dev/nvme2n1,/dev/nvme3n1"
    )]
    pub drives: Vec<PathBuf>,
    /// The md device raid10 builds.
    #[arg(long, default_value = "/dev/md126")]
    pub md: PathBuf,
    /// raid10: do not discard the drives and build the array first (it exists).
    #[arg(long)]
    pub no_prepare: bool,
    /// raid10: keep the array after the runs (the procedure stops it, zeroes the
    /// superblocks and discards the drives before the ADP bundle).
    #[arg(long)]
    pub keep_array: bool,
    /// The card index for pliocli and pliostore@N (adp; the reference host: 1).
    #[arg(long, default_value_t = 1)]
    pub xdp: u32,
    /// The results folder; runs go to OUT/<array>/, facts to OUT/system/.
    #[arg(short, long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// Write to a device although it looks used (a filesystem, RAID or LVM signature, a
    /// partition table): name exactly that device (repeatable). A device in use
    /// (mounted, swap, held by md/dm/LVM) is refused whatever this says.
    #[arg(long, value_name = "DEV")]
    pub confirm_device: Vec<PathBuf>,
    /// fio --size (the procedure: 3800000000000).
    #[arg(long, default_value = "3800000000000")]
    pub size: String,
    /// fio --runtime in seconds (the procedure: 60).
    #[arg(long, default_value_t = 60)]
    pub runtime: u32,
    /// Only the precondition, the five headline runs and QD 1 read, not the 63-run sweep.
    #[arg(long)]
    pub headline: bool,
    /// Only these runs (by name), e.g. --only randwrite-8k-j8-d8.
    #[arg(long, value_name = "NAME")]
    pub only: Vec<String>,
    /// Keep each run going for the whole runtime even on a small device (--time_based).
    #[arg(long)]
    pub time_based: bool,
    /// Run each measured job N times in all: the first as the procedure names its file,
    /// the others as NAME-run2.json, NAME-run3.json, ... (analyze pools them as repeats;
    /// the precondition runs once).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// After each round, judge the headline criteria on the results folder and run again
    /// the jobs of those not yet settled (pass or fail by a 95% interval), until none is
    /// left or MAX rounds are done (default 5); each round's standing is printed and kept
    /// in the manifest.
    #[arg(long, value_name = "MAX", num_args = 0..=1, default_missing_value = "5",
          conflicts_with = "repeat", value_parser = clap::value_parser!(u32).range(2..=100))]
    pub until_settled: Option<u32>,
    #[command(flatten)]
    pub running: Running,
}

pub struct StorageCollector;

/// The suite's collector.
pub static COLLECTOR: StorageCollector = StorageCollector;

impl Collector for StorageCollector {
    fn command(&self) -> clap::Command {
        CollectStorageArgs::augment_args(clap::Command::new("storage"))
            .about("The storage procedure on one array: drives, precondition, the 63-run sweep")
    }

    fn run(&self, args: &ArgMatches, cx: &Context) -> anyhow::Result<i32> {
        let a = &CollectStorageArgs::from_arg_matches(args)?;
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
                crate::errln!(
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
        // The procedure builds /dev/md126 from the drives: `--dev` naming that md device
        // still prepares it (unless --no-prepare); `--dev` naming another device means the
        // array exists elsewhere and the drives are not touched (said in the dry run and the
        // manifest).
        let builds = a.dev.as_ref().is_none_or(|d| *d == a.md);
        let prepare = raid10 && !a.no_prepare && builds;
        let teardown = raid10 && !a.keep_array && builds;
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
            rounds: match a.until_settled {
                Some(max) => crate::collect::rounds::Rounds::UntilSettled(max),
                None => crate::collect::rounds::Rounds::Fixed(a.repeat),
            },
            judge: cx.judge,
        };
        storage::collect(&plan, cx.runner)
    }
}
