//! SPDK bdevperf results (`bdevperf.py perform_tests` or bdevperf's JSON output):
//! `{"results": [{"job", "workload", "queue_depth", "io_size", "iops", "mibps",
//! "io_failed", "avg_latency_us", ...}], "core_count": N}`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ParseError, Problem};
use crate::parse::text::{read_capped, TextCheck};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct BdevperfJob {
    pub job: String,
    #[serde(default)]
    pub core_mask: Option<String>,
    pub workload: String,
    #[serde(default)]
    pub status: Option<String>,
    pub queue_depth: u64,
    pub io_size: u64,
    #[serde(default)]
    pub runtime: f64,
    pub iops: f64,
    #[serde(default)]
    pub mibps: f64,
    #[serde(default)]
    pub io_failed: u64,
    #[serde(default)]
    pub io_timeout: u64,
    #[serde(default)]
    pub avg_latency_us: Option<f64>,
    #[serde(default)]
    pub min_latency_us: Option<f64>,
    #[serde(default)]
    pub max_latency_us: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bdevperf {
    pub results: Vec<BdevperfJob>,
    pub core_count: Option<u64>,
}

pub fn parse_path(path: &Path) -> Result<Bdevperf, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

/// Whether a JSON document looks like bdevperf's (a `results` list with `workload`).
pub fn looks_like(v: &serde_json::Value) -> bool {
    v.get("results")
        .and_then(|r| r.as_array())
        .is_some_and(|r| r.iter().any(|j| j.get("workload").is_some()))
}

pub fn parse_bytes(bytes: &[u8]) -> Result<Bdevperf, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
    // bdevperf.py prints log lines before the JSON; start at the first `{` line.
    // Offsets from the lines as they are, terminators included (`\r\n` is two bytes).
    let start = text
        .split_inclusive('\n')
        .scan(0usize, |off, l| {
            let here = *off;
            *off += l.len();
            Some((here, l))
        })
        .find(|(_, l)| l.trim_start().starts_with('{'))
        .map(|(o, _)| o)
        .ok_or_else(|| Problem::whole("no JSON object from bdevperf"))?;
    let line0 = text[..start].lines().count();
    let v: serde_json::Value = serde_json::Deserializer::from_str(&text[start..])
        .into_iter()
        .next()
        .ok_or_else(|| Problem::whole("no JSON object from bdevperf"))?
        .map_err(|e| Problem::at(line0 + e.line(), format!("invalid JSON: {e}")))?;
    if let Some(err) = v.get("error") {
        return Err(Problem::at(
            line0 + 1,
            format!("bdevperf RPC error: {err} (a failing job aborts bdevperf unless run with -f)"),
        ));
    }
    if !looks_like(&v) {
        return Err(Problem::at(
            line0 + 1,
            "not bdevperf output (no `results` with `workload`)",
        ));
    }
    let results: Vec<BdevperfJob> = serde_json::from_value(v["results"].clone())
        .map_err(|e| Problem::at(line0 + 1, format!("bdevperf results: {e}")))?;
    Ok(Bdevperf {
        results,
        core_count: v.get("core_count").and_then(|c| c.as_u64()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: &str = r#"{"results": [{"job": "raid5", "core_mask": "0x1", "workload": "randread",
  "status": "finished", "queue_depth": 32, "io_size": 8192, "runtime": 3.000068,
  "iops": 340909.6, "mibps": 2663.36, "io_failed": 0, "io_timeout": 0,
  "avg_latency_us": 93.81, "min_latency_us": 6.99, "max_latency_us": 4133.81}],
 "core_count": 1}"#;

    #[test]
    fn reads_perform_tests_output() {
        let b = parse_bytes(REAL.as_bytes()).expect("parses");
        assert_eq!(b.results[0].iops, 340909.6);
        assert_eq!(b.results[0].io_size, 8192);
        assert_eq!(b.core_count, Some(1));
        let logged = format!("[2026-11-30 00:00:00] INFO: starting\n{REAL}\n");
        assert!(parse_bytes(logged.as_bytes()).is_ok());
    }

    #[test]
    fn crlf_lines_with_non_ascii_text_before_the_json() {
        let logged = format!("[2026-11-30] Démarrage — ünïcode\r\nzweite Zeile ö\r\n{REAL}\r\n");
        let b = parse_bytes(logged.as_bytes()).expect("parses");
        assert_eq!(b.results[0].iops, 340909.6);
    }

    #[test]
    fn names_rpc_errors_and_other_json() {
        let e = parse_bytes(br#"{"error": {"code": -32603, "message": "x"}}"#).expect_err("rpc");
        assert!(e.reason.contains("-32603"));
        assert!(parse_bytes(b"{\"jobs\": []}").is_err());
    }
}
