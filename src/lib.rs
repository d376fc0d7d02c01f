//! reprobench: reproduce published storage and KV-cache benchmarks and judge the runs.
//!
//! Data moves one way: `ingest` (walk, sniff, parse each file once) -> `frames` (Polars)
//! -> `suites` (criteria, deviations) -> `analysis` (the model) -> `render` / `bundle`.

pub mod analysis;
pub mod bundle;
pub mod checklist;
pub mod cli;
pub mod collect;
pub mod commands;
pub mod compare;
pub mod dataset;
pub mod error;
pub mod fio;
pub mod frames;
pub mod ingest;
pub mod instant;
pub mod model;
pub mod output;
pub mod parse;
pub mod process;
pub mod render;
pub mod schema;
pub mod signals;
pub mod stats;
pub mod suites;
#[cfg(test)]
mod test_rng;
pub mod typst;
pub mod why;
