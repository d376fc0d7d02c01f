//! Secrets in text of any syntax: a setting's name followed by its value (`KEY=VALUE`,
//! `KEY: VALUE`, `"KEY": "VALUE"`, `\"KEY\": \"VALUE\"`, `'KEY': ['VALUE']`,
//! `--KEY VALUE`, `--KEY=VALUE`, `["--KEY", "VALUE"]`, a YAML `- --KEY` item followed by
//! its value, a YAML block `KEY: >-`, a line continuation after `--KEY \`, colour codes
//! in between), URL credentials, `.netrc` lines, the data of a Kubernetes Secret, the
//! token shapes of the rule set, and long random tokens near a secret's name. Each finds
//! the value's own extent in its syntax, so what replaces it leaves the quotes, brackets
//! and indentation where they were.

use super::keys::{is_placeholder, is_secret, looks_secret};
use super::rules::rules;
use super::Span;

/// Every word any detector starts from: the rules' keywords, the stems of secrets'
/// names, the tools' names, URLs. Text holding none of them holds no secret the
/// detectors could find, and is passed over in one scan.
fn triggers() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        let r = rules();
        let mut words: Vec<String> = STEMS.iter().map(|s| s.to_string()).collect();
        words.extend(r.rules.iter().flat_map(|x| x.keywords.iter().cloned()));
        words.extend(r.tools.iter().flat_map(|t| t.names.iter().cloned()));
        words.extend(["://".to_string(), "machine".to_string()]);
        #[allow(clippy::expect_used)]
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .expect("the trigger words compile")
    })
}

/// Every secret span in `text` (unsorted, possibly overlapping).
pub fn spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    if !triggers().is_match(text) {
        return out;
    }
    let lower = text.to_ascii_lowercase();
    token_rules(text, &lower, &mut out);
    key_values(text, &mut out);
    url_credentials(text, &mut out);
    if lower.contains("kind: secret") {
        kubernetes_secret(text, &mut out);
    }
    near_names(text, &mut out);
    super::shell::spans(text, &mut out);
    out
}

fn span(start: usize, end: usize, rule: &str) -> Span {
    Span {
        start,
        end,
        rule: rule.to_string(),
    }
}

/// The rule set's token shapes.
fn token_rules(text: &str, lower: &str, out: &mut Vec<Span>) {
    for rule in &rules().rules {
        if !rule.keywords.is_empty() && !rule.keywords.iter().any(|k| lower.contains(k.as_str())) {
            continue;
        }
        for c in rule.regex.captures_iter(text) {
            let Some(m) = c.name("secret").or_else(|| c.name("token")) else {
                continue;
            };
            if is_placeholder(m.as_str()) || (rule.mixed && !looks_secret(m.as_str())) {
                continue;
            }
            out.push(span(m.start(), m.end(), &rule.id));
        }
    }
}

/// Bytes that may be part of a setting's name.
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The stems a secret's name holds one of: a cheap test before the word split.
const STEMS: &[&str] = &[
    "secret",
    "pass",
    "pwd",
    "token",
    "key",
    "auth",
    "cred",
    "session",
    "cookie",
    "sig",
    "psk",
    "dsn",
    "webhook",
    "dockercfg",
    "dockerconfig",
    "pat",
    "salt",
    "hmac",
];

/// [`STEMS`] found in one pass (ASCII case-insensitive).
fn stems() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        #[allow(clippy::expect_used)]
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(STEMS)
            .expect("the stems compile")
    })
}

/// Where the first stem that names a secret on its own stands in `line` (`pat` and
/// `sig` are too short to stand for one).
fn first_stem(line: &str) -> Option<usize> {
    stems()
        .find_overlapping_iter(line)
        .find(|m| !matches!(STEMS[m.pattern().as_usize()], "pat" | "sig"))
        .map(|m| m.start())
}

/// Skips blanks and ANSI colour sequences from `at`.
fn skip_blank(b: &[u8], mut at: usize) -> usize {
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
fn line_start(b: &[u8], at: usize) -> usize {
    b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == 0)
        .map_or(0, |i| i + 1)
}

fn line_end(b: &[u8], at: usize) -> usize {
    b[at..]
        .iter()
        .position(|&c| c == b'\n' || c == b'\r' || c == 0)
        .map_or(b.len(), |i| at + i)
}

fn indent(b: &[u8], start: usize) -> usize {
    b[start..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count()
}

/// How a name was written, which decides where its value ends.
struct Key {
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
fn key_values(text: &str, out: &mut Vec<Span>) {
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
        let starts = (c.is_ascii_alphabetic() || c == b'_' || c == b'.')
            && (i == 0 || after_colour || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
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
                if is_secret(name.trim_matches('.'), &value) && (!prose || looks_secret(&value)) {
                    for (s, e) in found {
                        out.push(span(s, e, "key-value"));
                    }
                }
            }
        }
        i = j.max(i + 1);
    }
}

fn describe(b: &[u8], start: usize, end: usize) -> Key {
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
    let ls = line_start(b, name_start);
    let before = String::from_utf8_lossy(&b[ls..name_start - qlen]);
    let mut t = before.trim();
    let opened_by = match (quote, t.as_bytes().last()) {
        (None, Some(&c)) if c == b'\'' || c == b'"' => Some(c),
        _ => None,
    };
    if opened_by.is_some() {
        t = t[..t.len() - 1].trim_end();
    }
    let header_flag = ["-H", "--header", "-H=", "--header="]
        .iter()
        .any(|h| t.ends_with(h));
    let starts_line = t.is_empty() || t == "-" || t == "export" || header_flag;
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
fn value_of(text: &str, key: &Key) -> Option<Vec<(usize, usize)>> {
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
    } else if key.flag && key.quote.is_none() && after_name == line_end(b, at) {
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
        b'"' | b'\'' => quoted(b, v, &text[v..v + 1]).map(|s| vec![s]),
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
fn rest_is_blank(b: &[u8], mut at: usize) -> bool {
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
fn bare_end(b: &[u8], v: usize) -> usize {
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
fn quoted(b: &[u8], at: usize, quote: &str) -> Option<(usize, usize)> {
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
fn list(b: &[u8], mut at: usize) -> Option<Vec<(usize, usize)>> {
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
fn block(b: &[u8], key_start: usize, from: usize, scalar: bool) -> Option<Vec<(usize, usize)>> {
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
fn next_line_item(b: &[u8], eol: usize) -> Option<(usize, usize)> {
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

/// `scheme://user:password@host` (a password with `@` included) and
/// `scheme://KEY@host` when the user part is a key (Sentry DSNs).
fn url_credentials(text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(p) = text[from..].find("://") {
        let at = from + p + 3;
        from = at;
        let scheme_ok = at >= 4 && b[at - 4].is_ascii_alphanumeric();
        if !scheme_ok {
            continue;
        }
        let end = b[at..]
            .iter()
            .position(|&c| {
                c <= b' ' || matches!(c, b'/' | b'\'' | b'"' | b'<' | b'>' | b'?' | b'#' | b'`')
            })
            .map_or(b.len(), |i| at + i);
        let Some(last_at) = b[at..end].iter().rposition(|&c| c == b'@') else {
            continue;
        };
        let userinfo = &text[at..at + last_at];
        match userinfo.find(':') {
            Some(colon) => {
                let pw = &userinfo[colon + 1..];
                if !is_placeholder(pw) {
                    out.push(span(at + colon + 1, at + last_at, "url-userinfo"));
                }
            }
            None if userinfo.len() >= 16 && looks_secret(userinfo) => {
                out.push(span(at, at + last_at, "url-userinfo"));
            }
            None => {}
        }
    }
}

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

/// Every value under `data:` and `stringData:` of a Kubernetes Secret.
fn kubernetes_secret(text: &str, out: &mut Vec<Span>) {
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

/// Shannon entropy of a string, in bits per character.
pub fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for &c in s.as_bytes() {
        counts[c as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// A long random token (upper and lower case and digits, base64 or base62 style) within
/// a short distance after a secret's name on its line: what no rule names, found by its
/// shape. Hex digests, ids and paths are not random enough to count.
fn near_names(text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let line = &text[at..e];
        if let Some(name_at) = first_stem(line) {
            let lb = line.as_bytes();
            // Tokens after the name (the word holding the name is the name).
            let mut i = name_at;
            while i < lb.len()
                && (lb[i].is_ascii_alphanumeric() || matches!(lb[i], b'_' | b'-' | b'.'))
            {
                i += 1;
            }
            while i < lb.len() {
                if !token_byte(lb[i]) {
                    i += 1;
                    continue;
                }
                let s = i;
                while i < lb.len() && token_byte(lb[i]) {
                    i += 1;
                }
                // Base64 padding belongs to the token.
                while i < lb.len() && lb[i] == b'=' && i > s {
                    i += 1;
                }
                let tok = &line[s..i];
                if s - name_at <= 80 && random_token(tok) {
                    out.push(span(at + s, at + i, "random-near-name"));
                }
            }
        }
        at = e + 1;
    }
}

fn token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'_' | b'-' | b'~')
}

/// Long, mixed upper, lower and digits, high entropy, not a path.
pub fn random_token(tok: &str) -> bool {
    let t = tok.trim_end_matches('=');
    if t.len() < 20 || t.contains("REDACTED") {
        return false;
    }
    let upper = t.bytes().any(|c| c.is_ascii_uppercase());
    let lower = t.bytes().any(|c| c.is_ascii_lowercase());
    let digit = t.bytes().any(|c| c.is_ascii_digit());
    let pathlike = t.matches('/').count() >= 2 && !t.contains('+');
    upper && lower && digit && !pathlike && entropy(t) >= 3.7
}
