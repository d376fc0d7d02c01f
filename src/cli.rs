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

#[derive(Debug, Subcommand)]
pub enum CollectCommand {
    /// KV test 1: long-context restore after restarts, plain vLLM then the connector.
    KvRestore(CollectKvRestoreArgs),
    /// KV test 2: the concurrency ladder for one variant and run, against a running server.
    KvLadder(CollectKvLadderArgs),
    /// KV test 3: the connector alone vs LMCache with a DRAM tier.
    KvDram(CollectKvDramArgs),
    /// The KV-cache procedure end to end: tests 1 and 2 (and 3 with --dram), in order.
    Kv(CollectKvAllArgs),
    /// The storage procedure on one array: drives, precondition, the 63-run sweep.
    Storage(CollectStorageArgs),
    /// The SPDK RAID article: raw drives, raid5f and Xinnor, degraded runs.
    SpdkRaid(CollectSpdkArgs),
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

#[derive(Debug, Args)]
pub struct CollectKvRestoreArgs {
    #[command(flatten)]
    pub kv: KvCommon,
}

#[derive(Debug, Args)]
pub struct CollectKvDramArgs {
    /// Runs of the lmcache ladder (the procedure: at least two).
    #[arg(long, default_value_t = 2)]
    pub runs: u32,
    /// Client counts of the lmcache ladder.
    #[arg(long, value_delimiter = ',', default_value = "8,16,32")]
    pub levels: Vec<u32>,
    #[command(flatten)]
    pub kv: KvCommon,
}

#[derive(Debug, Args)]
pub struct CollectKvAllArgs {
    /// Runs of each variant's ladder (the procedure: at least two).
    #[arg(long, default_value_t = 2)]
    pub runs: u32,
    /// Client counts of the ladder.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    pub levels: Vec<u32>,
    /// Also test 3 (LMCache with a DRAM tier; needs ~/bench/lmcache).
    #[arg(long)]
    pub dram: bool,
    #[command(flatten)]
    pub kv: KvCommon,
}

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
