//! Test 1 transcripts: the procedure's `ask` helper prints one line per request,
//! `time 2.118532 s  {"prompt_tokens":196531,"cached":196480}`; people paste these into
//! files. Saved `response.json` files (OpenAI completions) are read too.

use std::path::Path;

use serde::Serialize;

use crate::error::{ParseError, Problem};
use crate::parse::text::{read_capped, TextCheck};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attempt {
    /// 1-based line in the transcript.
    pub line: usize,
    /// curl's time_total: with max_tokens 1, the time to first token.
    pub seconds: Option<f64>,
    pub prompt_tokens: Option<u64>,
    /// `prompt_tokens_details.cached_tokens`; None when the server sent null.
    pub cached: Option<u64>,
}

pub fn parse_path(path: &Path) -> Result<Vec<Attempt>, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

/// Reads every `time ... s  {...}` line; other lines (prompts, shell noise) are passed over.
pub fn parse_bytes(bytes: &[u8]) -> Result<Vec<Attempt>, Problem> {
    TextCheck::of(bytes)?;
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') && trimmed.contains("\"usage\"") {
        return response_json(trimmed).map(|a| vec![a]);
    }
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let Some(rest) = line.strip_prefix("time ") else {
            continue;
        };
        let Some((secs, json)) = rest.split_once(" s") else {
            return Err(Problem::at(
                i + 1,
                "an `ask` line without ` s` after the time",
            ));
        };
        let seconds: f64 = secs
            .trim()
            .parse()
            .map_err(|_| Problem::at(i + 1, format!("`{secs}` is not a time in seconds")))?;
        let json = json.trim();
        let v: serde_json::Value = serde_json::from_str(json).map_err(|e| {
            Problem::at(
                i + 1,
                format!("the usage part is not JSON ({e}); did curl fail?"),
            )
        })?;
        out.push(Attempt {
            line: i + 1,
            seconds: Some(seconds),
            prompt_tokens: v.get("prompt_tokens").and_then(|x| x.as_u64()),
            cached: v.get("cached").and_then(|x| x.as_u64()),
        });
    }
    if out.is_empty() {
        return Err(Problem::whole(
            "no `time <seconds> s  {\"prompt_tokens\":...,\"cached\":...}` lines from the ask helper",
        ));
    }
    Ok(out)
}

fn response_json(text: &str) -> Result<Attempt, Problem> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Problem::at(e.line(), format!("invalid JSON: {e}")))?;
    let usage = &v["usage"];
    Ok(Attempt {
        line: 1,
        seconds: None,
        prompt_tokens: usage["prompt_tokens"].as_u64(),
        cached: usage["prompt_tokens_details"]["cached_tokens"].as_u64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ask_lines_in_order() {
        let text = "$ ask\ntime 47.712 s  {\"prompt_tokens\":196531,\"cached\":0}\n\ntime 2.118532 s  {\"prompt_tokens\":196531,\"cached\":196480}\n";
        let a = parse_bytes(text.as_bytes()).expect("parses");
        assert_eq!(a.len(), 2);
        assert_eq!(a[1].seconds, Some(2.118532));
        assert_eq!(a[1].cached, Some(196480));
        assert_eq!(a[1].line, 4);
    }

    #[test]
    fn reads_null_cached_and_response_json() {
        let a = parse_bytes(b"time 1.5 s  {\"prompt_tokens\":10,\"cached\":null}\n").expect("ok");
        assert_eq!(a[0].cached, None);
        let r = parse_bytes(br#"{"id":"x","usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":8}}}"#)
            .expect("response.json");
        assert_eq!(
            (r[0].prompt_tokens, r[0].cached, r[0].seconds),
            (Some(10), Some(8), None)
        );
    }

    #[test]
    fn names_a_broken_line() {
        let e = parse_bytes(b"time 1.5 s  curl: (7) Failed to connect\n").expect_err("bad");
        assert_eq!(e.line, Some(1));
        assert!(parse_bytes(b"hello\n").is_err());
    }
}
