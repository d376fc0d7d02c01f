//! The concurrency ladder's files, `<variant>-<run>-L<clients>.{json,log,pre.prom,post.prom}`,
//! read into one result per level with the procedure script's exact arithmetic.

mod file_kinds;
mod hits;
mod one_campaign;
mod read;
mod script;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::ingest::layout::{self, LadderPart};
use crate::ingest::walk::Skipped;
use crate::ingest::{Catalog, Item};

use read::read_level;
// The sibling modules the parts (`read`, `hits`) name as `super::...`.
use super::{names, regime, server_ttft, stats, timeline, within};

/// One level of one run of one variant.
#[derive(Debug, Clone, Serialize)]
pub struct Level {
    /// The path before `-L`, relative to the folder: the script's sort key.
    pub prefix: String,
    pub variant: String,
    pub run: String,
    pub clients: u32,
    pub requests: Option<usize>,
    pub output_tok_s: Option<f64>,
    pub ttft_p50_s: Option<f64>,
    /// Every request's time to first token, in seconds, in the records' order.
    pub ttft_s: Vec<f64>,
    /// The server's own TTFT over the level (its histogram between the snapshots).
    pub server_ttft: Option<super::server_ttft::ServerTtft>,
    pub gen_tok_s: Option<f64>,
    /// Hit rates in percent, as deltas between the .pre.prom and .post.prom snapshots.
    pub gpu_hit_pct: Option<f64>,
    pub card_hit_pct: Option<f64>,
    /// Card hits (tokens) during the level.
    pub card_hits: Option<f64>,
    /// Preemptions during the level (`vllm:num_preemptions_total` between the
    /// snapshots): requests the engine stopped because the KV cache ran out.
    pub preemptions: Option<f64>,
    /// How much conversation history the client kept active (see [`super::regime`]).
    pub history: Option<super::regime::History>,
    /// The level over time, from the collector's `/metrics` series (see
    /// [`super::timeline`]); empty without one.
    pub timeline: Vec<super::timeline::Point>,
    /// The GPUs over time, from the collector's `nvidia-smi` series; empty without one.
    pub gpus: Vec<super::timeline::GpuPoint>,
    /// Summed num_failures over the clients, from the .log.
    pub failures: Option<u64>,
    pub runtime_sec: Option<f64>,
    /// The client's arguments as its log records them (see [`client_log::ClientLog::args`]).
    pub args: BTreeMap<String, String>,
    /// The client stopped all clients when the first finished (no `--no-early-stop`).
    pub stopped_early: bool,
    /// The client's log, when there is one.
    pub log_file: Option<String>,
    /// The last line of the client's traceback, when it died.
    pub died: Option<String>,
    /// Why a number is missing or untrustworthy, one reason each.
    pub problems: Vec<String>,
    pub files: Vec<String>,
    /// The line the procedure's script prints for this level, or why it cannot.
    pub script_line: Result<String, String>,
    /// The run cut into batches, for an interval from within it (see [`super::within`]).
    #[serde(skip)]
    pub within: Option<super::within::WithinRun>,
}

impl Level {
    /// `adp-1-L8`.
    pub fn name(&self) -> String {
        format!("{}-{}-L{}", self.variant, self.run, self.clients)
    }

    /// Why this run of the level failed, if it did: failed requests or a dead client.
    pub fn failed(&self) -> Option<String> {
        if let Some(d) = &self.died {
            return Some(format!("{}: the client died ({d})", self.name()));
        }
        match self.failures {
            Some(f) if f > 0 => Some(format!(
                "{}: {} failed requests",
                self.name(),
                crate::model::units::grouped(&f.to_string())
            )),
            _ => None,
        }
    }
}

pub use crate::ingest::layout::{split_level, split_run};

/// Every level in the folder, in the script's order (by path prefix, then clients).
pub fn load(catalog: &Catalog, skipped: &mut Vec<Skipped>) -> Vec<Level> {
    // Key: (prefix, clients) -> the four files of the procedure, and the series.
    let mut sets: BTreeMap<(String, u32), [Option<&Item>; 6]> = BTreeMap::new();
    for item in &catalog.items {
        let Some((prefix, clients, part)) = layout::ladder_file(&item.rel) else {
            continue;
        };
        let slot = match part {
            LadderPart::Records => 0,
            LadderPart::Log => 1,
            LadderPart::Pre => 2,
            LadderPart::Post => 3,
            LadderPart::Series => 4,
            LadderPart::Gpus => 5,
        };
        sets.entry((prefix.to_string(), clients)).or_default()[slot] = Some(item);
    }
    // A series alone is not a level. The levels are read side by side (each reads only
    // its own files), then kept in key order with the files each skipped.
    let sets: Vec<_> = sets
        .into_iter()
        .filter(|(_, files)| files[..4].iter().any(Option::is_some))
        .collect();
    // One folder's levels, each run once: another folder is another campaign, and a
    // copy of a run is that run.
    let sets = one_campaign::one_campaign(sets, skipped);
    let read: Vec<(Level, Vec<Skipped>)> = sets
        .into_par_iter()
        .map(|((prefix, clients), files)| {
            let mut own = Vec::new();
            let level = read_level(&prefix, clients, files, &mut own);
            (level, own)
        })
        .collect();
    let mut levels = Vec::with_capacity(read.len());
    for (level, own) in read {
        skipped.extend(own);
        levels.push(level);
    }
    levels
}

/// The script's columns, in its order.
pub const SCRIPT_COLUMNS: [&str; 8] = [
    "variant-run",
    "clients",
    "requests",
    "output tok/s",
    "TTFT p50 s",
    "gen tok/s",
    "GPU hit",
    "card hit",
];

/// The script's header line.
pub fn script_header() -> String {
    let c = SCRIPT_COLUMNS;
    format!(
        "{:<16} {:>7} {:>8} {:>12} {:>10} {:>9} {:>8} {:>8}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
    )
}
