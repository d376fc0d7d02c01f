//! The serving frames: the KV restore tests' `ask` requests and the vLLM server logs.

use crate::ingest::layout;
use crate::ingest::{Catalog, Item, Kind, Record};

use super::SuiteOf;
use crate::frames::{Frame, FrameBuilder};

/// One row per `ask` request of tests 1 and 3.
pub(super) fn restore_attempts(
    catalog: &Catalog,
    suite_of: SuiteOf,
) -> anyhow::Result<Option<Frame>> {
    let mut rows = Vec::new();
    for item in catalog.of(Kind::Ask) {
        let Ok(Record::Ask(attempts)) = &item.record else {
            continue;
        };
        let suite = suite_of(item);
        for a in attempts {
            rows.push((item, suite, a));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let f = FrameBuilder::new("restore_attempts")
        .str("suite", rows.iter().map(|r| r.1))
        .str("variant", rows.iter().map(|r| r.0.stem()))
        .str("file", rows.iter().map(|r| r.0.rel.as_str()))
        .count("line", rows.iter().map(|r| r.2.line as u64))
        .f64("seconds", rows.iter().map(|r| r.2.seconds))
        .f64(
            "prompt_tokens",
            rows.iter().map(|r| r.2.prompt_tokens.map(|n| n as f64)),
        )
        .f64(
            "cached_tokens",
            rows.iter().map(|r| r.2.cached.map(|n| n as f64)),
        )
        .str(
            "failed",
            rows.iter().map(|r| r.2.failed.as_deref().unwrap_or("")),
        )
        .build()?;
    Ok(Some(f))
}

/// One row per vLLM server log: what it says about the server.
pub(super) fn server_facts(catalog: &Catalog) -> anyhow::Result<Option<Frame>> {
    let logs: Vec<(&Item, &crate::parse::vllm_log::ServerLog)> = catalog
        .of(Kind::ServerLog)
        .filter_map(|i| match &i.record {
            Ok(Record::ServerLog(l)) => Some((i, l.as_ref())),
            _ => None,
        })
        .collect();
    if logs.is_empty() {
        return Ok(None);
    }
    let arg =
        |l: &crate::parse::vllm_log::ServerLog, k: &str| l.args.get(k).cloned().unwrap_or_default();
    let f = FrameBuilder::new("server_facts")
        .str(
            "variant",
            logs.iter().map(|r| layout::server_log_variant_at(&r.0.rel)),
        )
        .str("file", logs.iter().map(|r| r.0.rel.as_str()))
        .str(
            "vllm_version",
            logs.iter()
                .map(|r| r.1.vllm_version.clone().unwrap_or_default()),
        )
        .str(
            "model",
            logs.iter().map(|r| r.1.model.clone().unwrap_or_default()),
        )
        .str(
            "tensor_parallel_size",
            logs.iter().map(|r| arg(r.1, "tensor_parallel_size")),
        )
        .str(
            "max_model_len",
            logs.iter().map(|r| arg(r.1, "max_model_len")),
        )
        .f64(
            "kv_cache_tokens",
            logs.iter().map(|r| r.1.kv_cache_tokens.map(|n| n as f64)),
        )
        .f64("max_concurrency", logs.iter().map(|r| r.1.max_concurrency))
        .f64(
            "connector_tensors",
            logs.iter().map(|r| r.1.xkv_tensors.map(|n| n as f64)),
        )
        .count(
            "turned_off_lines",
            logs.iter().map(|r| r.1.turned_off.len() as u64),
        )
        .count(
            "engine_stat_lines",
            logs.iter().map(|r| r.1.engine_stats.len() as u64),
        )
        .build()?;
    Ok(Some(f))
}
