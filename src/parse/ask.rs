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
    /// Why the request failed, when it did: no usage (an error body, curl or jq failed)
    /// or `prompt_tokens: null`. A failed request measures nothing.
    pub failed: Option<String>,
}

pub fn parse_path(path: &Path) -> Result<Vec<Attempt>, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

/// Reads every `time ... s  {...}` line; other lines (prompts, shell noise) are passed over.
pub fn parse_bytes(bytes: &[u8]) -> Result<Vec<Attempt>, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
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
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(Problem::at(
                i + 1,
                format!("a time of {secs} s cannot be measured"),
            ));
        }
        out.push(attempt(i + 1, seconds, json.trim())?);
    }
    if out.is_empty() {
        return Err(Problem::whole(
            "no `time <seconds> s  {\"prompt_tokens\":...,\"cached\":...}` lines from the ask helper",
        ));
    }
    Ok(out)
}

/// One `ask` line after its time: the usage JSON, or whatever stands where it should be.
fn attempt(line: usize, seconds: f64, rest: &str) -> Result<Attempt, Problem> {
    let mut a = Attempt {
        line,
        seconds: Some(seconds),
        prompt_tokens: None,
        cached: None,
        failed: None,
    };
    if !(rest.starts_with('{') || rest == "null") {
        a.failed = Some(if rest.is_empty() {
            "no usage after the time: the response held no JSON (curl or jq failed)".into()
        } else {
            format!("no usage after the time, but `{}`", clip(rest, 80))
        });
        return Ok(a);
    }
    let v: serde_json::Value = serde_json::from_str(rest).map_err(|e| {
        Problem::at(
            line,
            format!("the usage part is not JSON ({e}); was the line cut?"),
        )
    })?;
    if v.is_null() {
        a.failed = Some("usage is null: the server answered with an error".into());
        return Ok(a);
    }
    a.prompt_tokens = v.get("prompt_tokens").and_then(|x| x.as_u64());
    a.cached = v.get("cached").and_then(|x| x.as_u64());
    check(&mut a).map_err(|why| Problem::at(line, why))?;
    // An error body says why, in the server's words.
    if let (Some(why), Some(msg)) = (
        a.failed.as_mut(),
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .and_then(|m| m.as_str()),
    ) {
        *why = format!(
            "prompt_tokens is null: the server answered `{}`",
            clip(msg, 160)
        );
    }
    Ok(a)
}

/// A request without prompt_tokens failed; cached tokens above the prompt are impossible.
fn check(a: &mut Attempt) -> Result<(), String> {
    match (a.prompt_tokens, a.cached) {
        (None, _) => {
            a.failed = Some(
                "prompt_tokens is null: the request failed (an error body, e.g. a prompt longer than --max-model-len)".into(),
            );
            Ok(())
        }
        (Some(p), Some(c)) if c > p => Err(format!(
            "cached {c} is more than prompt_tokens {p}: not a measurement"
        )),
        _ => Ok(()),
    }
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

fn response_json(text: &str) -> Result<Attempt, Problem> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Problem::at(e.line(), format!("invalid JSON: {e}")))?;
    let usage = &v["usage"];
    let mut a = Attempt {
        line: 1,
        seconds: None,
        prompt_tokens: usage["prompt_tokens"].as_u64(),
        cached: usage["prompt_tokens_details"]["cached_tokens"].as_u64(),
        failed: None,
    };
    check(&mut a).map_err(|why| Problem::at(1, why))?;
    Ok(a)
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
        let e = parse_bytes(b"time 1.5 s  {\"prompt_tokens\":10,\n").expect_err("cut");
        assert_eq!(e.line, Some(1));
        assert!(parse_bytes(b"hello\n").is_err());
        let e =
            parse_bytes(b"time -2 s  {\"prompt_tokens\":10,\"cached\":0}\n").expect_err("negative");
        assert!(e.reason.contains("cannot be measured"), "{e:?}");
        let e = parse_bytes(b"x\ntime 2 s  {\"prompt_tokens\":10,\"cached\":11}\n")
            .expect_err("impossible");
        assert_eq!(e.line, Some(2));
        assert!(e.reason.contains("more than prompt_tokens"), "{e:?}");
    }

    #[test]
    fn failed_requests_are_attempts_that_measure_nothing() {
        let text = b"time 0.01 s  {\"prompt_tokens\":null,\"cached\":null}\ntime 0.002 s  \ntime 1.5 s  curl: (7) Failed to connect\ntime 0.2 s  null\n";
        let a = parse_bytes(text).expect("read");
        assert_eq!(a.len(), 4);
        assert!(a.iter().all(|x| x.failed.is_some()), "{a:?}");
        assert!(a[0]
            .failed
            .as_deref()
            .is_some_and(|f| f.contains("max-model-len")));
        assert!(a[2]
            .failed
            .as_deref()
            .is_some_and(|f| f.contains("Failed to connect")));
        let ok = parse_bytes(b"time 1.5 s  {\"prompt_tokens\":10,\"cached\":null}\n").expect("ok");
        assert!(
            ok[0].failed.is_none(),
            "a null cached is no failure, just unreported"
        );
    }
}
