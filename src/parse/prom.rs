//! Prometheus text exposition (vLLM `/metrics` snapshots). vLLM's names contain a colon
//! (`vllm:prefix_cache_hits_total`), which prometheus-parse 0.2.5 silently skips, so this
//! small reader takes every sample line: `name{labels} value [timestamp]`.

use std::borrow::Cow;
use std::path::Path;

use serde::Serialize;

use crate::error::{ParseError, Problem};
use crate::parse::decimal::{self, Separator};
use crate::parse::text::{first_field, lines, read_capped, trim, trim_start, TextCheck};

/// One sample line, as the snapshot hands it out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample<'a> {
    pub name: &'a str,
    /// The text between the braces, checked when the snapshot was read.
    labels_text: &'a str,
    pub value: f64,
}

impl Sample<'_> {
    /// Label names and values, sorted by name (a repeated name keeps its last value).
    pub fn labels(&self) -> Labels {
        let mut labels: Labels = Vec::new();
        // Checked when the snapshot was read: this cannot fail.
        let _ = walk_labels(self.labels_text, |k, v| {
            labels.push((k.to_string(), v.into_owned()));
        });
        // Sorted by name, the last of a repeated name kept (as a map would).
        labels.reverse();
        labels.sort_by(|a, b| a.0.cmp(&b.0));
        labels.dedup_by(|later, kept| later.0 == kept.0);
        labels
    }

    /// One label's value (the last one given, when a name is repeated).
    pub fn label(&self, name: &str) -> Option<String> {
        let mut found = None;
        let _ = walk_labels(self.labels_text, |k, v| {
            if k == name {
                found = Some(v.into_owned());
            }
        });
        found
    }
}

/// Where one sample sits in the snapshot's text.
#[derive(Debug, Clone, PartialEq)]
struct At {
    start: usize,
    name_end: usize,
    labels_end: usize,
    value: f64,
}

/// A `/metrics` snapshot: its sample lines kept as text (one allocation for all of them),
/// each sample's name and labels found once, its value read and checked once. A
/// snapshot of vLLM holds hundreds of histogram buckets; a string per name and per label
/// made reading one five times its size and most of its time.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    text: String,
    at: Vec<At>,
}

impl Serialize for Snapshot {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeSeq, SerializeStruct};
        struct One<'a>(Sample<'a>);
        impl Serialize for One<'_> {
            fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
                let mut st = ser.serialize_struct("Sample", 3)?;
                st.serialize_field("name", self.0.name)?;
                st.serialize_field("labels", &self.0.labels())?;
                st.serialize_field("value", &self.0.value)?;
                st.end()
            }
        }
        let mut seq = ser.serialize_seq(Some(self.at.len()))?;
        for s in self.samples() {
            seq.serialize_element(&One(s))?;
        }
        seq.end()
    }
}

impl Snapshot {
    /// Every sample, in file order.
    pub fn samples(&self) -> impl Iterator<Item = Sample<'_>> + '_ {
        self.at.iter().map(|a| Sample {
            name: &self.text[a.start..a.name_end],
            labels_text: &self.text[a.name_end..a.labels_end],
            value: a.value,
        })
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Reads one sample line (`name{labels} value [timestamp]`, trimmed) into the
    /// snapshot, or says why it is not one.
    pub fn push_line(&mut self, line: &str) -> Result<(), String> {
        let (name_end, labels, value) = parse_line(line)?;
        let start = self.text.len();
        let (l0, l1) = labels.unwrap_or((name_end, name_end));
        self.text.push_str(&line[..name_end]);
        self.text.push_str(&line[l0..l1]);
        self.at.push(At {
            start,
            name_end: start + name_end,
            labels_end: start + name_end + (l1 - l0),
            value,
        });
        Ok(())
    }

    /// The sum of a metric over all its label sets, or None when it is absent.
    pub fn sum(&self, name: &str) -> Option<f64> {
        let mut found = false;
        let mut total = 0.0;
        for s in self.samples().filter(|s| s.name == name) {
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
        self.samples()
            .filter(|s| s.name.starts_with(name_prefix))
            .find_map(|s| s.label(label))
    }
}

pub fn parse_path(path: &Path) -> Result<Snapshot, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

pub fn parse_bytes(bytes: &[u8]) -> Result<Snapshot, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
    // The exposition format ends every line, the last one too: a file that ends inside a
    // line was cut off (curl interrupted, a full disk), and its last value may be cut.
    if !text.is_empty() && !text.ends_with('\n') {
        return Err(Problem::at(
            lines(&text).count(),
            "the file ends inside this line (no newline after it): the snapshot was cut off, and its last value may be cut too",
        ));
    }
    let mut snapshot = Snapshot {
        text: String::with_capacity(text.len()),
        at: Vec::new(),
    };
    for (i, raw) in lines(&text).enumerate() {
        let line = trim(raw);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        snapshot
            .push_line(line)
            .map_err(|why| Problem::at(i + 1, why))?;
    }
    if snapshot.is_empty() {
        return Err(Problem::whole(if text.trim().is_empty() {
            "empty file (the server did not answer /metrics?)"
        } else {
            "no metric samples"
        }));
    }
    // Not shrunk: that would copy the text into memory touched a second time; what is
    // left over is the comment lines' share.
    Ok(snapshot)
}

/// The bytes a metric's name is made of: ASCII letters, digits, `_` and `:`.
const NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b':';
        c += 1;
    }
    t
};

/// One sample line: where its name ends, where its labels are (after `{`, through `}`),
/// and its value.
type Parsed = (usize, Option<(usize, usize)>, f64);

fn parse_line(line: &str) -> Result<Parsed, String> {
    // Bytes, not chars: a name is ASCII, and the first other byte ends it.
    let name_end = line
        .bytes()
        .position(|c| !NAME[usize::from(c)])
        .unwrap_or(line.len());
    let name = &line[..name_end];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("not a metric line: `{}`", clip(line)));
    }
    let mut rest = &line[name_end..];
    let mut labels = None;
    if let Some(after) = rest.strip_prefix('{') {
        let remaining = walk_labels(after, |_, _| {})?;
        let l0 = name_end + 1;
        labels = Some((l0, line.len() - remaining.len()));
        rest = remaining;
    }
    let value_text = first_field(rest).ok_or_else(|| format!("metric `{name}` has no value"))?;
    let value = match value_text {
        "+Inf" | "Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        v => decimal::short(v.as_bytes(), Separator::Dot)
            .map_or_else(|| v.parse(), Ok)
            .map_err(|_| format!("metric `{name}`: `{v}` is not a number"))?,
    };
    Ok((name_end, labels, value))
}

/// Label names and values.
pub type Labels = Vec<(String, String)>;

/// Reads `k="v",k2="v2"}`, handing each label to `each` in order (a value with escapes
/// unescaped, the usual one borrowed), and returns what follows the brace.
fn walk_labels<'s>(
    s: &'s str,
    mut each: impl FnMut(&'s str, Cow<'s, str>),
) -> Result<&'s str, String> {
    let mut rest = trim_start(s);
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return Ok(after);
        }
        let eq = memchr::memchr(b'=', rest.as_bytes()).ok_or("a label without `=`")?;
        let key = trim(&rest[..eq]);
        let after_eq = trim_start(&rest[eq + 1..]);
        let body = after_eq
            .strip_prefix('"')
            .ok_or("a label value without quotes")?;
        // The usual value has no escapes: taken as one slice.
        if let Some(q) =
            memchr::memchr2(b'"', b'\\', body.as_bytes()).filter(|&q| body.as_bytes()[q] == b'"')
        {
            each(key, Cow::Borrowed(&body[..q]));
            rest = trim_start(&body[q + 1..]);
            if let Some(after) = rest.strip_prefix(',') {
                rest = trim_start(after);
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
        each(key, Cow::Owned(value));
        rest = trim_start(&body[end + 1..]);
        if let Some(after) = rest.strip_prefix(',') {
            rest = trim_start(after);
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
        let l = s.samples().next().expect("one sample").labels();
        assert_eq!(
            l,
            [
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
