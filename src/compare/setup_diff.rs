//! What differs between the two sides' setups, read from their files (the facts the
//! conformance tables use, and fio's runtime), each marked as likely to move the numbers
//! or not.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Campaign;
use crate::model::measurement::{ParamValue, Scope};
use crate::why::setup;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetupDiff {
    pub what: String,
    pub base: String,
    pub new: String,
    /// Whether the difference is likely to move the numbers.
    pub moves_numbers: bool,
    pub why: String,
    pub sources: Vec<String>,
}

/// (fact key, name, likely to move the numbers, why).
const FACTS: &[(&str, &str, bool, &str)] = &[
    (
        "fio-version",
        "fio version",
        true,
        "fio's engines, accounting and defaults change between releases",
    ),
    (
        "kernel",
        "kernel",
        true,
        "the block layer, md and NVMe drivers change between kernels",
    ),
    ("os", "operating system", true, "another kernel and drivers"),
    ("server", "server", true, "other PCIe lanes and CPUs"),
    (
        "cpu",
        "CPU",
        true,
        "md RAID and the I/O path run on the host CPU",
    ),
    (
        "memory",
        "memory",
        false,
        "direct I/O bypasses the page cache",
    ),
    (
        "drives",
        "drives (nvme list)",
        true,
        "other drives are other hardware",
    ),
    (
        "fio-devices",
        "devices per array (fio's filename)",
        true,
        "other devices are other hardware",
    ),
    (
        "fio-direct",
        "direct I/O",
        true,
        "buffered I/O measures the page cache",
    ),
    (
        "fio-compress",
        "buffer compressibility (%)",
        true,
        "the card's inline compression saves more or less",
    ),
    (
        "vllm-version",
        "vLLM",
        true,
        "another release schedules and caches differently",
    ),
    (
        "connector-release",
        "connector release",
        true,
        "another connector may restore differently",
    ),
    (
        "model",
        "model",
        true,
        "another KV size per token and prefill cost",
    ),
    (
        "tensor-parallel",
        "tensor parallelism",
        true,
        "other GPUs hold the KV cache and run prefill",
    ),
    (
        "max-model-len",
        "context length",
        true,
        "changes how many requests fit",
    ),
    (
        "mtp",
        "speculative decoding",
        true,
        "changes generation rates",
    ),
    (
        "kv-cache-tokens",
        "GPU KV cache size",
        true,
        "sets where GPU memory overflows",
    ),
    (
        "gpu-model",
        "GPU",
        true,
        "another GPU prefills and decodes at another speed",
    ),
    (
        "gpu-count",
        "GPU count",
        true,
        "less or more GPU memory and compute",
    ),
    ("nvlink", "NVLink", true, "restores fan out over NVLink"),
    (
        "driver",
        "NVIDIA driver",
        false,
        "rarely moves these numbers",
    ),
    (
        "link-gbit",
        "link bandwidth (ib_read_bw, Gb/s)",
        true,
        "long-prompt restores are bounded by the link",
    ),
    (
        "transport",
        "NVMe-oF transport",
        true,
        "TCP adds copies and latency over RDMA",
    ),
];

/// A side's values of one fact over its inputs, and where they were read.
fn values(side: &[(&setup::Setup, String)], key: &str) -> (Vec<setup::Read>, Vec<String>) {
    let mut vals: Vec<setup::Read> = Vec::new();
    let mut sources = Vec::new();
    for (s, input) in side {
        if let Some(r) = s.get(key) {
            if !vals.iter().any(|v| v.value == r.value) {
                vals.push(r.clone());
            }
            sources.push(format!("{input}: {}", r.source));
        }
    }
    (vals, sources)
}

fn same(a: &[setup::Read], b: &[setup::Read]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).all(|(x, y)| match (x.number, y.number) {
        // Measured numbers (link bandwidth) wobble: 5% apart is the same setup.
        (Some(p), Some(q))
            if x.value != y.value && p > 0.0 && q > 0.0 && x.value.contains("measured") =>
        {
            (p / q - 1.0).abs() <= 0.05
        }
        _ => x.value == y.value,
    })
}

fn show(v: &[setup::Read]) -> String {
    if v.is_empty() {
        "unknown".into()
    } else {
        v.iter()
            .map(|r| r.value.clone())
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

fn setups(side: &[Campaign]) -> Vec<(&setup::Setup, String)> {
    side.iter().map(|a| (&a.setup, a.input.clone())).collect()
}

/// The median runtime over a side's runs, from the runtimes the suites read (fio's own
/// account of each job).
fn fio_runtime(side: &[Campaign]) -> Option<f64> {
    let mut v: Vec<f64> = side
        .iter()
        .flat_map(|a| &a.parameters)
        .filter(|p| p.name == "runtime" && p.unit == Some(crate::model::measurement::Unit::Seconds))
        .filter_map(|p| match p.value {
            crate::model::measurement::ParamValue::Number(v) => Some(v),
            crate::model::measurement::ParamValue::Text(_) => None,
        })
        .filter(|v| v.is_finite())
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

pub fn diff(base: &[Campaign], new: &[Campaign]) -> Vec<SetupDiff> {
    let (b, n) = (setups(base), setups(new));
    let mut out = Vec::new();
    for (key, what, moves, why) in FACTS {
        let ((bv, bs), (nv, ns)) = (values(&b, key), values(&n, key));
        if (bv.is_empty() && nv.is_empty()) || same(&bv, &nv) {
            continue;
        }
        out.push(SetupDiff {
            what: what.to_string(),
            base: show(&bv),
            new: show(&nv),
            moves_numbers: *moves,
            why: if bv.is_empty() || nv.is_empty() {
                format!("known on one side only; if it differs: {why}")
            } else {
                why.to_string()
            },
            sources: bs.into_iter().chain(ns).collect(),
        });
    }
    out.extend(vllm_args(base, new));
    if let (Some(rb), Some(rn)) = (fio_runtime(base), fio_runtime(new)) {
        if (rb / rn - 1.0).abs() > 0.10 {
            out.push(SetupDiff {
                what: "fio runtime per job (median, s)".into(),
                base: format!("{rb:.1}"),
                new: format!("{rn:.1}"),
                moves_numbers: true,
                why: "shorter runs reach less of a steady state".into(),
                sources: vec!["the fio results' runtime (parameters: runtime)".into()],
            });
        }
    }
    out
}

/// Each server's logged arguments (`non-default args`), by variant, over a side: the
/// first input that records a variant's arguments gives them.
fn args_of(side: &[Campaign]) -> BTreeMap<String, (BTreeMap<String, String>, String)> {
    let mut out: BTreeMap<String, (BTreeMap<String, String>, String)> = BTreeMap::new();
    for a in side {
        let mut here: BTreeMap<String, (BTreeMap<String, String>, String)> = BTreeMap::new();
        for p in &a.parameters {
            let (Scope::Server, ParamValue::Text(v)) = (p.scope, &p.value) else {
                continue;
            };
            let e = here
                .entry(p.subject.clone())
                .or_insert_with(|| (BTreeMap::new(), format!("{}: {}", a.input, p.file)));
            e.0.insert(p.name.clone(), v.clone());
        }
        for (variant, args) in here {
            out.entry(variant).or_insert(args);
        }
    }
    out
}

/// vLLM arguments that differ between the sides, per variant (a server's arguments move
/// its numbers; which way depends on the argument).
fn vllm_args(base: &[Campaign], new: &[Campaign]) -> Vec<SetupDiff> {
    let (b, n) = (args_of(base), args_of(new));
    let mut out = Vec::new();
    for (variant, (ba, bsrc)) in &b {
        let Some((na, nsrc)) = n.get(variant) else {
            continue;
        };
        let mut keys: Vec<&String> = ba.keys().chain(na.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            let (x, y) = (ba.get(k), na.get(k));
            if x == y {
                continue;
            }
            let show = |v: Option<&String>| v.cloned().unwrap_or_else(|| "(default)".into());
            out.push(SetupDiff {
                what: format!("vLLM argument {k} ({variant})"),
                base: show(x),
                new: show(y),
                moves_numbers: true,
                why: "the server ran with other arguments".into(),
                sources: vec![bsrc.clone(), nsrc.clone()],
            });
        }
    }
    out
}
