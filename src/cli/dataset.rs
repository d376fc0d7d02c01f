//! The `dataset` subcommands and their arguments.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::shared::{Format, Judging};

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
