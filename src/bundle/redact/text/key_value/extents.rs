//! Where a value of each syntax ends: a bare word, a quoted string, a `[...]` list, a
//! YAML block below its name, the next line's item.

use super::lines::{indent, line_end, line_start, skip_blank};

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
pub(crate) fn quoted(b: &[u8], at: usize, quote: &str) -> Option<(usize, usize)> {
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
