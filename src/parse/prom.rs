//! Prometheus text exposition (vLLM `/metrics` snapshots). vLLM's names contain a colon
//! (`vllm:prefix_cache_hits_total`), which prometheus-parse 0.2.5 silently skips, so this
//! small reader takes every sample line: `name{labels} value [timestamp]`.

use std::path::Path;

use serde::Serialize;

use crate::error::{ParseError, Problem};
use crate::parse::text::{read_capped, TextCheck};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    pub name: String,
    /// Label names and values, sorted by name (a repeated name keeps its last value).
    pub labels: Labels,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Snapshot {
    pub samples: Vec<Sample>,
}

impl Snapshot {
    /// The sum of a metric over all its label sets, or None when it is absent.
    pub fn sum(&self, name: &str) -> Option<f64> {
        let mut found = false;
        let mut total = 0.0;
        for s in self.samples.iter().filter(|s| s.name == name) {
            found = true;
            total += s.value;
        }
        found.then_some(total)
    }

    /// The first of several names that is present, summed (new names before old ones).
    pub fn sum_any(&self, names: &[&str]) -> Option<f64> {
        names.iter().find_map(|n| self.sum(n))
    }

    /// A label value seen on any sample of `name` (e.g. `model_name`).
    pub fn label(&self, name_prefix: &str, label: &str) -> Option<String> {
        self.samples
            .iter()
            .filter(|s| s.name.starts_with(name_prefix))
            .find_map(|s| {
                s.labels
                    .iter()
                    .find(|(k, _)| k == label)
                    .map(|(_, v)| v.clone())
            })
    }
}

pub fn parse_path(path: &Path) -> Result<Snapshot, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

pub fn parse_bytes(bytes: &[u8]) -> Result<Snapshot, Problem> {
    TextCheck::of(bytes)?;
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let mut samples = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        samples.push(parse_line(line).map_err(|why| Problem::at(i + 1, why))?);
    }
    if samples.is_empty() {
        return Err(Problem::whole(if text.trim().is_empty() {
            "empty file (the server did not answer /metrics?)"
        } else {
            "no metric samples"
        }));
    }
    Ok(Snapshot { samples })
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

pub(crate) fn parse_line(line: &str) -> Result<Sample, String> {
    // Bytes, not chars: a name is ASCII, and the first other byte ends it.
    let name_end = line
        .bytes()
        .position(|c| !is_name_char(char::from(c)))
        .unwrap_or(line.len());
    let name = &line[..name_end];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("not a metric line: `{}`", clip(line)));
    }
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(after) = rest.strip_prefix('{') {
        let (parsed, remaining) = parse_labels(after)?;
        labels = parsed;
        rest = remaining;
    }
    let mut fields = rest.split_whitespace();
    let value_text = fields
        .next()
        .ok_or_else(|| format!("metric `{name}` has no value"))?;
    let value = match value_text {
        "+Inf" | "Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        v => v
            .parse()
            .map_err(|_| format!("metric `{name}`: `{v}` is not a number"))?,
    };
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// Reads `k="v",k2="v2"}` and returns the labels and what follows the brace.
/// Label names and values, in order.
type Labels = Vec<(String, String)>;

fn parse_labels(s: &str) -> Result<(Labels, &str), String> {
    let mut labels: Labels = Vec::new();
    let mut rest = s.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            // Sorted by name, the last of a repeated name kept (as a map would).
            labels.reverse();
            labels.sort_by(|a, b| a.0.cmp(&b.0));
            labels.dedup_by(|later, kept| later.0 == kept.0);
            return Ok((labels, after));
        }
        let eq = memchr::memchr(b'=', rest.as_bytes()).ok_or("a label without `=`")?;
        let key = rest[..eq].trim().to_string();
        let after_eq = rest[eq + 1..].trim_start();
        let body = after_eq
            .strip_prefix('"')
            .ok_or("a label value without quotes")?;
        // The usual value has no escapes: taken as one slice.
        if let Some(q) =
            memchr::memchr2(b'"', b'\\', body.as_bytes()).filter(|&q| body.as_bytes()[q] == b'"')
        {
            labels.push((key, body[..q].to_string()));
            rest = body[q + 1..].trim_start();
            if let Some(after) = rest.strip_prefix(',') {
                rest = after.trim_start();
            }
            continue;
        }
        let mut value = String::new();
        let mut chars = body.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, other)) => value.push(other),
                    None => break,
                },
                '"' => {
                    end = Some(i);
                    break;
                }
                c => value.push(c),
            }
        }
        let end = end.ok_or("an unterminated label value")?;
        labels.push((key, value));
        rest = body[end + 1..].trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after.trim_start();
        }
    }
}

fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="glm-5.3"} 60032.0
vllm:prefix_cache_hits_total{engine="1",model_name="glm-5.3"} 40.0
vllm:prefix_cache_hits_created{engine="0",model_name="glm-5.3"} 1.7959984806616375e+09
vllm:request_success_total{finished_reason="stop",model_name="a,b\"c"} 3
process_open_fds 12
vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="m"} 7
"#;

    #[test]
    fn reads_colon_names_and_sums_label_sets() {
        let s = parse_bytes(TEXT.as_bytes()).expect("parses");
        assert_eq!(s.sum("vllm:prefix_cache_hits_total"), Some(60072.0));
        assert_eq!(s.sum("process_open_fds"), Some(12.0));
        assert_eq!(s.sum("vllm:prefix_cache_queries_total"), None);
        assert_eq!(
            s.label("vllm:request_success", "model_name").as_deref(),
            Some("a,b\"c")
        );
        assert_eq!(
            s.sum_any(&["vllm:prefix_cache_queries_total", "process_open_fds"]),
            Some(12.0)
        );
    }

    #[test]
    fn labels_are_sorted_and_a_repeated_name_keeps_its_last_value() {
        let s = parse_bytes(b"m{z=\"1\",a=\"x\\\"y\",z=\"2\"} 1\n").expect("parses");
        let l = &s.samples[0].labels;
        assert_eq!(
            l,
            &[
                ("a".to_string(), "x\"y".to_string()),
                ("z".to_string(), "2".to_string())
            ]
        );
    }

    #[test]
    fn names_the_line_of_a_bad_sample() {
        let err = parse_bytes(b"ok 1\nvllm:x{a=\"1\"} fast\n").expect_err("bad value");
        assert_eq!(err.line, Some(2));
        assert!(err.reason.contains("`fast` is not a number"));
        assert!(parse_bytes(b"").is_err());
        assert!(parse_bytes(b"x{a=\"1\" 2\n").is_err());
    }

    #[test]
    fn reads_the_real_fixture() {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/kv-ladder-client/results/adp-1-L1.post.prom");
        let s = parse_path(&p).expect("real /metrics text parses");
        assert_eq!(s.sum("vllm:prefix_cache_queries_total"), Some(45260.0));
        assert_eq!(s.sum("vllm:external_prefix_cache_hits_total"), Some(0.0));
    }
}
