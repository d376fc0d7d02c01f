//! Records: a setting's name and its value in different fields of one record, so that no
//! `name = value` reading sees them together. A YAML item (`- name: VLLM_API_KEY` then
//! `value: …`) and a PowerShell `Format-List` block (`Name : …` then `Value : …`), a
//! protobuf text parameter (Triton's `key: "hf_token" value: { string_value: "…" }`), an
//! XML element named by an attribute (`<Attribute Name="Users.3#Password">…`), an XML
//! element that names the secret itself (`<password>…</password>`) or whose attributes
//! pair a name and a value (`<add key="StorageAccountKey" value="…"/>`), and a CSV column
//! whose header names a secret, and a call's name and value arguments. JSON records
//! are read by the JSON reader.

use std::sync::OnceLock;

use regex::Regex;

use super::key_value::{self, indent, line_end};
use super::span;
use crate::bundle::redact::keys::{
    field_is, is_secret, strength, Strength, RECORD_NAMES, RECORD_VALUES,
};
use crate::bundle::redact::Span;

pub(super) fn spans(text: &str, lower: &str, out: &mut Vec<Span>) {
    yaml_records(text, out);
    if lower.contains("string_value") {
        protobuf_text(text, out);
    }
    if lower.contains("</") || lower.contains("/>") {
        xml(text, out);
    }
    csv(text, out);
    if lower.contains("(\"") || lower.contains("('") {
        call_arguments(text, out);
    }
}

/// A call whose first argument names a setting and whose second gives its value
/// (`SetEnvironmentVariable("HF_TOKEN", "…")`, `os.environ.setdefault('API_KEY', '…')`).
fn call_arguments(text: &str, out: &mut Vec<Span>) {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = re(
        &RE,
        r#"\(\s*(?:"([^"\n]*)"|'([^'\n]*)')\s*,\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)')"#,
    );
    for c in re.captures_iter(text) {
        let (Some(name), Some(value)) = (c.get(1).or(c.get(2)), c.get(3).or(c.get(4))) else {
            continue;
        };
        if is_secret(name.as_str(), value.as_str()) {
            out.push(span(value.start(), value.end(), "call-record"));
        }
    }
}

#[allow(clippy::expect_used)]
fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("the record patterns compile"))
}

/// A YAML record of a setting, as Kubernetes env lists and many configs write them: a
/// `name:` (or `key:`) line that names a secret, and in the same item a `value:` line
/// whose value is the secret (`- name: VLLM_API_KEY` then `  value: …`). The name and
/// the value are on different lines, so no key-value rule sees them together.
fn yaml_records(text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    // (the item's indentation, the secret's name) of the item being read, if any.
    let mut item: Option<(usize, String)> = None;
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let line = &text[at..e];
        let ind = indent(b, at);
        let body = line[ind..].trim_end();
        let dashed = body.strip_prefix("- ");
        let (field_at, field) = match dashed {
            Some(rest) => (at + ind + 2, rest),
            None => (at + ind, body),
        };
        let field_ind = field_at - at;
        // A line at or left of the item's own fields ends it (a new `- ` item too).
        if item
            .as_ref()
            .is_some_and(|(i, _)| dashed.is_some() || (field_ind < *i && !body.is_empty()))
        {
            item = None;
        }
        if let Some((k, v)) = field.split_once(':') {
            let (k, v) = (k.trim(), v.trim().trim_matches(|c| c == '"' || c == '\''));
            if field_is(k, RECORD_NAMES) && !v.is_empty() {
                item = Some((field_ind, v.to_string()));
            } else if let Some((_, name)) = item.as_ref().filter(|(i, _)| field_ind == *i) {
                if field_is(k, RECORD_VALUES) {
                    let kstart = field_at;
                    let key = key_value::describe(b, kstart, kstart + k.len());
                    if let Some(found) = key_value::value_of(text, &key) {
                        let value: String = found.iter().map(|(s, e)| &text[*s..*e]).collect();
                        if is_secret(name, &value) {
                            for (s, e) in found {
                                out.push(span(s, e, "yaml-record"));
                            }
                        }
                    }
                }
            }
        }
        at = e + 1;
    }
}

/// Protobuf text format (Triton's `config.pbtxt`): a `key: "NAME"` and the
/// `string_value: "VALUE"` of the `value` beside it, on one line or several.
fn protobuf_text(text: &str, out: &mut Vec<Span>) {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = re(
        &RE,
        r#"key\s*:\s*"([^"\\\n]*)"\s*value\s*:?\s*\{\s*string_value\s*:\s*"((?:[^"\\\n]|\\.)*)""#,
    );
    for c in re.captures_iter(text) {
        if let (Some(name), Some(value)) = (c.get(1), c.get(2)) {
            if is_secret(name.as_str(), value.as_str()) {
                out.push(span(value.start(), value.end(), "protobuf-record"));
            }
        }
    }
}

/// An attribute's value in an XML start tag: (name, value's start, value's end).
fn attributes(text: &str, from: usize, to: usize) -> Vec<(&str, usize, usize)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = re(&RE, r#"([A-Za-z_][\w.:\-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')"#);
    re.captures_iter(&text[from..to])
        .filter_map(|c| {
            let v = c.get(2).or_else(|| c.get(3))?;
            Some((c.get(1)?.as_str(), from + v.start(), from + v.end()))
        })
        .collect()
}

/// XML: an element's text, when its tag or its name attribute names a secret; a `value`
/// attribute, when the tag's name attribute names one.
fn xml(text: &str, out: &mut Vec<Span>) {
    static ELEMENT: OnceLock<Regex> = OnceLock::new();
    static TAG: OnceLock<Regex> = OnceLock::new();
    let element = re(
        &ELEMENT,
        r"<([A-Za-z_][\w.:\-]*)(\s[^<>]*)?>([^<>]*)</([A-Za-z_][\w.:\-]*)\s*>",
    );
    for c in element.captures_iter(text) {
        let (Some(tag), Some(body), Some(close)) = (c.get(1), c.get(3), c.get(4)) else {
            continue;
        };
        if tag.as_str() != close.as_str() {
            continue;
        }
        let named = c
            .get(2)
            .map(|a| attributes(text, a.start(), a.end()))
            .unwrap_or_default()
            .into_iter()
            .find(|(k, _, _)| field_is(k, RECORD_NAMES))
            .map(|(_, s, e)| &text[s..e]);
        let name = named.unwrap_or(tag.as_str());
        let (s, e) = trimmed(text, body.start(), body.end());
        if e > s && is_secret(name, &text[s..e]) {
            out.push(span(s, e, "xml-record"));
        }
    }
    let tag = re(&TAG, r"<[A-Za-z_][\w.:\-]*\s([^<>]*?)/?>");
    for c in tag.captures_iter(text) {
        let Some(a) = c.get(1) else {
            continue;
        };
        let attrs = attributes(text, a.start(), a.end());
        let name = attrs.iter().find(|(k, _, _)| field_is(k, RECORD_NAMES));
        let value = attrs.iter().find(|(k, _, _)| field_is(k, RECORD_VALUES));
        if let (Some((_, ns, ne)), Some((_, vs, ve))) = (name, value) {
            if is_secret(&text[*ns..*ne], &text[*vs..*ve]) {
                out.push(span(*vs, *ve, "xml-record"));
            }
        }
    }
}

fn trimmed(text: &str, s: usize, e: usize) -> (usize, usize) {
    let t = &text[s..e];
    let lead = t.len() - t.trim_start().len();
    (s + lead, s + t.trim_end().len())
}

/// The fields of one CSV line split at `sep`, quotes honoured: each field's content span.
fn fields(b: &[u8], from: usize, to: usize, sep: u8) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = from;
    loop {
        if i < to && b[i] == b'"' {
            let s = i + 1;
            let mut j = s;
            while j < to && !(b[j] == b'"' && b.get(j + 1) != Some(&b'"')) {
                j += if b[j] == b'"' { 2 } else { 1 };
            }
            out.push((s, j.min(to)));
            i = j + 1;
            while i < to && b[i] != sep {
                i += 1;
            }
        } else {
            let s = i;
            while i < to && b[i] != sep {
                i += 1;
            }
            out.push((s, i));
        }
        if i >= to {
            return out;
        }
        i += 1;
    }
}

/// CSV and TSV: a header (the text's first line that is not blank or a `#` comment)
/// whose column names a secret, and the rows after it with as many fields: that
/// column's field.
fn csv(text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let t = text[at..e].trim();
        if !t.is_empty() && !t.starts_with('#') {
            break;
        }
        at = e + 1;
    }
    if at >= b.len() {
        return;
    }
    let e = line_end(b, at);
    let line = &text[at..e];
    if super::first_stem(line).is_none() {
        return;
    }
    let Some(sep) = [b',', b'\t', b';']
        .into_iter()
        .filter(|s| line.bytes().filter(|c| c == s).count() >= 2)
        .max_by_key(|s| line.bytes().filter(|c| c == s).count())
    else {
        return;
    };
    let header = fields(b, at, e, sep);
    let column = |(s, e): (usize, usize)| text[s..e].trim();
    let secret_columns: Vec<usize> = (0..header.len())
        .filter(|&i| {
            let h = column(header[i]);
            !h.contains(char::is_whitespace) && h.len() <= 64 && strength(h) != Strength::No
        })
        .collect();
    if secret_columns.is_empty() {
        return;
    }
    let mut next = e + 1;
    while next < b.len() {
        let ne = line_end(b, next);
        let row = fields(b, next, ne, sep);
        if row.len() != header.len() {
            break;
        }
        for &c in &secret_columns {
            let (s, e) = row[c];
            if e > s && is_secret(column(header[c]), &text[s..e]) {
                out.push(span(s, e, "csv-column"));
            }
        }
        next = ne + 1;
        // A CRLF line's \r.
        if b.get(next - 1) == Some(&b'\r') && b.get(next) == Some(&b'\n') {
            next += 1;
        }
    }
}
