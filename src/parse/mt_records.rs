//! The multi-turn benchmark client's `--stats-json-output`: a JSON list of per-request
//! records (vLLM `benchmarks/multi_turn`). Failed requests are not in it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ParseError, Problem};
use crate::parse::text::{read_capped, TextCheck};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Record {
    pub ttft_ms: f64,
    pub tpot_ms: f64,
    pub latency_ms: f64,
    /// Monotonic clock (perf_counter) in ms, not a Unix time.
    pub start_time_ms: f64,
    pub output_num_tokens: u64,
    #[serde(default)]
    pub input_num_tokens: Option<u64>,
    #[serde(default)]
    pub input_num_turns: Option<u64>,
    #[serde(default)]
    pub conversation_id: Option<String>,
    #[serde(default)]
    pub client_id: Option<i64>,
}

pub fn parse_path(path: &Path) -> Result<Vec<Record>, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

pub fn parse_bytes(bytes: &[u8]) -> Result<Vec<Record>, Problem> {
    TextCheck::of(bytes)?;
    // The usual case, read straight into records; anything wrong is read again below,
    // slowly, for the line and record that say what.
    if let Ok(records) = serde_json::from_slice::<Vec<Record>>(bytes) {
        if records.iter().all(valid) {
            return Ok(records);
        }
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Problem::whole("empty file"));
    }
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| Problem::at(e.line(), super::text::json_problem(&e, "list")))?;
    let list = value.as_array().ok_or_else(|| {
        Problem::at(
            1,
            "not the multi-turn client's --stats-json-output (expected a list of request records)",
        )
    })?;
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let r: Record = serde_json::from_value(item.clone())
            .map_err(|e| Problem::whole(format!("record {i}: {e}")))?;
        for (what, v) in [
            ("ttft_ms", r.ttft_ms),
            ("tpot_ms", r.tpot_ms),
            ("latency_ms", r.latency_ms),
            ("start_time_ms", r.start_time_ms),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(Problem::whole(format!("record {i}: {what} is {v}")));
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// The four times are finite and not negative.
fn valid(r: &Record) -> bool {
    [r.ttft_ms, r.tpot_ms, r.latency_ms, r.start_time_ms]
        .iter()
        .all(|v| v.is_finite() && *v >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_real_fixture() {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/kv-ladder-client/results/adp-1-L1.json");
        let r = parse_path(&p).expect("parses");
        assert_eq!(r.len(), 40);
        assert_eq!(r[0].output_num_tokens, 40);
        assert_eq!(r[0].conversation_id.as_deref(), Some("CONV_ID_1"));
    }

    #[test]
    fn refuses_what_is_not_a_record_list() {
        assert!(parse_bytes(b"").is_err());
        assert_eq!(parse_bytes(b"[]").expect("empty list is a list").len(), 0);
        let e = parse_bytes(b"{\"jobs\": []}").expect_err("object");
        assert!(e.reason.contains("expected a list"));
        let e = parse_bytes(b"[{\"ttft_ms\": 1}]").expect_err("missing keys");
        assert!(e.reason.contains("record 0"), "{e:?}");
        let e = parse_bytes(b"[{\"ttft_ms\": 1,\n").expect_err("cut");
        assert!(e.reason.contains("truncated"));
    }
}
