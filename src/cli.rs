//! The command line: `analyze`, `report`, `suites`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
    /// Exit status: 0 when no metric is worse beyond the threshold and the noise; 1 when
    /// any is; 2 when an input cannot be used.
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

#[derive(Debug, Args)]
pub struct Judging {
    /// Folder name of the baseline array (storage; default: raid10).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Folder name of the candidate array (storage; default: adp).
    #[arg(long, value_name = "NAME")]
    pub candidate: Option<String>,
    /// Generation-rate SLA in tokens/s per request (kv-ladder; default 20).
    #[arg(long, value_name = "TOK_S")]
    pub sla_gen_tok_s: Option<f64>,
    /// Largest spread between runs of one variant before a level is inconclusive
    /// (kv-ladder, kv-dram; default 0.10 = 10 %).
    #[arg(long, value_name = "FRACTION")]
    pub max_spread: Option<f64>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Results folders (the procedure's layout) or single files; with --trend also
    /// datasets (`DATASET` or `DATASET:SELECTOR`: names, id prefixes, since=, until=).
    #[arg(required = true, value_name = "FOLDER")]
    pub inputs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write every frame as Parquet and CSV into this folder.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// With several inputs: add the trend of every criterion's number across them.
    #[arg(long)]
    pub trend: bool,
    /// Order the trend by the runs' start times (collectors' manifests), not as given.
    #[arg(long, requires = "trend")]
    pub by_time: bool,
    /// Also write the trend as one HTML page (a row per criterion, a column per input, a
    /// line per row) to FILE.
    #[arg(long, requires = "trend", value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// The folders given hold campaigns: each subfolder (in name order) is one input.
    #[arg(long)]
    pub campaigns: bool,
    /// Print every section: physical limits, observations, tables, notes, every skipped
    /// file, every check and the full reasons (the default is a summary).
    #[arg(long)]
    pub detail: bool,
    #[command(flatten)]
    pub judging: Judging,
}

#[derive(Debug, Subcommand)]
pub enum DatasetCommand {
    /// Analyze each input (folder or bundle) and add its results to DATASET, atomically:
    /// the same campaign again changes nothing; a changed one under the same name
    /// replaces it. Secrets are always redacted.
    Add(DatasetAddArgs),
    /// List the campaigns of a dataset (or those a `DATASET:SELECTOR` selects), in
    /// start-time order: a table, or with --format json a list of objects (id, name,
    /// started, suites).
    ///
    /// Exit status: 0 when listed (an empty selection too); 2 when DATASET is not a
    /// dataset or cannot be read.
    List(DatasetListArgs),
    /// Merge every campaign's files into one file per table and suite, so that queries
    /// open a few files instead of one per campaign (each file then has the table's
    /// whole current schema); also rewrites a dataset of schema 1 in this version's
    /// layout. One atomic change; compacting a compact dataset changes nothing.
    ///
    /// Exit status: 0 when compacted (or already compact); 2 when DATASET is not a
    /// dataset, or a file in it is not the one this tool wrote (nothing is changed).
    Compact(DatasetCompactArgs),
}

#[derive(Debug, Args)]
pub struct DatasetCompactArgs {
    /// The dataset folder.
    #[arg(value_name = "DATASET")]
    pub dataset: PathBuf,
}

#[derive(Debug, Args)]
pub struct DatasetAddArgs {
    /// The dataset folder (created if missing).
    #[arg(value_name = "DATASET")]
    pub dataset: PathBuf,
    /// Results folders or bundles, one campaign each.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// The campaign's name (one input; default: the input's file name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Replace host names and IPv4 addresses with pseudonyms, from one mapping kept
    /// beside the dataset (`DATASET.pseudonyms.json`), so campaigns still join.
    #[arg(long)]
    pub pseudonymize: bool,
    /// A host name to replace besides the ones the files name (repeatable).
    #[arg(long = "host", value_name = "NAME", requires = "pseudonymize")]
    pub hosts: Vec<String>,
    #[command(flatten)]
    pub judging: Judging,
}

#[derive(Debug, Args)]
pub struct DatasetListArgs {
    /// The dataset folder, or `DATASET:SELECTOR` (names, id prefixes, since=, until=).
    #[arg(value_name = "DATASET")]
    pub dataset: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The base run: a results folder or a bundle, or campaigns of a dataset
    /// (`DATASET:SELECTOR`: names, id prefixes, since=TIME, until=TIME).
    #[arg(value_name = "BASE", conflicts_with = "base")]
    pub base_input: Option<PathBuf>,
    /// The new run: a results folder or a bundle, or campaigns of a dataset.
    #[arg(value_name = "NEW", conflicts_with = "new")]
    pub new_input: Option<PathBuf>,
    /// Several base runs, pooled (the median of the runs; their spread is the noise).
    #[arg(long = "base", value_name = "FOLDER", num_args = 1..)]
    pub base: Vec<PathBuf>,
    /// Several new runs, pooled.
    #[arg(long = "new", value_name = "FOLDER", num_args = 1..)]
    pub new: Vec<PathBuf>,
    /// Smallest change, in percent, that counts (it must also exceed the noise).
    #[arg(long, default_value_t = 5.0, value_name = "PERCENT")]
    pub threshold: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write compare.md, compare.html, compare.typ, compare.pdf and plots/*.svg into
    /// this folder.
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub pdf: PdfArgs,
    #[command(flatten)]
    pub judging: Judging,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The results folder.
    #[arg(value_name = "FOLDER")]
    pub input: PathBuf,
    /// Where to write report.md, report.html, report.typ, report.pdf and plots/ (created
    /// if missing).
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    #[command(flatten)]
    pub pdf: PdfArgs,
    #[command(flatten)]
    pub judging: Judging,
}

#[derive(Debug, Args)]
pub struct PdfArgs {
    /// Skip the PDF and its Typst source (report.typ and report.pdf; compare.typ and
    /// compare.pdf); the Markdown, the HTML and the plots are still written.
    #[arg(long)]
    pub no_pdf: bool,
    /// The typst binary to use (else $REPROBENCH_TYPST, the pinned one in the cache, or
    /// typst on PATH; installed into the cache when there is none).
    #[arg(long, value_name = "PATH")]
    pub typst: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BundleArgs {
    /// The results folder.
    #[arg(value_name = "FOLDER")]
    pub input: PathBuf,
    /// The bundle to write.
    #[arg(short, long, value_name = "FILE", default_value = "support.tar.gz")]
    pub output: PathBuf,
    /// Keep tokens, keys and passwords as they are (redaction is on by default).
    #[arg(long)]
    pub no_redact: bool,
    /// Replace host names and IPv4 addresses with consistent pseudonyms; the mapping is
    /// written beside the bundle (FILE.pseudonyms.json), never inside it.
    #[arg(long)]
    pub pseudonymize: bool,
    /// A host name to pseudonymize besides those found in the files (repeatable).
    #[arg(long = "host", value_name = "NAME")]
    pub hosts: Vec<String>,
    /// Also put in files matching this glob, relative to the folder (repeatable), e.g.
    /// --include 'notes/*.txt'. They are redacted like every other file.
    #[arg(long = "include", value_name = "GLOB")]
    pub includes: Vec<String>,
    /// Leave out files matching this glob, relative to the folder (repeatable), whatever
    /// reads them; they are listed as left out, with their names redacted.
    #[arg(long = "exclude", value_name = "GLOB")]
    pub excludes: Vec<String>,
    /// Let FILE (relative to the folder) go in although the check still finds a secret in
    /// it after redaction (repeatable).
    #[arg(long = "allow-unredacted", value_name = "FILE")]
    pub allow_unredacted: Vec<String>,
    /// Print what would go in (with how many values each file has redacted), what is left
    /// out and why; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub pdf: PdfArgs,
    #[command(flatten)]
    pub judging: Judging,
}

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
