//! A result dataset: campaigns' typed results accumulated as Parquet partitioned by suite
//! (`<table>/suite=<suite>/part-<segment>.parquet`, see [`segment`]), for DuckDB, Spark,
//! Trino or Polars to query across campaigns and for compare and `--trend` to read back.
//! A campaign is keyed by the sha256 of its input (`campaign`, a column of every row);
//! adding the same one again changes nothing, adding a changed one under the same name
//! replaces it; an add writes its campaign as a segment of its own and `dataset compact`
//! merges the segments ([`compact`]); every change is atomic (`commit`). The schema
//! (`crate::schema::dataset`) is written as `_schema.json` and checked on every file
//! written.

mod add;
pub mod campaign;
pub mod commit;
pub mod compact;
pub mod index;
pub mod read;
pub mod segment;
pub mod tables;

pub use add::add;
use index::{check_schema, major_at};
pub use index::{Entry, Index};

use std::path::PathBuf;

use anyhow::Context;
use polars_io::prelude::{KeyValueMetadata, ParquetCompression, ParquetWriter, StatisticsOptions};

use crate::schema::dataset as schema;
use crate::suites::Options;

pub struct AddOptions {
    pub judging: Options,
    /// Replace host names and IPv4 addresses with the dataset's pseudonyms.
    pub pseudonymize: bool,
    /// Host names to replace besides the ones the files name.
    pub hosts: Vec<String>,
    /// The name of the campaign (one input only).
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Added,
    Unchanged,
    /// Replaced the campaign of the same name with this id.
    Replaced(String),
}

#[derive(Debug, Clone)]
pub struct Added {
    pub input: PathBuf,
    pub id: String,
    pub name: String,
    pub suites: Vec<String>,
    pub outcome: Outcome,
    /// The analysis' exit code (0 all pass, 1 not all, 2 nothing judged).
    pub exit: i32,
}

/// The tables of a dataset, in the order `_schema.json` lists them.
pub fn table_names() -> impl Iterator<Item = &'static str> {
    schema::TABLES.iter().map(|t| t.name)
}

/// A campaign id: 64 lowercase hex digits.
pub fn is_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

pub(crate) fn parquet(df: &mut polars_core::prelude::DataFrame) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    // A campaign's files are small: one thread each, many files at once. Snappy (what
    // Spark writes by default, read everywhere) and min/max/null statistics for pruning,
    // without distinct counts: creating a zstd context and counting distinct values cost
    // more than writing such a file.
    ParquetWriter::new(&mut buf)
        .set_parallel(false)
        .with_compression(ParquetCompression::Snappy)
        .with_statistics(StatisticsOptions {
            distinct_count: false,
            ..StatisticsOptions::default()
        })
        .with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![
            crate::frames::arrow_schema_for_every_reader(df),
            ("reprobench.schema_version".into(), schema::VERSION.into()),
        ])))
        .finish(df)
        .context("cannot write Parquet")?;
    Ok(buf)
}
