//! Where each restore's cached tokens came from. `collect kv-restore` scrapes the server's
//! `/metrics` right before and after every ask (`<transcript>.ask<k>.pre.prom` and
//! `.post.prom` beside the transcript, k counting the asks from 1, as the transcript's
//! `time ...` lines do; the procedure takes none). Between the two, a restore the card
//! served shows the connector's hits (`vllm:external_prefix_cache_hits_total`) equal to
//! the cached tokens and no GPU prefix-cache hits; hits from the GPU prefix cache mean the
//! prompt was still in GPU memory, and the restore says nothing about the card.

mod counters;
mod snapshots;
#[cfg(test)]
mod tests;
mod verdict_notes;

pub use counters::source;
pub use snapshots::{check, is_ask_snapshot, snapshots_in};
pub use verdict_notes::{apply, apply_to_time};
// The sibling module the parts name as `super::...`.
use super::names;

/// What the counters say of one restore.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The connector's hits cover the cached tokens and the GPU prefix cache hit nothing.
    Card { external: f64 },
    /// The GPU prefix cache served some of it: the prompt was still in GPU memory.
    Gpu { local: f64, external: f64 },
    /// Nothing was cached and nothing hit: a miss, which the cached share reports.
    Nothing,
    /// The counters do not account for the cached tokens (or went down: a restart
    /// between the snapshots; or a counter is missing).
    Unaccounted(String),
    /// No pair of snapshots around this ask, and why.
    NotChecked(String),
}

/// One restore: its transcript and line, what the counters say, and the snapshot files
/// read.
#[derive(Debug, Clone)]
pub struct Checked {
    pub transcript: String,
    pub line: usize,
    pub source: Source,
    pub files: Vec<String>,
}
