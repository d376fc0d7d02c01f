//! The flag groups and values several commands share: the judging options, the output
//! format and the PDF options.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

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
