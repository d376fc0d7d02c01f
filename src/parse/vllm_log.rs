//! vLLM server logs (and the gateway's and LMCache's lines in them): the startup facts
//! the procedure asks for and the lines that mean trouble.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::error::ParseError;
use crate::parse::client_log::strip_ansi;
use crate::parse::pyrepr;
use crate::parse::text::{read_capped, TextCheck};

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ServerLog {
    /// Tokens in `GPU KV cache size: 545,536 tokens` (or `GPU + host ...`, or the CPU
    /// backend's `CPU KV cache size: ...`).
    pub kv_cache_tokens: Option<u64>,
    /// Where that cache is, as the line names it: `GPU`, `CPU`, `GPU + host`.
    pub kv_cache_device: Option<String>,
    /// KV connectors the engine created (`Creating v1 connector with name: X`): (line,
    /// name), the first of each name.
    pub connectors: Vec<(usize, String)>,
    /// The line(s) it came from, as logged (the older form spans two lines).
    pub kv_cache_line: Option<String>,
    pub max_concurrency: Option<f64>,
    /// `Available KV cache memory: 97.25 GiB`, one per GPU worker that logged it, with
    /// its line: (line, GiB).
    pub kv_cache_memory_gib: Vec<(usize, f64)>,
    /// `XKV: N cache tensors registered for exchange`.
    pub xkv_tensors: Option<u64>,
    pub xkv_line: Option<String>,
    /// Line numbers of `External KV cache turned off on this rank`.
    pub turned_off: Vec<usize>,
    pub vllm_version: Option<String>,
    pub model: Option<String>,
    pub engine_stats: Vec<EngineStats>,
    /// LMCache `Retrieved N out of M required tokens` lines: (retrieved, required, ms).
    pub lmcache_retrievals: Vec<(u64, u64, f64)>,
    /// LMCache adapter `LMCache hit tokens: N` values.
    pub lmcache_hits: Vec<u64>,
    /// The server's arguments as it logged them at start: `non-default args: {...}`
    /// (recent releases) or `args: Namespace(...)` (older ones). Empty when not logged.
    pub args: BTreeMap<String, String>,
    /// Line of the arguments.
    pub args_line: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineStats {
    pub line: usize,
    pub prompt_tok_s: Option<f64>,
    pub gen_tok_s: Option<f64>,
    pub running: Option<f64>,
    pub waiting: Option<f64>,
    pub gpu_kv_usage_pct: Option<f64>,
    pub prefix_hit_pct: Option<f64>,
    pub external_hit_pct: Option<f64>,
}

pub fn parse_path(path: &Path) -> Result<ServerLog, ParseError> {
    let bytes = read_capped(path)?;
    TextCheck::of(&bytes).map_err(|p| p.in_file(path))?;
    Ok(parse_text(&crate::parse::text::lossy(&bytes)))
}

/// The number right after `key`, with thousands separators allowed.
fn number_after(s: &str, key: &str) -> Option<f64> {
    let i = s.find(key)? + key.len();
    let rest = s[i..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(rest.len());
    rest[..end]
        .replace(',', "")
        .trim_end_matches('.')
        .parse()
        .ok()
}

fn quoted_after(s: &str, key: &str) -> Option<String> {
    let i = s.find(key)? + key.len();
    let rest = &s[i..];
    let start = rest.find(['\'', '"'])?;
    let q = rest[start..].chars().next()?;
    let body = &rest[start + 1..];
    let end = body.find(q)?;
    Some(body[..end].to_string())
}

pub fn parse_text(text: &str) -> ServerLog {
    let mut log = ServerLog::default();
    let mut pending_kv_line: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = strip_ansi(raw);
        let t = line.trim();
        kv_cache_size(&mut log, t, &mut pending_kv_line);
        kv_cache_memory(&mut log, t, i + 1);
        connector(&mut log, t, i + 1);
        identity(&mut log, t, i + 1);
        engine_and_lmcache(&mut log, t, i + 1);
    }
    log
}

/// `KV cache size: N tokens` (and the device before it), with the `Maximum concurrency`
/// line that follows it kept beside it.
fn kv_cache_size(log: &mut ServerLog, t: &str, pending_kv_line: &mut Option<String>) {
    if t.contains("KV cache size:") && t.contains("tokens") {
        if let Some(n) = number_after(t, "KV cache size:") {
            log.kv_cache_tokens = Some(n as u64);
            let before = &t[..t.find("KV cache size:").unwrap_or(0)];
            let device = before
                .rsplit(']')
                .next()
                .unwrap_or(before)
                .trim()
                .to_string();
            log.kv_cache_device = (!device.is_empty() && device.len() <= 16).then_some(device);
            log.kv_cache_line = Some(t.to_string());
            *pending_kv_line = Some(t.to_string());
        }
    }
    if t.contains("Maximum concurrency for") {
        if let Some(x) = number_after(t, "tokens per request:") {
            log.max_concurrency = Some(x);
        }
        if let Some(first) = pending_kv_line.take() {
            if !first.contains("Maximum concurrency") {
                log.kv_cache_line = Some(format!("{first}\n{t}"));
            }
        }
    }
}

/// `Available KV cache memory:` in MiB, GiB or TiB, as GiB with its line (`line`).
fn kv_cache_memory(log: &mut ServerLog, t: &str, line: usize) {
    if t.contains("Available KV cache memory:") {
        if let Some(gib) = number_after(t, "Available KV cache memory:") {
            let unit = t
                .split("Available KV cache memory:")
                .nth(1)
                .and_then(|r| r.split_whitespace().nth(1))
                .unwrap_or("GiB");
            let gib = match unit {
                "MiB" => Some(gib / 1024.0),
                "GiB" => Some(gib),
                "TiB" => Some(gib * 1024.0),
                _ => None,
            };
            if let Some(g) = gib.filter(|g| g.is_finite() && *g > 0.0) {
                log.kv_cache_memory_gib.push((line, g));
            }
        }
    }
}

/// The KV connector vLLM creates, XKV's registration, and the connector turned off.
fn connector(log: &mut ServerLog, t: &str, line: usize) {
    if let Some(at) = t.find("Creating v1 connector with name:") {
        let name = t[at + "Creating v1 connector with name:".len()..]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches(',')
            .to_string();
        if !name.is_empty() && !log.connectors.iter().any(|(_, n)| *n == name) {
            log.connectors.push((line, name));
        }
    }
    if t.contains("cache tensors registered for exchange") {
        log.xkv_tensors = number_after(t, "XKV:").map(|n| n as u64);
        log.xkv_line = Some(t.to_string());
    }
    if t.contains("External KV cache turned off on this rank") {
        log.turned_off.push(line);
    }
}

/// What the server is: vLLM's version, its non-default arguments, the model it serves.
fn identity(log: &mut ServerLog, t: &str, line: usize) {
    if log.vllm_version.is_none() {
        // Older releases log `vLLM API server version 0.8.5`; 0.32.0 logs
        // `Initializing a V1 LLM engine (v0.32.0) with config: ...`.
        for key in [
            "vLLM API server version ",
            "vLLM version ",
            "Initializing a V1 LLM engine (v",
        ] {
            if let Some(at) = t.find(key) {
                let v = t[at + key.len()..].split_whitespace().next().unwrap_or("");
                let v = v.trim_end_matches([',', ')']);
                if v.starts_with(|c: char| c.is_ascii_digit()) {
                    log.vllm_version = Some(v.to_string());
                    break;
                }
            }
        }
    }
    if log.args_line.is_none() {
        let found = pyrepr::dict_after(t, "non-default args:")
            .or_else(|| pyrepr::call_fields(t, "Namespace"));
        if let Some(pairs) = found {
            log.args.extend(pairs);
            log.args_line = Some(line);
        }
    }
    if log.model.is_none() {
        log.model = quoted_after(t, "'served_model_name': [")
            .or_else(|| quoted_after(t, "served_model_name="))
            .or_else(|| quoted_after(t, "'model':"));
    }
}

/// The engine's periodic statistics and LMCache's own lines.
fn engine_and_lmcache(log: &mut ServerLog, t: &str, line: usize) {
    if t.contains("Avg prompt throughput:") {
        log.engine_stats.push(EngineStats {
            line,
            prompt_tok_s: number_after(t, "Avg prompt throughput:"),
            gen_tok_s: number_after(t, "Avg generation throughput:"),
            running: number_after(t, "Running:"),
            waiting: number_after(t, "Waiting:"),
            gpu_kv_usage_pct: number_after(t, "GPU KV cache usage:"),
            prefix_hit_pct: number_after(t, "Prefix cache hit rate:"),
            external_hit_pct: number_after(t, "External prefix cache hit rate:"),
        });
    }
    if t.contains("Retrieved") && t.contains("required tokens") {
        if let (Some(got), Some(req)) = (number_after(t, "Retrieved"), number_after(t, "out of")) {
            let ms = number_after(t, "cost").unwrap_or(f64::NAN);
            log.lmcache_retrievals.push((got as u64, req as u64, ms));
        }
    }
    if let Some(n) = number_after(t, "LMCache hit tokens:") {
        log.lmcache_hits.push(n as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_cpu_backend_s_cache_and_the_connector_it_created() {
        // As vLLM 0.32.0's CPU build logs them (real lines, from the real-engine tests).
        let log = parse_text("vllm-1  | (EngineCore pid=7226) INFO 12-01 15:35:10 [kv_cache_utils.py:2327] CPU KV cache size: 1,048,576 tokens, Maximum concurrency for 8,192 tokens per request: 128.00x\nvllm-1  | (Worker pid=7249) INFO 12-01 15:35:10 [factory.py:62] Creating v1 connector with name: ExampleConnector and engine_id: 8415081e\nvllm-1  | (EngineCore pid=7226) INFO 12-01 15:35:12 [factory.py:62] Creating v1 connector with name: ExampleConnector and engine_id: 8415081e\n");
        assert_eq!(log.kv_cache_tokens, Some(1_048_576));
        assert_eq!(log.kv_cache_device.as_deref(), Some("CPU"));
        assert_eq!(log.connectors, [(2, "ExampleConnector".to_string())]);
        let gpu = parse_text("(EngineCore pid=412) INFO 11-29 10:02:11 [kv_cache_utils.py:1147] GPU KV cache size: 545,536 tokens\n");
        assert_eq!(gpu.kv_cache_device.as_deref(), Some("GPU"));
    }

    #[test]
    fn reads_startup_facts_in_both_forms() {
        let one = "(EngineCore pid=412) INFO 11-29 10:02:11 [kv_cache_utils.py:1147] GPU KV cache size: 545,536 tokens, Maximum concurrency for 256,000 tokens per request: 2.13x\n";
        let log = parse_text(one);
        assert_eq!(log.kv_cache_tokens, Some(545_536));
        assert_eq!(log.max_concurrency, Some(2.13));
        assert!(log
            .kv_cache_line
            .as_deref()
            .is_some_and(|l| l.ends_with("2.13x")));
        let two = "INFO x GPU KV cache size: 545536 tokens\nINFO x Maximum concurrency for 256000 tokens per request: 2.13x\n";
        let log = parse_text(two);
        assert_eq!(log.kv_cache_tokens, Some(545_536));
        assert_eq!(
            log.kv_cache_line.as_deref().map(|l| l.lines().count()),
            Some(2)
        );
        let host = parse_text("INFO GPU + host KV cache size: 1,000 tokens\n");
        assert_eq!(host.kv_cache_tokens, Some(1000));
        let mem = parse_text("(Worker_TP0 pid=1) INFO [gpu_worker.py:440] Available KV cache memory: 0.56 GiB\n(Worker_TP1 pid=2) INFO [gpu_worker.py:440] Available KV cache memory: 512 MiB\nINFO Available KV cache memory: -2.81 GiB\n");
        assert_eq!(
            mem.kv_cache_memory_gib,
            vec![(1, 0.56), (2, 0.5)],
            "a negative budget is no memory"
        );
    }

    #[test]
    fn reads_connector_engine_and_lmcache_lines() {
        let text = "INFO vLLM API server version 0.28.0\n\
            INFO non-default args: {'model': '/models/GLM-5.3-FP8', 'served_model_name': ['glm-5.3']}\n\
            INFO XKV: 312 cache tensors registered for exchange\n\
            INFO Engine 000: Avg prompt throughput: 1234.5 tokens/s, Avg generation throughput: 456.7 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 97.1%, Prefix cache hit rate: 41.2%, External prefix cache hit rate: 88.0%\n\
            WARNING External KV cache turned off on this rank\n\
            INFO [req_id=a] Retrieved 196480 out of 196480 required tokens (from 196531 total tokens). size: 1.2 gb, cost 1680.1234 ms, throughput: 0.7 GB/s;\n\
            INFO Reqid: a, Total tokens 196531, Inference Engine computed tokens: 0, LMCache hit tokens: 196480, need to load: 196480\n";
        let log = parse_text(text);
        assert_eq!(log.vllm_version.as_deref(), Some("0.28.0"));
        let real = parse_text("vllm-1  | (EngineCore pid=8694) INFO 12-03 19:35:05 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: model='/tmp/model'\n");
        assert_eq!(
            real.vllm_version.as_deref(),
            Some("0.32.0"),
            "the real engine's line"
        );
        assert_eq!(log.model.as_deref(), Some("glm-5.3"));
        assert_eq!(log.args["model"], "/models/GLM-5.3-FP8");
        assert_eq!(log.args_line, Some(2));
        assert_eq!(log.xkv_tensors, Some(312));
        assert_eq!(log.turned_off, vec![5]);
        let e = &log.engine_stats[0];
        assert_eq!((e.gen_tok_s, e.external_hit_pct), (Some(456.7), Some(88.0)));
        assert_eq!(log.lmcache_retrievals, vec![(196480, 196480, 1680.1234)]);
        assert_eq!(log.lmcache_hits, vec![196480]);
    }
}
