//! Values after a key that names a secret, in the syntaxes text files write them:
//! `key: value`, `key=value`, quoted, lists and YAML blocks.

use super::*;

/// Skips blanks and ANSI colour sequences from `at`.
pub(super) fn skip_blank(b: &[u8], mut at: usize) -> usize {
    loop {
        while at < b.len() && matches!(b[at], b' ' | b'\t') {
            at += 1;
        }
        if at + 1 < b.len() && b[at] == 0x1b && b[at + 1] == b'[' {
            at += 2;
            while at < b.len() && !b[at].is_ascii_alphabetic() {
                at += 1;
            }
            at = (at + 1).min(b.len());
            continue;
        }
        return at;
    }
}

/// Lines end at a newline, and at a NUL (an environ file's records are NUL-separated).
pub(super) fn line_start(b: &[u8], at: usize) -> usize {
    b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == 0)
        .map_or(0, |i| i + 1)
}

pub(super) fn line_end(b: &[u8], at: usize) -> usize {
    b[at..]
        .iter()
        .position(|&c| c == b'\n' || c == b'\r' || c == 0)
        .map_or(b.len(), |i| at + i)
}

/// Where the blanks before `at` on its line begin (`at` when none).
fn blank_back(b: &[u8], mut at: usize) -> usize {
    while at > 0 && matches!(b[at - 1], b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
        at -= 1;
    }
    at
}

/// Whether `at` is where a line starts.
fn at_line_start(b: &[u8], at: usize) -> bool {
    at == 0 || matches!(b[at - 1], b'\n' | 0)
}

pub(super) fn indent(b: &[u8], start: usize) -> usize {
    b[start..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count()
}

/// How a name was written, which decides where its value ends.
pub(super) struct Key {
    start: usize,
    end: usize,
    /// `--key` or `-key`: a value may follow after a blank.
    flag: bool,
    /// The quote around the name (`"`, `'`, or `\"` inside a JSON string).
    quote: Option<&'static str>,
    /// The name starts its line (YAML, an HTTP header, an env file): an unquoted value
    /// after `:` runs to the end of the line.
    starts_line: bool,
    /// The quote that opened the text the name stands in (`-H 'Authorization: x'`).
    opened_by: Option<u8>,
}

/// Names followed by their values, in every syntax above.
pub(super) fn key_values(text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut i = 0;
    // Just after a colour sequence (`\x1b[32m`), whose last letter is not part of a name.
    let mut after_colour = false;
    while i < b.len() {
        let c = b[i];
        if c == 0x1b && b.get(i + 1) == Some(&b'[') {
            i += 2;
            while i < b.len() && !b[i].is_ascii_alphabetic() {
                i += 1;
            }
            i += 1;
            after_colour = true;
            continue;
        }
        // A name starts after a word's end; after a `/` it is a path's part
        // (`/run/secrets:ro`), not a name.
        let starts = (c.is_ascii_alphabetic() || c == b'_' || c == b'.')
            && (i == 0
                || after_colour
                || !(b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'_' | b'/')));
        after_colour = false;
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && name_byte(b[j]) {
            j += 1;
        }
        let name = &text[i..j];
        if stems().is_match(name) {
            let key = describe(b, i, j);
            if let Some(found) = value_of(text, &key) {
                let value: String = found.iter().map(|(s, e)| &text[*s..*e]).collect();
                // `name: word` in the middle of a sentence is prose, unless the word looks
                // like a credential.
                let prose = !key.starts_line
                    && key.quote.is_none()
                    && text[key.end..].trim_start().starts_with(':')
                    && found.len() == 1
                    && !matches!(b.get(found[0].0.wrapping_sub(1)), Some(b'"' | b'\''));
                // A record's name field (`key: s3_secret_key`, `key="Region"`) holds a
                // name: only a random token there is a secret.
                let name_field = crate::bundle::redact::keys::field_is(
                    name.trim_matches('.'),
                    crate::bundle::redact::keys::RECORD_NAMES,
                );
                if is_secret(name.trim_matches('.'), &value)
                    && (!prose || looks_secret(&value))
                    && (!name_field || super::random_token(&value))
                {
                    for (s, e) in found {
                        out.push(span(s, e, "key-value"));
                    }
                }
            }
        }
        i = j.max(i + 1);
    }
}

pub(super) fn describe(b: &[u8], start: usize, end: usize) -> Key {
    let flag = start >= 1 && b[start - 1] == b'-';
    let dashes = if start >= 2 && b[start - 2] == b'-' && flag {
        2
    } else {
        usize::from(flag)
    };
    let name_start = start - dashes;
    let (quote, qlen): (Option<&'static str>, usize) =
        if name_start >= 2 && &b[name_start - 2..name_start] == b"\\\"" {
            (Some("\\\""), 2)
        } else if name_start >= 1 && b[name_start - 1] == b'"' {
            (Some("\""), 1)
        } else if name_start >= 1 && b[name_start - 1] == b'\'' {
            (Some("'"), 1)
        } else {
            (None, 0)
        };
    // What stands before the name on its line, read backwards from the name and only as
    // far as the answer needs (the last word or two): reading the whole line before
    // each name made a long line of names quadratic.
    let mut e = blank_back(b, name_start - qlen);
    let opened_by = match (quote, e.checked_sub(1).map(|i| b[i])) {
        (None, Some(c)) if c == b'\'' || c == b'"' => Some(c),
        _ => None,
    };
    if opened_by.is_some() {
        e = blank_back(b, e - 1);
    }
    let ends_with = |w: &[u8]| b[..e].ends_with(w);
    // `w` alone before the name: nothing but blanks between it and the line's start.
    let only = |w: &[u8]| ends_with(w) && at_line_start(b, blank_back(b, e - w.len()));
    let header_flag = [&b"-H"[..], b"--header", b"-H=", b"--header="]
        .iter()
        .any(|h| ends_with(h));
    let starts_line = at_line_start(b, e) || only(b"-") || only(b"export") || header_flag;
    Key {
        start: name_start,
        end,
        flag,
        quote,
        starts_line,
        opened_by,
    }
}

/// Where a name's value is, in the syntax the name was written in: the value's spans
/// (several for a list or a block), or None when no value follows.
pub(super) fn value_of(text: &str, key: &Key) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
    let mut at = key.end;
    if let Some(q) = key.quote {
        if !text[at..].starts_with(q) {
            return None;
        }
        at += q.len();
    }
    let after_name = skip_blank(b, at);
    let rest = &text[after_name..];
    let (sep, mut v) = if rest.starts_with("=>") || rest.starts_with(":=") {
        (b'=', after_name + 2)
    } else if rest.starts_with('=') {
        (b'=', after_name + 1)
    } else if rest.starts_with(':') && !rest.starts_with("://") && !rest.starts_with("::") {
        (b':', after_name + 1)
    } else if key.flag && key.quote.is_some() && rest.starts_with(',') {
        // ["--api-key", "VALUE"]
        (b',', after_name + 1)
    } else if key.flag && key.quote.is_none() && after_name > at {
        // --api-key VALUE
        (b' ', after_name)
    } else if key.flag
        && key.quote.is_none()
        && after_name == at
        && b.get(at).is_none_or(|&c| matches!(c, b'\n' | b'\r' | 0))
    {
        // `- --api-key` then `- VALUE` on the next line (a YAML argument list), or
        // `--api-key \` continued on the next line.
        return next_line_item(b, after_name).map(|s| vec![s]);
    } else {
        return None;
    };
    v = skip_blank(b, v);
    // A line continuation: the value is the next line's first word.
    if text[v..].starts_with("\\\n")
        || text[v..].starts_with("\\\r\n")
        || text[v..].starts_with("\\\0")
    {
        v = skip_blank(
            b,
            line_end(b, v)
                + if text[v..].starts_with("\\\r\n") {
                    2
                } else {
                    1
                },
        );
        while v < b.len() && matches!(b[v], b'\n' | b'\r' | 0) {
            v += 1;
        }
        v = skip_blank(b, v);
    }
    if v >= b.len() {
        return None;
    }
    match b[v] {
        b'\n' | b'\r' if sep == b':' => block(b, key.start, v, false),
        b'|' | b'>' if sep == b':' && rest_is_blank(b, v + 1) => {
            block(b, key.start, line_end(b, v), true)
        }
        b'[' => list(b, v + 1),
        b'{' => None,
        // A quoted value that starts with a blank is the text around a name, not its
        // value (`does "host's password: " (spawn_id …)`).
        b'"' | b'\'' => quoted(b, v, &text[v..v + 1])
            .filter(|&(s, e)| e > s && !b[s].is_ascii_whitespace())
            .map(|s| vec![s]),
        b'\\' if text[v..].starts_with("\\\"") => quoted(b, v, "\\\"").map(|s| vec![s]),
        _ => {
            let end = if sep == b':' && key.starts_line {
                let mut e = line_end(b, v);
                if let Some(q) = key.opened_by {
                    if let Some(p) = b[v..e].iter().position(|&c| c == q) {
                        e = v + p;
                    }
                }
                // A YAML comment after the value.
                if let Some(p) = text[v..e].find(" #") {
                    e = v + p;
                }
                v + text[v..e].trim_end().len()
            } else {
                bare_end(b, v)
            };
            (end > v).then(|| vec![(v, end)])
        }
    }
}

/// Whether only blanks, a block indicator's modifiers or a comment follow until the end
/// of the line (`|`, `>-`, `|+2 # note`).
pub(super) fn rest_is_blank(b: &[u8], mut at: usize) -> bool {
    while at < b.len() && matches!(b[at], b'-' | b'+' | b'0'..=b'9') {
        at += 1;
    }
    let e = line_end(b, at);
    let t = String::from_utf8_lossy(&b[at..e]);
    let t = t.trim();
    t.is_empty() || t.starts_with('#')
}

/// An unquoted word: to a blank, a separator or a quote (NUL ends it too: an environ
/// file's variables are NUL-separated).
pub(super) fn bare_end(b: &[u8], v: usize) -> usize {
    let mut e = v;
    while e < b.len()
        && !(b[e] <= b' '
            || matches!(
                b[e],
                b',' | b';' | b'&' | b')' | b'}' | b']' | b'"' | b'\'' | b'`' | b'\\'
            ))
    {
        e += 1;
    }
    e
}

/// A quoted value's content, escapes honoured; `quote` is `"`, `'` or `\"`.
pub(super) fn quoted(b: &[u8], at: usize, quote: &str) -> Option<(usize, usize)> {
    let q = quote.as_bytes();
    let start = at + q.len();
    let mut i = start;
    while i < b.len() {
        if b[i] == b'\n' && q.len() == 1 && q[0] == b'"' {
            // Not a one-line string: leave it to the other detectors.
            return None;
        }
        if q.len() == 2 {
            // Inside a JSON string: `\"` ends it, `\\` is an escaped backslash.
            if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] == b'\\' {
                i += 2;
                continue;
            }
            if b[i..].starts_with(q) {
                return Some((start, i));
            }
            i += 1;
            continue;
        }
        if b[i] == b'\\' && q[0] == b'"' {
            i += 2;
            continue;
        }
        if b[i] == q[0] {
            return Some((start, i));
        }
        i += 1;
    }
    None
}

/// The items of a `[...]` list (quoted contents, or bare words), over several lines.
pub(super) fn list(b: &[u8], mut at: usize) -> Option<Vec<(usize, usize)>> {
    let mut items = Vec::new();
    let mut depth = 1;
    while at < b.len() && depth > 0 {
        match b[at] {
            b']' => depth -= 1,
            b'[' => depth += 1,
            b'"' | b'\'' => {
                let q = if b[at] == b'"' { "\"" } else { "'" };
                let (s, e) = quoted(b, at, q)?;
                items.push((s, e));
                at = e + 1;
                continue;
            }
            c if c > b' ' && c != b',' => {
                let e = bare_end(b, at);
                if e > at {
                    items.push((at, e));
                    at = e;
                    continue;
                }
            }
            _ => {}
        }
        at += 1;
    }
    (!items.is_empty()).then_some(items)
}

/// The value on the lines below a name (YAML): a block scalar (`scalar`: after `|` or
/// `>`) or a list, every line indented deeper than the name's. A nested map is not a
/// value: its own names are judged by themselves.
pub(super) fn block(
    b: &[u8],
    key_start: usize,
    from: usize,
    scalar: bool,
) -> Option<Vec<(usize, usize)>> {
    let key_indent = indent(b, line_start(b, key_start));
    let mut at = line_end(b, from);
    let mut out = Vec::new();
    loop {
        while at < b.len() && matches!(b[at], b'\n' | b'\r' | 0) {
            at += 1;
        }
        if at >= b.len() {
            break;
        }
        let ind = indent(b, at);
        let e = line_end(b, at);
        let content = at + ind;
        if content >= e {
            at = e.max(at + 1);
            continue;
        }
        if ind <= key_indent {
            break;
        }
        let mut s = content;
        let item = b[s] == b'-' && s + 1 < e && b[s + 1] == b' ';
        if item {
            s = skip_blank(b, s + 2);
        }
        if !scalar && !item {
            return None;
        }
        if !scalar && String::from_utf8_lossy(&b[s..e]).contains(": ") {
            // A list of maps.
            return None;
        }
        let (s, e2) = match b.get(s) {
            Some(b'"') => quoted(b, s, "\"").unwrap_or((s, e)),
            Some(b'\'') => quoted(b, s, "'").unwrap_or((s, e)),
            _ => (s, s + String::from_utf8_lossy(&b[s..e]).trim_end().len()),
        };
        if e2 > s {
            out.push((s, e2));
        }
        at = e;
    }
    (!out.is_empty()).then_some(out)
}

/// The next line's item: `- VALUE` (a YAML list) or its first word (a continued line).
pub(super) fn next_line_item(b: &[u8], eol: usize) -> Option<(usize, usize)> {
    let mut at = eol;
    if at < b.len() && b[at] == b'\r' {
        at += 1;
    }
    if at >= b.len() || b[at] != b'\n' {
        return None;
    }
    at = skip_blank(b, at + 1);
    if b.get(at) == Some(&b'-') && b.get(at + 1) == Some(&b' ') {
        at = skip_blank(b, at + 2);
    } else if at > 0 && b[..eol].trim_ascii_end().last() != Some(&b'\\') {
        return None;
    }
    match b.get(at) {
        Some(b'"') => quoted(b, at, "\""),
        Some(b'\'') => quoted(b, at, "'"),
        Some(_) => {
            let e = bare_end(b, at);
            (e > at).then_some((at, e))
        }
        None => None,
    }
}
