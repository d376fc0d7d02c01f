//! The command line: `analyze`, `report`, `suites`.

mod collect;
mod dataset;
mod results;
mod shared;
mod spdk;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use collect::{CollectCommand, CollectReplayArgs, CollectSysinfoArgs, Running};
pub use dataset::{DatasetAddArgs, DatasetCommand, DatasetCompactArgs, DatasetListArgs};
pub use results::{AnalyzeArgs, BundleArgs, CompareArgs, ReportArgs};
pub use shared::{Format, Judging, PdfArgs};
pub use spdk::{SpdkArray, SpdkCommand, SpdkConfigArgs, SpdkJobsArgs};

/// The version `--version` prints: the package's, and the commit it was built from.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("REPROBENCH_COMMIT"),
    ")"
);

/// Reproduce published storage and KV-cache benchmarks and turn each run into evidence.
#[derive(Debug, Parser)]
#[command(name = "reprobench", version = VERSION, about, long_about = None)]
pub struct Cli {
    /// Standard error carries errors and warnings only: no notes, no progress.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more: `analyze` prints every section (as its --detail).
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Colour the status words: auto (on a terminal, unless NO_COLOR is set), always,
    /// never.
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        default_value_t = crate::output::ColorWhen::Auto
    )]
    pub color: crate::output::ColorWhen,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge a results folder against the procedure's criteria and published numbers.
    ///
    /// Prints a summary per suite (the verdicts, failures first, with a short reason;
    /// what changed the comparison; what to check next); --detail (or -v) prints every
    /// section, and --format json everything. Writes nothing (but the frames, with
    /// --export). Exit status: 0 when every
    /// criterion passes; 1 when any fails, is not measured, is not comparable or is
    /// inconclusive; 2 when nothing was judged (no criterion, or every one not measured)
    /// or the input cannot be used at all.
    Analyze(AnalyzeArgs),
    /// Write report.md, report.html, report.typ and report.pdf, with plots/*.svg, for a
    /// results folder or bundle.
    ///
    /// Exit status: as analyze's (0 when every criterion passes; 1 when any does not; 2
    /// when nothing was judged or the input cannot be used).
    Report(ReportArgs),
    /// Compare two runs (folders or bundles, or pools of them): what differs between the
    /// setups, the criteria of each side, and every matched measurement with a
    /// noise-aware verdict.
    ///
    /// Exit status: 0 when no metric is worse beyond the threshold and the noise and every
    /// criterion that passes in the base passes in the new; 1 when a metric is worse or
    /// a criterion no longer passes; 2 when an input cannot be used.
    Compare(CompareArgs),
    /// Make a support bundle: report, raw results, checklist, checksums; secrets redacted.
    ///
    /// Writes FILE (default support.tar.gz) and, with --pseudonymize, FILE.pseudonyms.json
    /// beside it; --dry-run writes nothing. Exit status: 0 when the bundle is written (or
    /// the dry run printed); 2 when it is not (the folder unusable, the output inside it,
    /// or a secret the second check still finds: nothing is written then).
    Bundle(BundleArgs),
    /// Accumulate campaigns' results in a Parquet dataset (for DuckDB, Spark, Trino,
    /// compare and --trend).
    ///
    /// Exit status: 0 when done; 2 when an input or the dataset cannot be used (an add
    /// then changes nothing).
    #[command(subcommand)]
    Dataset(DatasetCommand),
    /// Run a procedure on the hardware through the collectors (checks the device first).
    ///
    /// Writes a results folder in the procedure's layout (-o) with a manifest under
    /// manifests/; --dry-run prints every command and writes nothing. Exit status: 0 when
    /// every step ran; 1 when a step failed; 2 when the preflight or the device guard
    /// refused (nothing ran on that device); 128+N when signal N stopped it.
    #[command(subcommand)]
    Collect(CollectCommand),
    /// Generate SPDK RAID benchmark inputs: the JSON config and fio job files.
    ///
    /// Exit status: 0 when written; 2 when the arguments cannot make them (an unknown
    /// array, a sub-stripe raid5f write).
    #[command(subcommand)]
    Spdk(SpdkCommand),
    /// List the suites and the files each one reads.
    Suites,
    /// Install shell completions (bash, zsh, fish) and man pages under a prefix.
    ///
    /// Writes PREFIX/share/bash-completion/completions/reprobench,
    /// PREFIX/share/zsh/site-functions/_reprobench,
    /// PREFIX/share/fish/vendor_completions.d/reprobench.fish and
    /// PREFIX/share/man/man1/reprobench*.1 (one page per command), replacing older ones.
    /// Exit status: 0 when every file is written; 2 when one cannot be.
    ShellFiles(ShellFilesArgs),
}

#[derive(Debug, Args)]
pub struct ShellFilesArgs {
    /// Where to install (default: ~/.local, which bash-completion, zsh with
    /// ~/.local/share/zsh/site-functions in fpath, fish and man find).
    #[arg(long, value_name = "DIR")]
    pub prefix: Option<PathBuf>,
    /// Print the files it would write; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}
