//! Where a name's value is, in the syntax the name was written in: past the name's
//! closing quote and a separator (`=`, `=>`, `:=`, `:`, a list's `,`, a flag's blank),
//! over a line continuation, and then by the value's first byte: a YAML block, a list, a
//! quoted string or a bare word.

use super::extents::{bare_end, block, list, next_line_item, quoted, rest_is_blank};
use super::key::Key;
use super::lines::{line_end, skip_blank};

/// Where a name's value is, in the syntax the name was written in: the value's spans
/// (several for a list or a block), or None when no value follows.
pub(crate) fn value_of(text: &str, key: &Key) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
    let at = name_end(text, key)?;
    let after_name = skip_blank(b, at);
    let Some((sep, v)) = separator(text, key, at, after_name) else {
        return flag_value_below(b, key, at, after_name);
    };
    let v = value_start(text, v);
    if v >= b.len() {
        return None;
    }
    value_from(text, key, sep, v)
}

/// Where the name ends, past its closing quote; None when the quote does not close there.
fn name_end(text: &str, key: &Key) -> Option<usize> {
    let mut at = key.end;
    if let Some(q) = key.quote {
        if !text[at..].starts_with(q) {
            return None;
        }
        at += q.len();
    }
    Some(at)
}

/// The separator after the name (`at`, `after_name`: where the name ends, and where the
/// blanks after it do) and where the value after it may start; None when no separator
/// follows.
fn separator(text: &str, key: &Key, at: usize, after_name: usize) -> Option<(u8, usize)> {
    let rest = &text[after_name..];
    if rest.starts_with("=>") || rest.starts_with(":=") {
        Some((b'=', after_name + 2))
    } else if rest.starts_with('=') {
        Some((b'=', after_name + 1))
    } else if rest.starts_with(':') && !rest.starts_with("://") && !rest.starts_with("::") {
        Some((b':', after_name + 1))
    } else if key.flag && key.quote.is_some() && rest.starts_with(',') {
        // ["--api-key", "VALUE"]
        Some((b',', after_name + 1))
    } else if key.flag && key.quote.is_none() && after_name > at {
        // --api-key VALUE
        Some((b' ', after_name))
    } else {
        None
    }
}

/// A flag that ends its line: its value is on the next one. None for any other name
/// with no separator after it.
fn flag_value_below(
    b: &[u8],
    key: &Key,
    at: usize,
    after_name: usize,
) -> Option<Vec<(usize, usize)>> {
    if key.flag
        && key.quote.is_none()
        && after_name == at
        && b.get(at).is_none_or(|&c| matches!(c, b'\n' | b'\r' | 0))
    {
        // `- --api-key` then `- VALUE` on the next line (a YAML argument list), or
        // `--api-key \` continued on the next line.
        return next_line_item(b, after_name).map(|s| vec![s]);
    }
    None
}

/// Where the value after a separator starts: past blanks, and past a line continuation.
fn value_start(text: &str, mut v: usize) -> usize {
    let b = text.as_bytes();
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
    v
}

/// The value that starts at `v` (inside the text), by its first byte.
fn value_from(text: &str, key: &Key, sep: u8, v: usize) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
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
            let end = unquoted_end(text, key, sep, v);
            (end > v).then(|| vec![(v, end)])
        }
    }
}

/// Where an unquoted value that starts at `v` ends: after `:` a name that starts its
/// line takes the rest of the line (up to the quote that opened the text it stands in,
/// before a YAML comment); anything else is a bare word.
fn unquoted_end(text: &str, key: &Key, sep: u8, v: usize) -> usize {
    let b = text.as_bytes();
    if sep == b':' && key.starts_line {
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
    }
}
