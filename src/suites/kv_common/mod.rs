//! What the three KV-cache suites share: the published numbers, the ladder's files, the
//! servers' logs and the `ask` transcripts, taken from the catalog.

pub mod aggregate;
pub mod checklist;
pub mod collect;
pub mod collect_args;
pub mod conformance;
pub mod deviations;
pub mod hit_source;
pub mod ladder;
pub mod measurements;
pub mod names;
pub mod reference;
pub mod regime;
pub mod restore;
pub mod server_ttft;
pub use crate::stats;
pub mod timeline;
pub mod within;

use std::collections::BTreeMap;

use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Kind, Record};
use crate::parse::ask::Attempt;
use crate::parse::vllm_log::ServerLog;
use crate::suites::Fact;

/// The plain-vLLM variant's name in the procedure.
pub const PLAIN: &str = "gpu-only";
pub const ADP: &str = "adp";
pub const LMCACHE: &str = "lmcache";

/// Server logs by variant (`logs/adp-vllm.log`), and the gateway's log.
#[derive(Debug, Default)]
pub struct ServerLogs<'c> {
    pub by_variant: BTreeMap<String, (String, &'c ServerLog)>,
    pub gateway: Option<String>,
}

/// The servers' logs in the catalog; logs that cannot be read go into `skipped`.
pub fn server_logs<'c>(catalog: &'c Catalog, skipped: &mut Vec<Skipped>) -> ServerLogs<'c> {
    let mut logs = ServerLogs {
        gateway: catalog.of(Kind::GatewayLog).next().map(|i| i.rel.clone()),
        ..ServerLogs::default()
    };
    for item in catalog.of(Kind::ServerLog) {
        match &item.record {
            Ok(Record::ServerLog(l)) => {
                logs.by_variant
                    .entry(layout::server_log_variant_at(&item.rel))
                    .or_insert((item.rel.clone(), l));
            }
            Ok(_) => {}
            Err(p) => skipped.push(item.skipped(p)),
        }
    }
    logs
}

/// The ladder's levels (see [`ladder::load`]) with the files their reading skipped, as
/// [`prepare_levels`] read them for every suite that judges them (test 2 and the DRAM
/// tier), or read here.
pub fn levels(catalog: &Catalog, skipped: &mut Vec<Skipped>) -> std::sync::Arc<ReadLevels> {
    let read = catalog.shared(LEVELS, || read_levels(catalog));
    skipped.extend(read.skipped.iter().cloned());
    read
}

/// Reads the ladder's levels for [`levels`] to take, unless another suite has read them
/// or is reading them (a suite's `prepare`).
pub fn prepare_levels(catalog: &Catalog) {
    catalog.prepare_shared(LEVELS, || read_levels(catalog));
}

/// The name the levels are shared under.
const LEVELS: &str = "kv ladder levels";

fn read_levels(catalog: &Catalog) -> ReadLevels {
    let mut skipped = Vec::new();
    let levels = ladder::load(catalog, &mut skipped);
    ReadLevels { levels, skipped }
}

/// The ladder's levels as [`levels`] keeps them.
pub struct ReadLevels {
    pub levels: Vec<ladder::Level>,
    /// The files the reading skipped, each with its problem.
    pub skipped: Vec<Skipped>,
}

impl std::ops::Deref for ReadLevels {
    type Target = [ladder::Level];
    fn deref(&self) -> &[ladder::Level] {
        &self.levels
    }
}

/// `ask` transcripts under a folder named `dir` (`restore`, `dram`), by file stem.
pub fn transcripts(
    catalog: &Catalog,
    dir: &str,
    skipped: &mut Vec<Skipped>,
) -> BTreeMap<String, (String, Vec<Attempt>)> {
    let mut out = BTreeMap::new();
    for item in catalog.of(Kind::Ask) {
        if layout::transcript_dir(&item.rel) != Some(dir) {
            continue;
        }
        match &item.record {
            Ok(Record::Ask(a)) => {
                out.insert(item.stem().to_string(), (item.rel.clone(), a.clone()));
            }
            Ok(_) => {}
            Err(p) => skipped.push(item.skipped(p)),
        }
    }
    out
}

/// The model under test: a manifest's `model`, else the servers' logs.
pub fn model_name(catalog: &Catalog, logs: &ServerLogs) -> Option<(String, String)> {
    for item in catalog
        .of(Kind::Manifest)
        .filter(|i| i.file_name() == "manifest.json")
    {
        if let Some(m) = item
            .json()
            .and_then(|v| v.get("model"))
            .and_then(|m| m.as_str())
        {
            return Some((m.to_string(), item.rel.clone()));
        }
    }
    logs.by_variant
        .values()
        .find_map(|(rel, l)| l.model.clone().map(|m| (m, rel.clone())))
}

/// The startup facts the procedure asks to send: versions, KV cache size lines, the
/// connector's registration, the gateway log, the model.
pub fn facts(logs: &ServerLogs, model: Option<&(String, String)>) -> Vec<Fact> {
    let mut out = Vec::new();
    if let Some((m, from)) = model {
        out.push(Fact::new("model", m.clone(), from.clone()));
    }
    for (variant, (file, log)) in &logs.by_variant {
        if let Some(v) = &log.vllm_version {
            out.push(Fact::new(
                format!("{variant}: vLLM version"),
                v.clone(),
                file.clone(),
            ));
        }
        if let Some(l) = &log.kv_cache_line {
            out.push(Fact::new(
                format!("{variant}: GPU KV cache size line"),
                l.clone(),
                file.clone(),
            ));
        }
        if let Some(l) = &log.xkv_line {
            out.push(Fact::new(
                format!("{variant}: connector startup line"),
                l.clone(),
                file.clone(),
            ));
        }
    }
    if let Some(g) = &logs.gateway {
        out.push(Fact::new("gateway log", g.clone(), g.clone()));
    }
    out
}
