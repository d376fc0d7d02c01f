//! The arguments of the commands that read results folders: `analyze`, `compare`,
//! `report` and `bundle`.

use std::path::PathBuf;

use clap::Args;

use super::shared::{Format, Judging, PdfArgs};

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
    /// file, every check and the full reasons (the default is a summary). JSON always
    /// holds everything: with --format json this changes nothing.
    #[arg(long)]
    pub detail: bool,
    #[command(flatten)]
    pub judging: Judging,
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
