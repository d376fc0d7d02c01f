//! What the three KV-cache suites share: the published numbers, the ladder's files, the
//! servers' logs and the `ask` transcripts, each read once per analysis.

pub mod deviations;
pub mod ladder;
pub mod reference;
pub mod stats;

use std::collections::BTreeMap;

use crate::folder::{Entry, Folder, Skipped};
use crate::parse::ask::{self, Attempt};
use crate::parse::vllm_log::{self, ServerLog};
use crate::suites::Fact;

/// The plain-vLLM variant's name in the procedure.
pub const PLAIN: &str = "gpu-only";
pub const ADP: &str = "adp";
pub const LMCACHE: &str = "lmcache";

/// Server logs by variant (`logs/adp-vllm.log`), and the gateway's log.
#[derive(Debug, Default)]
pub struct ServerLogs {
    pub by_variant: BTreeMap<String, (String, ServerLog)>,
    pub gateway: Option<String>,
}

fn is_server_log(e: &Entry) -> bool {
    let name = e.file_name().to_ascii_lowercase();
    name.ends_with(".log")
        && (name.contains("vllm") || name.contains("server"))
        && ladder::split_level(e.stem()).is_none()
}

/// `adp-vllm.log` -> `adp`, `gpu-only_server.log` -> `gpu-only`.
fn log_variant(e: &Entry) -> String {
    let stem = e.stem().to_ascii_lowercase();
    let mut v = stem.as_str();
    for cut in [
        "-vllm", "_vllm", ".vllm", "-server", "_server", "vllm-", "vllm_",
    ] {
        v = v.trim_end_matches(cut);
        if let Some(rest) = v.strip_prefix(cut) {
            v = rest;
        }
    }
    v.to_string()
}

/// The server logs, read once per folder; files that cannot be read are reported in
/// `skipped` the first time.
pub fn server_logs(folder: &Folder, skipped: &mut Vec<Skipped>) -> std::rc::Rc<ServerLogs> {
    folder.memo("kv-server-logs", || read_server_logs(folder, skipped))
}

/// The ladder's levels, read once per folder (see [`server_logs`]).
pub fn levels(folder: &Folder, skipped: &mut Vec<Skipped>) -> std::rc::Rc<Vec<ladder::Level>> {
    folder.memo("kv-ladder-levels", || ladder::load(folder, skipped))
}

fn read_server_logs(folder: &Folder, skipped: &mut Vec<Skipped>) -> ServerLogs {
    let mut logs = ServerLogs::default();
    for e in &folder.files {
        let lower = e.file_name().to_ascii_lowercase();
        if lower.ends_with(".log") && lower.contains("gateway") {
            logs.gateway.get_or_insert(e.rel.clone());
            continue;
        }
        if !is_server_log(e) {
            continue;
        }
        match vllm_log::parse_path(&e.path) {
            Ok(l) => {
                logs.by_variant
                    .entry(log_variant(e))
                    .or_insert((e.rel.clone(), l));
            }
            Err(err) => skipped.push(folder.skipped(e, err.line, err.reason)),
        }
    }
    logs
}

/// `ask` transcripts under a folder named `dir` (`restore`, `dram`), by file stem.
pub fn transcripts(
    folder: &Folder,
    dir: &str,
    skipped: &mut Vec<Skipped>,
) -> BTreeMap<String, (String, Vec<Attempt>)> {
    let mut out = BTreeMap::new();
    for e in &folder.files {
        let in_dir = e.rel.split('/').rev().skip(1).any(|c| c == dir);
        if !in_dir || !(e.rel.ends_with(".txt") || e.rel.ends_with(".json")) {
            continue;
        }
        match ask::parse_path(&e.path) {
            Ok(a) => {
                out.insert(e.stem().to_string(), (e.rel.clone(), a));
            }
            Err(err) => skipped.push(folder.skipped(e, err.line, err.reason)),
        }
    }
    out
}

/// The model under test: `manifest.json`'s `model`, else the servers' logs.
pub fn model_name(folder: &Folder, logs: &ServerLogs) -> Option<(String, String)> {
    for e in folder
        .files
        .iter()
        .filter(|e| e.file_name() == "manifest.json")
    {
        if let Ok(text) = std::fs::read_to_string(&e.path) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                if let Some(m) = v.get("model").and_then(|m| m.as_str()) {
                    return Some((m.to_string(), e.rel.clone()));
                }
            }
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
