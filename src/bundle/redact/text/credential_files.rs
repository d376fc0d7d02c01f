//! Credential files by their syntax: `.netrc` words, colon-separated `.pgpass` and
//! `passwd-s3fs` lines, and the data of a Kubernetes Secret.

use super::key_value::{indent, line_end, quoted, skip_blank};
use super::span;
use crate::bundle::redact::keys::is_placeholder;
use crate::bundle::redact::Span;

/// A `.netrc`: the word after `password`, `passwd` and `account`.
pub fn netrc(text: &str, out: &mut Vec<Span>) {
    let mut words = Vec::new();
    let mut i = 0;
    let b = text.as_bytes();
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let s = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i > s {
            words.push((s, i));
        }
    }
    for w in words.windows(2) {
        let name = &text[w[0].0..w[0].1];
        if matches!(name, "password" | "passwd" | "account")
            && !is_placeholder(&text[w[1].0..w[1].1])
        {
            out.push(span(w[1].0, w[1].1, "netrc"));
        }
    }
}

/// Colon-separated credential files, by their names: PostgreSQL's `.pgpass`
/// (`host:port:db:user:password`, the password is the rest of the line, `\:` escapes)
/// and s3fs's `passwd-s3fs` (`[bucket:]KEY_ID:SECRET`, the secret after the last
/// colon). Comments and blank lines stay.
pub fn colon_fields(text: &str, file: &str, out: &mut Vec<Span>) {
    let pgpass = file.ends_with("pgpass");
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let line = &text[at..e];
        if !line.trim_start().starts_with('#') && !line.trim().is_empty() {
            let from = if pgpass {
                // The fifth field: after four unescaped colons.
                let mut seen = 0;
                let mut i = 0;
                let lb = line.as_bytes();
                while i < lb.len() && seen < 4 {
                    match lb[i] {
                        b'\\' => i += 1,
                        b':' => seen += 1,
                        _ => {}
                    }
                    i += 1;
                }
                (seen == 4).then_some(i)
            } else {
                line.rfind(':').map(|i| i + 1)
            };
            if let Some(f) = from.filter(|&f| f < line.len()) {
                let value = line[f..].trim_end();
                if !is_placeholder(value) {
                    out.push(span(at + f, at + f + value.len(), "credential-file"));
                }
            }
        }
        at = e + 1;
    }
}

/// Every value under `data:` and `stringData:` of a Kubernetes Secret.
pub(super) fn kubernetes_secret(text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let line = &text[at..e];
        let t = line.trim();
        if t == "data:" || t == "stringData:" {
            let base = indent(b, at);
            let mut n = e;
            loop {
                while n < b.len() && matches!(b[n], b'\n' | b'\r' | 0) {
                    n += 1;
                }
                if n >= b.len() {
                    break;
                }
                let ne = line_end(b, n);
                let ind = indent(b, n);
                if ind <= base && n + ind < ne {
                    break;
                }
                if let Some(colon) = text[n..ne].find(": ") {
                    let v = skip_blank(b, n + colon + 2);
                    let (s, end) = match b.get(v) {
                        Some(b'"') => quoted(b, v, "\"").unwrap_or((v, ne)),
                        Some(b'\'') => quoted(b, v, "'").unwrap_or((v, ne)),
                        _ => (v, v + text[v..ne].trim_end().len()),
                    };
                    if end > s && !is_placeholder(&text[s..end]) {
                        out.push(span(s, end, "kubernetes-secret"));
                    }
                }
                n = ne.max(n + 1);
            }
            at = n;
            continue;
        }
        at = e + 1;
    }
}
