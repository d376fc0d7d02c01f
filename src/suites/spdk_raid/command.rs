//! `reprobench spdk config|jobs`: the article's SPDK config and fio job files, written
//! for the SPDK suite's procedure (its arguments, then what they run).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::inputs::config::{self, Members, Spec};
use super::inputs::jobs::{self, Target};
use super::inputs::Raid;
use crate::error::UNUSABLE;

#[derive(Debug, Subcommand)]
pub enum SpdkCommand {
    /// Write the SPDK JSON config (the article's shape) for raw drives or an array.
    Config(SpdkConfigArgs),
    /// Write fio job files (ioengine=spdk_bdev): the article's runs, or one run.
    Jobs(SpdkJobsArgs),
}

#[derive(Debug, Args)]
pub struct SpdkArray {
    /// The array: raid5f, raid0, raid1, concat (SPDK raid bdev), xinnor:<level>, or none.
    #[arg(long, default_value = "raid5f")]
    pub raid: String,
    /// Strip size in KiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub strip_kb: u32,
    /// Name of the array bdev.
    #[arg(long, default_value = "raid5")]
    pub name: String,
}

#[derive(Debug, Args)]
pub struct SpdkConfigArgs {
    /// PCIe addresses of the drives, comma separated (0000:45:00.0,...).
    #[arg(
        long,
        value_delimiter = ',',
        conflicts_with = "bdevs",
        required_unless_present = "bdevs"
    )]
    pub pcie: Vec<String>,
    /// Existing bdev names instead of PCIe addresses, comma separated.
    #[arg(long, value_delimiter = ',')]
    pub bdevs: Vec<String>,
    #[command(flatten)]
    pub array: SpdkArray,
    /// Write here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SpdkJobsArgs {
    /// Number of member drives.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub drives: u32,
    #[command(flatten)]
    pub array: SpdkArray,
    /// The SPDK JSON config fio loads (spdk_json_conf).
    #[arg(long, value_name = "FILE")]
    pub spdk_conf: String,
    /// fio's filename: defaults to the array name, or nvme0n1:...:nvmeNn1 for --raid none.
    #[arg(long)]
    pub filename: Option<String>,
    /// Folder for the .fio files.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Runtime of small random I/O runs, seconds (the article: 900).
    #[arg(long, default_value_t = 900)]
    pub runtime: u32,
    /// Runtime of full-stripe runs, seconds (the article: 60).
    #[arg(long, default_value_t = 60)]
    pub seq_runtime: u32,
    /// One run instead of the article's set: its rw (with --bs, --numjobs, --iodepth).
    #[arg(long, requires = "bs")]
    pub rw: Option<String>,
    #[arg(long)]
    pub bs: Option<String>,
    #[arg(long, default_value_t = 1)]
    pub numjobs: u32,
    #[arg(long, default_value_t = 32)]
    pub iodepth: u32,
    #[arg(long)]
    pub rwmixread: Option<u32>,
}

pub fn run(cmd: &SpdkCommand) -> anyhow::Result<i32> {
    match cmd {
        SpdkCommand::Config(a) => config_cmd(a),
        SpdkCommand::Jobs(a) => jobs_cmd(a),
    }
}

fn refuse(why: &str) -> anyhow::Result<i32> {
    crate::errln!("error: {why}");
    Ok(UNUSABLE)
}

fn config_cmd(a: &SpdkConfigArgs) -> anyhow::Result<i32> {
    let raid = match Raid::parse(&a.array.raid) {
        Ok(r) => r,
        Err(why) => return refuse(&why),
    };
    let members = if a.bdevs.is_empty() {
        Members::Pcie(a.pcie.clone())
    } else {
        Members::Bdevs(a.bdevs.clone())
    };
    let spec = Spec {
        members,
        raid,
        name: a.array.name.clone(),
        strip_kb: a.array.strip_kb,
    };
    let text = match config::render(&spec) {
        Ok(t) => t,
        Err(why) => return refuse(&why),
    };
    match &a.output {
        Some(p) => {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("failed to create `{}`", dir.display()))?;
            }
            std::fs::write(p, text)
                .with_context(|| format!("failed to write `{}`", p.display()))?;
            crate::errln!(
                "wrote {} ({} drives, {})",
                p.display(),
                spec.drives(),
                spec.raid
            );
        }
        None => crate::out!("{text}"),
    }
    Ok(0)
}

fn jobs_cmd(a: &SpdkJobsArgs) -> anyhow::Result<i32> {
    let raid = match Raid::parse(&a.array.raid) {
        Ok(r) => r,
        Err(why) => return refuse(&why),
    };
    let filename = a.filename.clone().unwrap_or_else(|| match raid {
        Raid::None => (0..a.drives)
            .map(|i| format!("nvme{i}n1"))
            .collect::<Vec<_>>()
            .join(":"),
        _ => a.array.name.clone(),
    });
    let target = Target {
        raid,
        drives: a.drives,
        strip_kb: a.array.strip_kb,
        spdk_conf: a.spdk_conf.clone(),
        filename,
    };
    let (list, refused) = match &a.rw {
        Some(rw) => {
            let job = match jobs::single(
                rw,
                a.bs.as_deref().unwrap_or(""),
                a.numjobs,
                a.iodepth,
                a.rwmixread,
                a.runtime,
            ) {
                Ok(j) => j,
                Err(why) => return refuse(&why),
            };
            if let Err(why) = jobs::check(&job, &target) {
                return refuse(&why);
            }
            (vec![job], Vec::new())
        }
        None => jobs::article_suite(&target, a.runtime, a.seq_runtime),
    };
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("failed to create `{}`", a.output.display()))?;
    for job in &list {
        let text = match jobs::render(job, &target) {
            Ok(t) => t,
            Err(why) => return refuse(&why),
        };
        let path = a.output.join(format!("{}.fio", job.name()));
        std::fs::write(&path, text)
            .with_context(|| format!("failed to write `{}`", path.display()))?;
        crate::outln!("wrote {}", path.display());
    }
    for why in refused {
        crate::outln!("left out: {why}");
    }
    Ok(0)
}
