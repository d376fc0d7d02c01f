//! The user's setup as the files show it: host outputs (`system/`), compose files, the
//! vLLM servers' startup lines and the fio results' own options. Each fact keeps the file
//! (and line, where there is one) it was read from.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::ingest::{layout, Catalog, Kind, Record};
use crate::parse::host::HostFile;
use crate::parse::vllm_log::ServerLog;

/// One fact and where it was read.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Read {
    pub value: String,
    pub number: Option<f64>,
    pub source: String,
}

impl Read {
    fn text(value: impl Into<String>, source: impl Into<String>) -> Read {
        Read {
            value: value.into(),
            number: None,
            source: source.into(),
        }
    }

    fn num(value: impl Into<String>, number: f64, source: impl Into<String>) -> Read {
        Read {
            value: value.into(),
            number: Some(number),
            source: source.into(),
        }
    }
}

/// Facts by key (`gpu-model`, `link-gbit`, ...); see [`read`] for the keys.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Setup {
    pub facts: BTreeMap<String, Read>,
}

impl Setup {
    pub fn get(&self, key: &str) -> Option<&Read> {
        self.facts.get(key)
    }

    fn put(&mut self, key: &str, r: Read) {
        self.facts.entry(key.to_string()).or_insert(r);
    }

    /// A fact read back (from a dataset): the first value for a key stays.
    pub fn insert(&mut self, key: &str, r: Read) {
        self.put(key, r);
    }
}

fn at(rel: &str, line: Option<usize>) -> String {
    match line {
        Some(l) => format!("{rel}:{l}"),
        None => rel.to_string(),
    }
}

/// A Python-repr or JSON value without its quotes.
fn bare(v: &str) -> &str {
    v.trim().trim_matches(['\'', '"'])
}

pub fn read(catalog: &Catalog) -> Setup {
    let mut s = Setup::default();
    host_facts(catalog, &mut s);
    server_facts(catalog, &mut s);
    compose_facts(catalog, &mut s);
    fio_facts(catalog, &mut s);
    iostat_facts(catalog, &mut s);
    gateway_facts(catalog, &mut s);
    s
}

/// The connector release the gateway names itself with (`gateway 6.1.1 starting`), when
/// no image tag said it: the gateway and connector ship as one release.
fn gateway_facts(catalog: &Catalog, s: &mut Setup) {
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

/// The kernel from an iostat banner (`Linux 6.8.0-45-generic (host) ...`) when no
/// `uname` output said it.
fn iostat_facts(catalog: &Catalog, s: &mut Setup) {
    for item in catalog.of(Kind::Iostat) {
        if let Ok(Record::Iostat(log)) = &item.record {
            if let Some(k) = log
                .banner
                .as_deref()
                .and_then(|b| b.strip_prefix("Linux "))
                .and_then(|r| r.split_whitespace().next())
            {
                s.put("kernel", Read::text(k, item.rel.clone()));
                return;
            }
        }
    }
}

/// The link's bandwidth as `ib_read_bw` measured it, with the line it was read from.
fn link_read(b: &crate::parse::host::ib_bw::IbBw, rel: &str) -> Read {
    let v = format!(
        "{:.1} Gb/s measured by {}{}",
        b.average_gbit_s,
        b.test.as_deref().unwrap_or("perftest"),
        b.link_type
            .as_ref()
            .map(|t| format!(" over {t}"))
            .unwrap_or_default()
    );
    Read::num(v, b.average_gbit_s, at(rel, Some(b.line)))
}

/// The first `ib_read_bw` output in the catalog.
pub fn link(catalog: &Catalog) -> Option<Read> {
    catalog.of(Kind::Host).find_map(|item| match &item.record {
        Ok(Record::Host(h)) => match h.as_ref() {
            HostFile::IbBw(b) => Some(link_read(b, &item.rel)),
            _ => None,
        },
        _ => None,
    })
}

fn host_facts(catalog: &Catalog, s: &mut Setup) {
    for item in catalog.of(Kind::Host) {
        let Ok(Record::Host(h)) = &item.record else {
            continue;
        };
        let rel = item.rel.as_str();
        match h.as_ref() {
            HostFile::GpuList(l) if !l.gpus.is_empty() => {
                let first = &l.gpus[0];
                let model = if l.gpus.iter().all(|g| g == first) {
                    first.clone()
                } else {
                    l.gpus.join(", ")
                };
                s.put("gpu-model", Read::text(model, rel));
                s.put(
                    "gpu-count",
                    Read::num(l.gpus.len().to_string(), l.gpus.len() as f64, rel),
                );
            }
            HostFile::GpuQuery(q) => gpu_query_facts(q, rel, s),
            HostFile::GpuTopo(t) if t.gpus > 0 => gpu_topo_facts(t, rel, s),
            HostFile::IbBw(b) => s.put("link-gbit", link_read(b, rel)),
            HostFile::NvmeSubsys(n) => {
                let mut transports: Vec<&str> = n.paths.iter().map(|(_, t)| t.as_str()).collect();
                transports.sort_unstable();
                transports.dedup();
                if !transports.is_empty() {
                    s.put("transport", Read::text(transports.join(", "), rel));
                }
            }
            HostFile::NvmeList(l) if !l.devices.is_empty() => nvme_list_facts(l, rel, s),
            HostFile::Uname(u) => s.put("kernel", Read::text(u.kernel.clone(), rel)),
            HostFile::Lscpu(c) => {
                if let Some(m) = &c.model {
                    let v = match c.sockets {
                        Some(n) => format!("{n} × {m}"),
                        None => m.clone(),
                    };
                    s.put("cpu", Read::text(v, rel));
                }
            }
            HostFile::Free(f) => {
                if let Some(g) = f.total_gib {
                    s.put("memory", Read::num(format!("{g:.0} GiB"), g, rel));
                }
            }
            HostFile::OsRelease(o) => {
                if let Some(p) = &o.pretty_name {
                    s.put("os", Read::text(p.clone(), rel));
                }
            }
            HostFile::Product(p) if !p.name.is_empty() => {
                s.put("server", Read::text(p.name.clone(), rel))
            }
            _ => {}
        }
    }
}

/// `nvidia-smi -q`: the driver (its major version as the number), the GPU model and count.
fn gpu_query_facts(q: &crate::parse::host::nvidia_smi::GpuQuery, rel: &str, s: &mut Setup) {
    if let Some(d) = &q.driver {
        let major = d.split('.').next().and_then(|m| m.parse::<f64>().ok());
        s.put(
            "driver",
            Read {
                value: d.clone(),
                number: major,
                source: rel.into(),
            },
        );
    }
    if let Some(p) = &q.product {
        s.put("gpu-model", Read::text(p.clone(), rel));
    }
    if let Some(n) = q.attached {
        s.put("gpu-count", Read::num(n.to_string(), n as f64, rel));
    }
}

/// `nvidia-smi topo -m`: the NVLink domains.
fn gpu_topo_facts(t: &crate::parse::host::nvidia_smi::GpuTopo, rel: &str, s: &mut Setup) {
    let v = if t.nvlink_domains.iter().all(|&d| d == 1) {
        format!("no NVLink between the {} GPUs", t.gpus)
    } else {
        format!(
            "{} NVLink domain(s) of {} GPUs",
            t.nvlink_domains.len(),
            t.nvlink_domains
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" + ")
        )
    };
    s.put(
        "nvlink",
        Read {
            value: v,
            number: Some(t.nvlink_domains.len() as f64),
            source: rel.into(),
        },
    );
    s.facts.insert(
        "nvlink-sizes".into(),
        Read::text(
            t.nvlink_domains
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(","),
            rel,
        ),
    );
}

/// `nvme list`: every device, and the drives by model and size.
fn nvme_list_facts(l: &crate::parse::host::nvme::NvmeList, rel: &str, s: &mut Setup) {
    s.facts.insert(
        "nvme-devices".into(),
        Read::text(
            l.devices
                .iter()
                .map(|d| format!("{}={}={}", d.node, d.model, d.size.as_deref().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(";"),
            rel,
        ),
    );
    let mut models: BTreeMap<String, usize> = BTreeMap::new();
    for d in &l.devices {
        let key = match &d.size {
            Some(sz) => format!(
                "{} ({})",
                d.model,
                sz.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            None => d.model.clone(),
        };
        *models.entry(key).or_default() += 1;
    }
    let v = models
        .iter()
        .map(|(m, n)| format!("{n} × {m}"))
        .collect::<Vec<_>>()
        .join(", ");
    s.put("drives", Read::num(v, l.devices.len() as f64, rel));
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

fn server_facts(catalog: &Catalog, s: &mut Setup) {
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

fn compose_facts(catalog: &Catalog, s: &mut Setup) {
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

fn fio_facts(catalog: &Catalog, s: &mut Setup) {
    // Every array's devices, for comparisons: `adp: /dev/a:/dev/b; raid10: /dev/c`.
    let mut devices: BTreeMap<String, (String, String)> = BTreeMap::new();
    for item in catalog.of(Kind::Fio) {
        let Some(rec) = item.fio_record() else {
            continue;
        };
        let rel = item.rel.as_str();
        if let Some(v) = &rec.output.fio_version {
            s.put("fio-version", Read::text(v.clone(), rel));
        }
        // The first reporting group's options: global and job options merged at ingest.
        let Some(opts) = rec.groups.first().map(|g| &g.options) else {
            continue;
        };
        if opts.get("ioengine").is_some_and(|e| e == "spdk_bdev") {
            continue;
        }
        if let Some(d) = opts.get("direct") {
            s.put("fio-direct", Read::text(d.clone(), rel));
        }
        if let Some(f) = opts.get("filename") {
            s.put("fio-filename", Read::text(f.clone(), rel));
            let array = layout::name_of(layout::dir_of(rel)).to_string();
            devices.entry(array).or_insert((f.clone(), rel.to_string()));
        }
        if let Some(c) = opts.get("buffer_compress_percentage") {
            if let Ok(n) = c.parse::<f64>() {
                s.put("fio-compress", Read::num(c.clone(), n, rel));
            }
        }
    }
    if !devices.is_empty() {
        let value = devices
            .iter()
            .map(|(a, (f, _))| format!("{a}: {f}"))
            .collect::<Vec<_>>()
            .join("; ");
        let source = devices
            .values()
            .map(|(_, r)| r.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        s.put("fio-devices", Read::text(value, source));
    }
}
