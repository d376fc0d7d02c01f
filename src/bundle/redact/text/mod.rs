//! Secrets in text of any syntax: a setting's name followed by its value (`KEY=VALUE`,
//! `KEY: VALUE`, `"KEY": "VALUE"`, `\"KEY\": \"VALUE\"`, `'KEY': ['VALUE']`,
//! `--KEY VALUE`, `--KEY=VALUE`, `["--KEY", "VALUE"]`, a YAML `- --KEY` item followed by
//! its value, a YAML block `KEY: >-`, a line continuation after `--KEY \`, colour codes
//! in between), URL credentials, `.netrc` lines, the data of a Kubernetes Secret, the
//! token shapes of the rule set, and long random tokens near a secret's name. Each finds
//! the value's own extent in its syntax, so what replaces it leaves the quotes, brackets
//! and indentation where they were.

pub use super::keys::{entropy, random_token};
use super::keys::{is_placeholder, is_secret, looks_secret, mixes_classes};
use super::rules::rules;
use super::Span;
mod key_value;
mod no_context;
mod records;
use key_value::*;

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

/// Every secret span in a file's `text`, or a value of one (unsorted, possibly
/// overlapping); `name` is its path in the bundle ("" when unknown or a value). gitleaks'
/// rule set runs beside ours.
pub fn spans_of_file(name: &str, text: &str) -> Vec<Span> {
    spans_at(Some(name), text, 0)
}

/// [`spans_of_file`], `depth` levels of base64 down; `file`: the file's name, when
/// gitleaks' rules are to run (None: ours only).
fn spans_at(file: Option<&str>, text: &str, depth: usize) -> Vec<Span> {
    let mut out = Vec::new();
    let blocks = no_context::base64_blocks(text, depth);

    if triggers().is_match(text) {
        let lower = text.to_ascii_lowercase();
        token_rules(text, &lower, &mut out);
        key_values(text, &mut out);
        url_credentials(text, &mut out);
        if lower.contains("kind: secret") {
            kubernetes_secret(text, &mut out);
        }
        near_names(text, &mut out);
        records::spans(text, &lower, &mut out);
        super::shell::spans(text, &mut out);
        if lower.contains("send") {
            no_context::expect_answers(text, &mut out);
        }
    }
    if memchr::memmem::find(text.as_bytes(), b"command not found").is_some() {
        no_context::typed_at_prompt(text, &mut out);
    }
    no_context::random_tokens(text, &blocks.kept, &mut out);
    if let Some(name) = file {
        gitleaks_where_ours_did_not(name, text, &mut out);
    }
    // An image or a certificate in base64 is kept whole: nothing inside it is a token.
    out.retain(|s| !blocks.keeps(s.start, s.end));
    out.extend(blocks.secret);
    same_values(text, &mut out);
    out
}

/// A secret found once is redacted wherever else it stands in the text (the password
/// typed at the prompt is also on the prompt's line).
fn same_values(text: &str, out: &mut Vec<Span>) {
    let mut values: Vec<&str> = out
        .iter()
        .map(|s| &text[s.start..s.end])
        .filter(|v| v.len() >= 8 && !v.contains('\n') && !super::keys::is_placeholder(v))
        .collect();
    values.sort_unstable();
    values.dedup();
    if values.is_empty() || values.len() > 10_000 {
        return;
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new(&values) else {
        return;
    };
    for m in ac.find_iter(text) {
        out.push(span(m.start(), m.end(), "same-value"));
    }
}

/// gitleaks' findings beside ours. Where ours found the secrets inside one of its findings,
/// reach to its end and leave no token cut between them, ours decide the extent: they
/// read the syntax (the user of `curl -u user:pw` is a name, the password after it the
/// secret; the lines between two PEM blocks a lazy pattern ran across are evidence).
/// Anywhere else its extent stands, so a token ours caught only part of goes whole.
fn gitleaks_where_ours_did_not(name: &str, text: &str, out: &mut Vec<Span>) {
    let mut found = Vec::new();
    gitleaks(name, text, &mut found);
    if found.is_empty() {
        return;
    }
    // Ours as disjoint sorted ranges: each finding's question is a binary search.
    let mut ours: Vec<(usize, usize)> = out.iter().map(|o| (o.start, o.end)).collect();
    ours.sort_unstable();
    let mut joined: Vec<(usize, usize)> = Vec::with_capacity(ours.len());
    for (s, e) in ours {
        match joined.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => joined.push((s, e)),
        }
    }
    for g in found {
        let first = joined.partition_point(|&(_, e)| e <= g.start);
        let inside: Vec<(usize, usize)> = joined[first..]
            .iter()
            .copied()
            .take_while(|&(s, _)| s < g.end)
            .collect();
        // Ours decide when they reach the finding's end and every gap between them holds
        // a blank: then each of ours is a whole value of its own (a key and the lines
        // after it). A gap with no blank is a piece of one token ours cut in two, and the
        // finding takes it.
        let reach = inside.last().is_some_and(|&(_, end)| end >= g.end);
        let gaps_are_blanks = inside.windows(2).all(|w| {
            text[w[0].1..w[1].0]
                .bytes()
                .any(|b| b.is_ascii_whitespace())
        });
        if !(reach && gaps_are_blanks) {
            out.push(g);
        }
    }
}

/// What gitleaks' rules find, but for placeholders (`${VAR}`, `<token>`) and paths to
/// a secret's file, which its allowlists leave to the reader.
pub fn gitleaks(name: &str, text: &str, out: &mut Vec<Span>) {
    for f in super::gitleaks::rule_set().find(name, text) {
        let value = &text[f.start..f.end];
        if is_placeholder(value) || super::keys::is_reference(value) {
            continue;
        }
        out.push(span(f.start, f.end, &f.rule));
    }
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
            if is_placeholder(m.as_str()) || (rule.mixed && !mixes_classes(m.as_str())) {
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

/// Whether the word holding the stem at `at` can name a secret: not a public key, a
/// certificate authority or a fingerprint, and a name, not a long token.
fn names_a_secret(line: &str, at: usize) -> bool {
    let b = line.as_bytes();
    let mut s = at;
    while s > 0 && name_byte(b[s - 1]) {
        s -= 1;
    }
    let mut e = at;
    while e < b.len() && name_byte(b[e]) {
        e += 1;
    }
    let word = &line[s..e];
    word.len() <= 64 && super::keys::strength(word) != super::keys::Strength::No
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

/// A long random token (upper and lower case and digits, base64 or base62 style) within
/// a short distance after a secret's name on its line: what no rule names, found by its
/// shape. Hex digests, ids and paths are not random enough to count.
fn near_names(text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let line = &text[at..e];
        if let Some(name_at) = first_stem(line).filter(|&n| names_a_secret(line, n)) {
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
                if s - name_at > 80 {
                    break;
                }
                let tok = &line[s..i];
                if random_token(tok) && !no_context::public_by_prefix(b, at + s) {
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
