//! Facts from the serving side: the vLLM servers' startup lines, the compose files and
//! the gateway's log.

use crate::ingest::{layout, Catalog, Kind, Record};
use crate::parse::host::HostFile;
use crate::parse::vllm_log::ServerLog;

use super::source::at;
use super::{Read, Setup};

/// A Python-repr or JSON value without its quotes.
fn bare(v: &str) -> &str {
    v.trim().trim_matches(['\'', '"'])
}

/// The connector release the gateway names itself with (`gateway 6.1.1 starting`), when
/// no image tag said it: the gateway and connector ship as one release.
pub(super) fn gateway_facts(catalog: &Catalog, s: &mut Setup) {
    for item in catalog.of(Kind::GatewayLog) {
        if let Ok(Record::GatewayLog(g)) = &item.record {
            if let Some((v, line)) = &g.version {
                s.put(
                    "connector-release",
                    Read::text(v.clone(), at(&item.rel, Some(*line))),
                );
                return;
            }
        }
    }
}

/// The ADP variant's log first (the procedure's facts are the same in both variants).
fn server_logs(catalog: &Catalog) -> Vec<(&str, String, &ServerLog)> {
    let mut logs: Vec<(&str, String, &ServerLog)> = catalog
        .of(Kind::ServerLog)
        .filter_map(|i| match &i.record {
            Ok(Record::ServerLog(l)) => Some((
                i.rel.as_str(),
                layout::server_log_variant_at(&i.rel),
                l.as_ref(),
            )),
            _ => None,
        })
        .collect();
    logs.sort_by_key(|(rel, v, _)| (v != "adp", v != "gpu-only", rel.to_string()));
    logs
}

pub(super) fn server_facts(catalog: &Catalog, s: &mut Setup) {
    for (rel, _variant, log) in server_logs(catalog) {
        if let Some(v) = &log.vllm_version {
            s.put("vllm-version", Read::text(v.clone(), rel));
        }
        if let Some(n) = log.kv_cache_tokens {
            s.put(
                "kv-cache-tokens",
                Read::num(format!("{n} tokens"), n as f64, rel),
            );
        }
        if let Some((line, gib)) = log.kv_cache_memory_gib.first() {
            s.put(
                "kv-cache-gib",
                Read::num(format!("{gib} GiB per GPU"), *gib, at(rel, Some(*line))),
            );
        }
        let Some(args_line) = log.args_line else {
            continue;
        };
        let src = at(rel, Some(args_line));
        if let Some(m) = log.args.get("model") {
            s.put("model", Read::text(bare(m), src.clone()));
        }
        match log.args.get("tensor_parallel_size").map(|v| bare(v)) {
            Some(tp) => {
                if let Ok(n) = tp.parse::<f64>() {
                    s.put("tensor-parallel", Read::num(tp, n, src.clone()));
                }
            }
            // `non-default args` leaves out what is at its default (1).
            None if log.args.contains_key("model") => s.put(
                "tensor-parallel",
                Read::num(
                    "1 (vLLM's default: not among the logged non-default args)",
                    1.0,
                    src.clone(),
                ),
            ),
            None => {}
        }
        if let Some(v) = log.args.get("max_model_len").map(|v| bare(v)) {
            if let Ok(n) = v.parse::<f64>() {
                s.put("max-model-len", Read::num(v, n, src.clone()));
            }
        }
        if log.args.contains_key("model") {
            let spec = log.args.get("speculative_config").map(|v| v.to_string());
            let v = match &spec {
                Some(c) if c.contains("mtp") => format!("multi-token prediction: {c}"),
                Some(c) => format!("other speculative decoding: {c}"),
                None => "none (no speculative_config among the non-default args)".to_string(),
            };
            s.put(
                "mtp",
                Read {
                    value: v,
                    number: Some(if spec.is_some_and(|c| c.contains("mtp")) {
                        1.0
                    } else {
                        0.0
                    }),
                    source: src.clone(),
                },
            );
        }
    }
}

pub(super) fn compose_facts(catalog: &Catalog, s: &mut Setup) {
    let mut files: Vec<_> = catalog
        .of(Kind::Host)
        .filter_map(|i| match &i.record {
            Ok(Record::Host(h)) => match h.as_ref() {
                HostFile::Compose(c) => Some((i.rel.as_str(), c)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    files.sort_by_key(|(rel, _)| (!rel.contains("adp"), rel.to_string()));
    for (rel, c) in files {
        for svc in &c.services {
            let is_vllm = svc.args.contains_key("model");
            if is_vllm {
                if let Some(m) = svc.args.get("model") {
                    s.put("model", Read::text(m.clone(), rel));
                }
                if let Some(tp) = svc.args.get("tensor-parallel-size") {
                    if let Ok(n) = tp.parse::<f64>() {
                        s.put("tensor-parallel", Read::num(tp.clone(), n, rel));
                    }
                }
                if let Some(v) = svc.args.get("max-model-len") {
                    if let Ok(n) = v.parse::<f64>() {
                        s.put("max-model-len", Read::num(v.clone(), n, rel));
                    }
                }
                let spec = svc.args.get("speculative-config");
                s.put(
                    "mtp",
                    Read {
                        value: match spec {
                            Some(c) => format!("speculative-config {c}"),
                            None => "none (no --speculative-config)".into(),
                        },
                        number: Some(if spec.is_some_and(|c| c.contains("mtp")) {
                            1.0
                        } else {
                            0.0
                        }),
                        source: rel.into(),
                    },
                );
            }
            if let Some(img) = &svc.image {
                // `...:v0.28.0-6.1.1`: vLLM release, then the connector's.
                if let Some(tag) = img.rsplit(':').next() {
                    if is_vllm {
                        if let Some((v, release)) = tag.trim_start_matches('v').split_once('-') {
                            s.put("connector-release", Read::text(release, rel));
                            s.put("vllm-version", Read::text(v, rel));
                        }
                    } else if svc.args.contains_key("storage-devices") {
                        s.put("connector-release", Read::text(tag, rel));
                    }
                }
            }
            if let Some(dev) = svc.args.get("storage-devices") {
                s.put("cache-device", Read::text(dev.clone(), rel));
            }
        }
    }
}
