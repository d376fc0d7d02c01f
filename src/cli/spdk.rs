//! The `spdk` subcommands and their arguments.

use std::path::PathBuf;

use clap::{Args, Subcommand};

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
