//! How a secret's name was written (a flag, quoted, at the start of its line, inside a
//! quoted argument), which decides where its value ends.

use super::lines::{at_line_start, blank_back};

/// How a name was written, which decides where its value ends.
pub(crate) struct Key {
    pub(super) start: usize,
    pub(super) end: usize,
    /// `--key` or `-key`: a value may follow after a blank.
    pub(super) flag: bool,
    /// The quote around the name (`"`, `'`, or `\"` inside a JSON string).
    pub(super) quote: Option<&'static str>,
    /// The name starts its line (YAML, an HTTP header, an env file): an unquoted value
    /// after `:` runs to the end of the line.
    pub(super) starts_line: bool,
    /// The quote that opened the text the name stands in (`-H 'Authorization: x'`).
    pub(super) opened_by: Option<u8>,
}

pub(crate) fn describe(b: &[u8], start: usize, end: usize) -> Key {
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
