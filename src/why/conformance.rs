//! The reference-setup tables beside what the files show: match, differs or unknown per
//! row, and what each difference predicts.

use serde::Serialize;

use super::reference::{Row, TABLES};
use super::setup::{Read, Setup};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Conform {
    Match,
    Differs,
    Unknown,
}

impl Conform {
    pub fn label(self) -> &'static str {
        match self {
            Conform::Match => "match",
            Conform::Differs => "differs",
            Conform::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConformanceRow {
    pub id: String,
    pub part: String,
    pub reference: String,
    /// What the files show, or `unknown`.
    pub yours: String,
    pub status: Conform,
    /// For a difference, what it predicts; for unknown, the file that would give it.
    pub predicts: String,
    /// The file (and line) the value was read from.
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conformance {
    pub title: String,
    pub source: String,
    pub rows: Vec<ConformanceRow>,
}

/// The tables whose suites are among `suites`.
pub fn tables(setup: &Setup, suites: &[&str]) -> Vec<Conformance> {
    TABLES
        .iter()
        .filter(|t| t.suites.iter().any(|s| suites.contains(s)))
        .map(|t| Conformance {
            title: t.title.to_string(),
            source: t.source.to_string(),
            rows: t.rows.iter().map(|r| judge(r, setup)).collect(),
        })
        .collect()
}

fn unknown(row: &Row) -> ConformanceRow {
    ConformanceRow {
        id: row.id.into(),
        part: row.part.into(),
        reference: row.reference.into(),
        yours: "unknown".into(),
        status: Conform::Unknown,
        predicts: format!("the files do not say: {} would give it", row.would_give),
        source: String::new(),
    }
}

fn row_with(row: &Row, read: &Read, ok: bool, extra: Option<String>) -> ConformanceRow {
    ConformanceRow {
        id: row.id.into(),
        part: row.part.into(),
        reference: row.reference.into(),
        yours: read.value.clone(),
        status: if ok { Conform::Match } else { Conform::Differs },
        predicts: if ok {
            String::new()
        } else {
            match extra {
                Some(e) => format!("{} {e}", row.predicts),
                None => row.predicts.to_string(),
            }
        },
        source: read.source.clone(),
    }
}

fn contains(read: &Read, needle: &str) -> bool {
    read.value
        .to_ascii_lowercase()
        .contains(&needle.to_ascii_lowercase())
}

fn judge(row: &Row, s: &Setup) -> ConformanceRow {
    let get = |k: &str| s.get(k);
    let num_is = |r: &Read, want: f64| r.number.is_some_and(|n| (n - want).abs() < 1e-9);
    match row.id {
        "gpu-model" => get("gpu-model").map_or_else(|| unknown(row), |r| row_with(row, r, contains(r, "H200"), None)),
        "gpu-count" => get("gpu-count").map_or_else(|| unknown(row), |r| row_with(row, r, num_is(r, 8.0), None)),
        "nvlink" => match (get("nvlink"), get("nvlink-sizes")) {
            (Some(r), Some(sizes)) => row_with(row, r, sizes.value == "4,4", None),
            _ => unknown(row),
        },
        "driver" => get("driver").map_or_else(|| unknown(row), |r| row_with(row, r, r.number.is_some_and(|m| m >= 580.0), None)),
        "vllm-version" => get("vllm-version").map_or_else(
            || unknown(row),
            |r| row_with(row, r, ["0.28.0", "0.29.0"].iter().any(|v| r.value.trim_start_matches('v') == *v), None),
        ),
        "connector-release" => get("connector-release").map_or_else(|| unknown(row), |r| row_with(row, r, r.value == "6.1.1", None)),
        "model" => get("model").map_or_else(
            || unknown(row),
            |r| row_with(row, r, contains(r, "glm-5.3") && !contains(r, "bf16"), None),
        ),
        "tensor-parallel" => get("tensor-parallel").map_or_else(
            || unknown(row),
            |r| {
                let extra = r.number.filter(|n| *n > 0.0 && *n < 8.0).map(|n| {
                    format!("With {n} GPUs holding the KV cache instead of 8, expect about {:.0}% of the reference's GPU KV cache, so GPU memory overflows at fewer clients.", 100.0 * n / 8.0)
                });
                row_with(row, r, num_is(r, 8.0), extra)
            },
        ),
        "mtp" => get("mtp").map_or_else(|| unknown(row), |r| row_with(row, r, num_is(r, 1.0) && !r.value.contains("num_speculative_tokens\": 2") && !r.value.contains("'num_speculative_tokens': 2"), None)),
        "max-model-len" => get("max-model-len").map_or_else(|| unknown(row), |r| row_with(row, r, num_is(r, 256_000.0), None)),
        "kv-cache-tokens" => get("kv-cache-tokens").map_or_else(
            || unknown(row),
            |r| {
                let ok = r.number.is_some_and(|n| (n / 545_536.0 - 1.0).abs() <= 0.02);
                let extra = r.number.map(|n| format!("Yours holds {:.0}% of the reference's tokens.", 100.0 * n / 545_536.0));
                row_with(row, r, ok, extra)
            },
        ),
        "link-gbit" => get("link-gbit").map_or_else(
            || unknown(row),
            |r| {
                // ib_read_bw reaches ~90-97% of a link's signalling rate.
                let ok = r.number.is_some_and(|g| (85.0..=110.0).contains(&g));
                let extra = r.number.filter(|g| *g > 0.0).map(|g| {
                    if g < 85.0 {
                        format!("At {g:.1} Gb/s against about 97 Gb/s on a 100 Gb/s port, the link-bound restore floor is about {:.1}x the reference's.", 97.0 / g)
                    } else {
                        format!("At {g:.1} Gb/s the link is faster than the reference's: restores may then be bounded by the card's SSDs, and may beat the published times.")
                    }
                });
                row_with(row, r, ok, extra)
            },
        ),
        "transport" => get("transport").map_or_else(|| unknown(row), |r| row_with(row, r, r.value.split(", ").any(|t| t == "rdma"), None)),
        "cache-tier" => cache_tier(row, s),
        "server" => get("server").map_or_else(|| unknown(row), |r| row_with(row, r, contains(r, "R750"), None)),
        "os" => get("os").map_or_else(|| unknown(row), |r| row_with(row, r, contains(r, "ubuntu") && contains(r, "24.04"), None)),
        "cpu" => get("cpu").map_or_else(|| unknown(row), |r| row_with(row, r, contains(r, "6346") && r.value.starts_with("2 ×"), None)),
        "memory" => get("memory").map_or_else(
            || unknown(row),
            // 512 GB installed shows as about 500 GiB in `free -g`.
            |r| row_with(row, r, r.number.is_some_and(|g| (440.0..=530.0).contains(&g)), None),
        ),
        "drives" => drives(row, s),
        "fio-io" => fio_io(row, s),
        _ => unknown(row),
    }
}

/// The size of `node` in `nvme list`, in TB, from the `nvme-devices` fact.
fn namespace_tb(s: &Setup, node: &str) -> Option<(f64, String)> {
    let devs = s.get("nvme-devices")?;
    devs.value.split(';').find_map(|d| {
        let mut p = d.splitn(3, '=');
        let (n, _model, size) = (p.next()?, p.next()?, p.next()?);
        if n != node {
            return None;
        }
        let mut w = size.split_whitespace();
        let (v, unit) = (w.next()?.parse::<f64>().ok()?, w.next()?);
        let tb = match unit {
            "TB" => v,
            "GB" => v / 1000.0,
            "PB" => v * 1000.0,
            _ => return None,
        };
        Some((tb, devs.source.clone()))
    })
}

fn cache_tier(row: &Row, s: &Setup) -> ConformanceRow {
    let Some(dev) = s.get("cache-device") else {
        return unknown(row);
    };
    let Some((tb, list)) = namespace_tb(s, dev.value.split(',').next().unwrap_or("")) else {
        let mut r = unknown(row);
        r.predicts = format!(
            "the gateway uses {} ({}) but no `nvme list` gives its size: system/nvme-list.txt would",
            dev.value, dev.source
        );
        return r;
    };
    let read = Read {
        value: format!("{} of {tb:.2} TB (the gateway's namespace)", dev.value),
        number: Some(tb),
        source: format!("{}, {list}", dev.source),
    };
    // Two 3.84 TB drives in RAID 0: 7.68 TB.
    let ok = (7.0..=8.0).contains(&tb);
    let extra = Some(format!(
        "{tb:.2} TB is about {:.1} drive(s) of 3.84 TB in RAID 0.",
        tb / 3.84
    ));
    row_with(row, &read, ok, extra)
}

fn drives(row: &Row, s: &Setup) -> ConformanceRow {
    if let Some(r) = s.get("drives") {
        let ok = r.number == Some(4.0)
            && (contains(r, "PM9A3") || contains(r, "MZQL23T8"))
            && !r.value.contains(", ");
        return row_with(row, r, ok, None);
    }
    if let Some(f) = s.get("fio-filename") {
        let members: Vec<&str> = f.value.split(':').filter(|m| !m.is_empty()).collect();
        let loops = members.iter().all(|m| m.starts_with("/dev/loop"));
        let value = if loops {
            format!("{} loop device(s): {}", members.len(), f.value)
        } else {
            format!("fio's filename {} (models not recorded)", f.value)
        };
        let read = Read {
            value,
            number: Some(members.len() as f64),
            source: f.source.clone(),
        };
        if loops {
            return row_with(row, &read, false, None);
        }
        let mut r = row_with(row, &read, false, None);
        r.status = Conform::Unknown;
        r.predicts = format!(
            "the drives' models are not in the results: {} would give them",
            row.would_give
        );
        return r;
    }
    unknown(row)
}

fn fio_io(row: &Row, s: &Setup) -> ConformanceRow {
    let (direct, file, compress) = (
        s.get("fio-direct"),
        s.get("fio-filename"),
        s.get("fio-compress"),
    );
    if direct.is_none() && file.is_none() && compress.is_none() {
        return unknown(row);
    }
    let mut parts = Vec::new();
    let mut ok = true;
    let mut unknown_parts = Vec::new();
    match direct {
        Some(d) => {
            parts.push(format!("direct={}", d.value));
            ok &= d.value == "1" || d.value == "true";
        }
        None => unknown_parts.push("direct"),
    }
    match file {
        Some(f) => {
            let raw = f.value.split(':').all(|m| m.starts_with("/dev/"));
            parts.push(if raw {
                format!("raw block device ({})", f.value)
            } else {
                format!("files ({})", f.value)
            });
            ok &= raw;
        }
        None => unknown_parts.push("filename"),
    }
    match compress {
        Some(c) => {
            parts.push(format!("{}% compressible", c.value));
            ok &= c.number == Some(67.0);
        }
        None => unknown_parts.push("buffer_compress_percentage"),
    }
    if !unknown_parts.is_empty() {
        parts.push(format!("{} not recorded", unknown_parts.join(", ")));
    }
    let source = [direct, file, compress]
        .iter()
        .flatten()
        .map(|r| r.source.clone())
        .next()
        .unwrap_or_default();
    let read = Read {
        value: format!("fio, {}", parts.join(", ")),
        number: None,
        source,
    };
    let mut r = row_with(row, &read, ok, None);
    if ok && !unknown_parts.is_empty() {
        r.status = Conform::Unknown;
        r.predicts = format!("{} not in the results", unknown_parts.join(", "));
    }
    r
}
