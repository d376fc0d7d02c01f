//! Secrets out of text before it leaves the machine, by syntax, not by a list of cases:
//! JSON by its structure (values stay valid JSON), every other text by the syntax of its
//! lines (settings in any notation, command lines split into words, URL credentials,
//! YAML blocks, `.netrc`, Kubernetes Secrets), then the rule set's token shapes and long
//! random tokens near a secret's name. The rules are data (`secrets.toml`); what goes in
//! is checked again afterwards by a detector that shares none of this code
//! ([`super::scan`]).

pub mod gitleaks;
mod json;
pub mod keys;
pub mod rules;
mod shell;
mod text;

pub use rules::rules;

pub const MARK: &str = "[REDACTED]";

/// A secret's place in a text, and the rule that found it.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub rule: String,
}

/// A replacement: [`MARK`], or (for a JSON string written again) the new content.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub replacement: Option<String>,
    pub rule: String,
    /// Secrets this edit removes.
    pub count: usize,
}

impl Edit {
    fn mark(start: usize, end: usize, rule: &str) -> Edit {
        Edit {
            start,
            end,
            replacement: None,
            rule: rule.to_string(),
            count: 1,
        }
    }
}

/// One secret found: its byte range in the text, the rule, and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub start: usize,
    pub end: usize,
    pub rule: String,
    pub line: usize,
}

/// Spans sorted, overlapping ones joined, empty ones dropped.
fn merge(mut spans: Vec<Span>) -> Vec<Span> {
    spans.retain(|s| s.end > s.start);
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut out: Vec<Span> = Vec::new();
    for s in spans {
        match out.last_mut() {
            Some(last) if s.start < last.end => last.end = last.end.max(s.end),
            _ => out.push(s),
        }
    }
    out
}

fn apply_spans(text: &str, spans: &[Span]) -> String {
    let edits: Vec<Edit> = spans
        .iter()
        .map(|s| Edit::mark(s.start, s.end, &s.rule))
        .collect();
    apply(text, &edits)
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in edits {
        if e.start < at || !text.is_char_boundary(e.start) || !text.is_char_boundary(e.end) {
            continue;
        }
        out.push_str(&text[at..e.start]);
        out.push_str(e.replacement.as_deref().unwrap_or(MARK));
        at = e.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Edits sorted; an edit inside an earlier one is dropped.
fn ordered(mut edits: Vec<Edit>) -> Vec<Edit> {
    edits.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
    let mut out: Vec<Edit> = Vec::new();
    for e in edits {
        match out.last_mut() {
            Some(last) if e.start < last.end => {
                if last.replacement.is_none() && e.replacement.is_none() {
                    last.end = last.end.max(e.end);
                }
            }
            _ => out.push(e),
        }
    }
    out
}

/// gitleaks' rules over a JSON file's whole text (they read a value with its key around
/// it), added to the structure's edits (`edits`, ordered; `strings`: every string's
/// content range, from the same reading). A finding in a string without
/// escapes is marked in place; one in a string with escapes, or in a string the
/// structure's reading writes again, takes the whole string: a mark inside an escape
/// would break the JSON, and a rewritten string cannot carry a mark in raw offsets.
fn with_gitleaks_in_json(
    name: &str,
    text: &str,
    mut edits: Vec<Edit>,
    strings: &[(usize, usize)],
) -> Vec<Edit> {
    let mut found = Vec::new();
    text::gitleaks(name, text, &mut found);
    if found.is_empty() {
        return edits;
    }
    let mut whole: Vec<(usize, usize)> = Vec::new();
    let mut marks: Vec<Edit> = Vec::new();
    for f in found {
        let at = strings.partition_point(|r| r.1 <= f.start);
        let Some(&(a, b)) = strings.get(at).filter(|r| r.0 <= f.start) else {
            continue;
        };
        // Edits are ordered and disjoint: the ones in this string by binary search.
        let first = edits.partition_point(|x| x.end <= a);
        let rewritten = edits[first..]
            .iter()
            .take_while(|x| x.start < b)
            .any(|x| x.replacement.is_some());
        if f.end <= b && !rewritten && !text[f.start..f.end].contains('\\') {
            marks.push(Edit::mark(f.start, f.end, &f.rule));
        } else {
            whole.push((a, b));
            marks.push(Edit::mark(a, b, &f.rule));
        }
    }
    whole.sort_unstable();
    edits.retain(|x| {
        let at = whole.partition_point(|w| w.1 <= x.start);
        x.replacement.is_none()
            || whole
                .get(at)
                .is_none_or(|w| !(w.0 <= x.start && x.end <= w.1))
    });
    edits.extend(marks);
    ordered(edits)
}

/// The edits that redact a file: JSON by its structure, everything else as text.
fn edits_for(name: &str, text: &str) -> Vec<Edit> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Some(read) = json::edits(text) {
            return with_gitleaks_in_json(name, text, ordered(read.edits), &read.strings);
        }
    }
    let mut spans = text::spans_of_file(name, text);
    let file = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let looks_netrc = file.ends_with("netrc")
        || text.split(['\n', '\0']).any(|l| {
            let t = l.trim_start();
            (t.starts_with("machine ") || t.starts_with("default ")) && t.contains("password")
        });
    if looks_netrc {
        text::netrc(text, &mut spans);
    }
    if file.ends_with("pgpass") || file.ends_with("passwd-s3fs") {
        text::colon_fields(text, &file, &mut spans);
    }
    merge(spans)
        .into_iter()
        .map(|s| Edit::mark(s.start, s.end, &s.rule))
        .collect()
}

/// Replaces every secret in `text`; returns the text and how many were replaced.
pub fn redact(text: &str) -> (String, usize) {
    redact_file("", text)
}

/// As [`redact`], for the file `name` (its name says whether it is a `.netrc`).
pub fn redact_file(name: &str, text: &str) -> (String, usize) {
    let edits = edits_for(name, text);
    if edits.is_empty() {
        return (text.to_string(), 0);
    }
    let n = edits.iter().map(|e| e.count).sum();
    (apply(text, &edits), n)
}

/// A path as it may leave: every component redacted like text.
pub fn redact_name(name: &str) -> String {
    redact(name).0
}

/// Every secret in `text` as findings with their lines (for file names and messages).
pub fn find(text: &str) -> Vec<Finding> {
    edits_for("", text)
        .into_iter()
        .map(|e| Finding {
            line: 1 + text.as_bytes()[..e.start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count(),
            start: e.start,
            end: e.end,
            rule: e.rule,
        })
        .collect()
}

/// A finding as it may be shown: the rule, the line, and the value masked.
pub fn masked(text: &str, f: &Finding) -> String {
    let value = &text[f.start..f.end];
    let head: String = value.chars().take(3).collect();
    format!(
        "line {}: {} ({head}… {} characters)",
        f.line,
        f.rule,
        value.chars().count()
    )
}

#[cfg(test)]
mod tests;
