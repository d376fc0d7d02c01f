//! The second check before a bundle is written: every member, every file name (of files
//! in and left out), the report's Markdown and its Typst source (what the PDF is made
//! from) are scanned for what still looks like a secret. It shares no code with the
//! redactor, only the rule set's words: its own reading of `secrets.toml`, its own
//! splitting of lines, and three plain tests (a token prefix the rules name, a value
//! right after a secret's name, a long random token on a line that names a secret). Any
//! hit stops the bundle, naming the file and line with the value masked.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

/// What the check looks for, read from the rule set's data on its own.
struct Words {
    /// Token prefixes with a non-letter in them (`ghp_`, `sk-`, `dhhc-1:`), lowercase.
    prefixes: Vec<String>,
    /// Query parameters whose value is a secret (`x-amz-signature`, `sig`), lowercase,
    /// each with `=`: a rule that lists them has keywords that name parameters, not the
    /// start of a token, and its other parameters hold nothing secret.
    params: Vec<String>,
    /// Words that name a secret (`password`, `token`, `secret`, ...), lowercase.
    names: Vec<String>,
    /// (tool names, the flags of theirs whose value is a secret).
    tools: Vec<(Vec<String>, Vec<String>)>,
    /// (tool names, the flags that make it read a secret from its standard input; an
    /// empty flag: always), as in `echo PW | sudo -S`.
    stdin: Vec<(Vec<String>, Vec<String>)>,
    /// The prefixes and the names, each found in one pass over a line.
    find_prefixes: Option<AhoCorasick>,
    find_params: Option<AhoCorasick>,
    find_names: Option<AhoCorasick>,
    /// Every tool's name: a line naming none needs no word-by-word look.
    find_tools: Option<AhoCorasick>,
}

fn words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| {
        let data: toml::Value = include_str!("redact/secrets.toml")
            .parse::<toml::Table>()
            .map(toml::Value::Table)
            .unwrap_or(toml::Value::Boolean(false));
        let names = key_names(&data);
        let (params, prefixes) = rule_words(&data);
        let (tools, stdin) = tool_flags(&data);
        let tool_names: Vec<&String> = tools
            .iter()
            .chain(stdin.iter())
            .flat_map(|(n, _): &(Vec<String>, Vec<String>)| n.iter())
            .collect();
        Words {
            find_params: AhoCorasick::new(&params).ok(),
            params,
            find_tools: AhoCorasick::new(&tool_names).ok(),
            find_prefixes: AhoCorasick::new(&prefixes).ok(),
            find_names: AhoCorasick::new(&names).ok(),
            prefixes,
            names,
            tools,
            stdin,
        }
    })
}

/// A list of words from the rule file, lower case.
fn list(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_ascii_lowercase))
        .collect()
}

/// The key names that say a value is a secret.
fn key_names(data: &toml::Value) -> Vec<String> {
    let keys = data.get("keys");
    let mut names = list(keys.and_then(|k| k.get("strong")));
    // `token` alone, and the pairs written every way (`api_key`, `api-key`, `apikey`):
    // `key` and `pass` alone name too much to stop a bundle on.
    names.push("token".into());
    names.push("cookie".into());
    for pair in keys
        .and_then(|k| k.get("pairs"))
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
    {
        let p = list(Some(pair));
        if let [a, b] = p.as_slice() {
            for sep in ["_", "-", ""] {
                names.push(format!("{a}{sep}{b}"));
            }
        }
    }
    names.retain(|n| n.len() >= 3);
    names.sort();
    names.dedup();
    names
}

/// The rules' URL parameters (`X-Amz-Signature=`) and the prefixes of their keywords.
fn rule_words(data: &toml::Value) -> (Vec<String>, Vec<String>) {
    let rules = || {
        data.get("rule")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
    };
    let mut params: Vec<String> = rules()
        .flat_map(|r| list(r.get("params")))
        .map(|p| format!("{p}="))
        .collect();
    params.sort();
    params.dedup();
    let mut prefixes: Vec<String> = rules()
        .filter(|r| list(r.get("params")).is_empty())
        .flat_map(|r| list(r.get("keywords")))
        .filter(|k| k.len() >= 3 && k.bytes().any(|c| !c.is_ascii_alphabetic()) && !k.contains(' '))
        .collect();
    prefixes.sort();
    prefixes.dedup();
    (params, prefixes)
}

/// Per tool: its names, and some of its flags.
type ToolFlags = Vec<(Vec<String>, Vec<String>)>;

/// Each tool's names with the flags that carry a secret, and with the flags that read one
/// from standard input (tools without such flags left out).
fn tool_flags(data: &toml::Value) -> (ToolFlags, ToolFlags) {
    let tools: ToolFlags = data
        .get("tool")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let raw = |k: &str| -> Vec<String> {
                t.get(k)
                    .and_then(toml::Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            };
            let mut flags = raw("value");
            flags.extend(raw("attached"));
            flags.extend(raw("userpass"));
            flags.retain(|f| !f.is_empty());
            (raw("names"), flags)
        })
        .collect();
    let stdin: ToolFlags = data
        .get("tool")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| (list(t.get("names")), list(t.get("stdin"))))
        .filter(|(_, flags)| !flags.is_empty())
        .collect();
    (tools, stdin)
}

/// One hit: the line and the value, masked.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub line: usize,
    pub what: String,
    /// The value as it stands on the line (empty for a private key's armour, which is
    /// not one value).
    pub value: String,
}

fn masked(value: &str) -> String {
    let head: String = value.chars().take(3).collect();
    format!("{head}… {} characters", value.chars().count())
}

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-' | '.' | ':' | '~' | '%')
}

/// The token starting at byte `at` of `line`.
fn token_at(line: &str, at: usize) -> &str {
    let rest = &line[at..];
    let end = rest.find(|c: char| !token_char(c)).unwrap_or(rest.len());
    &rest[..end]
}

fn redacted(t: &str) -> bool {
    t.starts_with("[REDACTED") || t.contains("REDACTED")
}

/// A value that could be a credential: not a placeholder or a plain word or count.
fn credential_like(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    let placeholder = matches!(
        lower.as_str(),
        "none" | "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "required" | "stdin"
    ) || v.starts_with('$')
        || v.starts_with('<')
        || v.starts_with('{')
        || v.chars()
            .all(|c| c == '*' || c == 'x' || c == '.' || c == '-');
    let digit = v.chars().any(|c| c.is_ascii_digit());
    let letter = v.chars().any(|c| c.is_ascii_alphabetic());
    let mixed =
        v.chars().any(|c| c.is_ascii_uppercase()) && v.chars().any(|c| c.is_ascii_lowercase());
    let symbol = v
        .chars()
        .any(|c| matches!(c, '+' | '/' | '=' | '_' | '~' | '%' | '@' | '!' | '#'));
    // A setting's own name (`http_s3_region`, `HUB_ENABLE_HF_TRANSFER`) or another
    // setting (`success=1`).
    let identifier = v.contains('_')
        && (v
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
            || v.bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_'));
    v.len() >= 6
        && !placeholder
        && !identifier
        && !crate::bundle::pseudonym::is_pseudonym(v)
        && letter
        && (digit || mixed || symbol)
}

/// A token as a value: `name=value` (a cookie, a setting) gives its value.
fn value_part(tok: &str) -> &str {
    match tok.trim_end_matches('=').split_once('=') {
        Some((_, v)) if !v.is_empty() => v,
        _ => tok,
    }
}

/// A line without its colour sequences (`\x1b[32m`).
fn plain(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return line.into();
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() && d != '[' {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out.into()
}

fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0u32) += 1;
    }
    let n = s.chars().count() as f64;
    counts
        .values()
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Every value the check finds redacted in place, line by line, until it finds none it
/// can redact (at most a few rounds: each round removes the values it found). Returns
/// the text and how many values went.
pub fn redact_found(text: &str) -> (String, usize) {
    let mut text = text.to_string();
    let mut n = 0;
    for _ in 0..4 {
        let hits: Vec<Hit> = scan(&text)
            .into_iter()
            .filter(|h| !h.value.is_empty())
            .collect();
        if hits.is_empty() {
            break;
        }
        let mut out = String::with_capacity(text.len());
        let mut by_line = hits.iter().peekable();
        let mut changed = 0;
        for (i, line) in text.split_inclusive(['\n', '\0']).enumerate() {
            let mut line = line.to_string();
            while let Some(h) = by_line.next_if(|h| h.line == i + 1) {
                if line.contains(h.value.as_str()) {
                    line = line.replace(h.value.as_str(), super::redact::MARK);
                    changed += 1;
                }
            }
            out.push_str(&line);
        }
        if changed == 0 {
            break;
        }
        n += changed;
        text = out;
    }
    (text, n)
}

/// Everything in `text` that still looks like a secret: per line, the first of the
/// checks below that finds one.
pub fn scan(text: &str) -> Vec<Hit> {
    let w = words();
    let mut hits = Vec::new();
    for (n, raw) in text.split(['\n', '\0']).enumerate() {
        let line = plain(raw);
        let line = line.as_ref();
        let lower = line.to_ascii_lowercase();
        let mut first: Option<(String, String)> = None;
        let mut push = |what: String, value: &str| {
            first.get_or_insert((what, value.to_string()));
        };
        let l = Scanned {
            line,
            lower: &lower,
        };
        prefixed_tokens(w, &l, &mut push);
        secret_params(w, &l, &mut push);
        private_key(&l, &mut push);
        url_credentials(&l, &mut push);
        tool_secrets(w, &l, &mut push);
        named_values(w, &l, &mut push);
        if let Some((what, value)) = first {
            hits.push(Hit {
                line: n + 1,
                what,
                value,
            });
        }
    }
    hits
}

/// One line, as written and lowercased (same byte offsets: ASCII lowercasing).
struct Scanned<'a> {
    line: &'a str,
    lower: &'a str,
}

/// Where the patterns of `ac` start in `lower`, with the pattern each is.
fn found(
    ac: &Option<AhoCorasick>,
    list: &'static [String],
    lower: &str,
) -> Vec<(usize, &'static str)> {
    ac.iter()
        .flat_map(|a| a.find_overlapping_iter(lower))
        .map(|m| (m.start(), list[m.pattern().as_usize()].as_str()))
        .collect()
}

/// A token that starts with a prefix the rules name.
fn prefixed_tokens(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
    let (line, lower) = (l.line, l.lower);
    for (at, p) in found(&w.find_prefixes, &w.prefixes, lower) {
        {
            let boundary = at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric();
            // The token up to a `=` that is not base64's padding: `HF_HOME=/models/hf`
            // is a setting's name and its value, not an `hf_` token.
            let whole = token_at(line, at);
            let tok = match whole.trim_end_matches('=').find('=') {
                Some(eq) => &whole[..eq],
                None => whole,
            };
            let body = tok.get(p.len()..).unwrap_or("");
            // A host name or a path after the prefix (`pypi-proxy.example.com/simple`) is
            // a place, not a token: tokens are base64 or base62, without dotted names.
            let place = body.contains('.')
                && (body.contains('/')
                    || body.bytes().all(|c| {
                        c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.'
                    }));
            if boundary && body.len() >= 12 && credential_like(body) && !place && !redacted(tok) {
                push(format!("a `{p}` token ({})", masked(tok)), tok);
            }
        }
    }
}

/// The value of a query parameter that holds a secret (`X-Amz-Signature=…`, `sig=…`).
fn secret_params(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
    let (line, lower) = (l.line, l.lower);
    for (at, p) in found(&w.find_params, &w.params, lower) {
        let boundary = at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric();
        let rest = &line[at + p.len()..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '&' | '#' | '"' | '\'' | '<' | '>'))
            .unwrap_or(rest.len());
        let value = &rest[..end];
        if boundary && !redacted(value) && credential_like(value) {
            push(
                format!(
                    "the value of `{}` ({})",
                    &line[at..at + p.len() - 1],
                    masked(value)
                ),
                value,
            );
        }
    }
}

/// A private key's armour that is still there.
fn private_key(l: &Scanned, push: &mut dyn FnMut(String, &str)) {
    let lower = l.lower;
    if (lower.contains("-----begin")
        && (lower.contains("private key-----") || lower.contains("private key block-----")))
        || lower.trim_start().starts_with("putty-user-key-file-")
    {
        push("a private key block".to_string(), "");
    }
}

/// Credentials in a URL: `scheme://user:password@` or `scheme://KEY@`.
fn url_credentials(l: &Scanned, push: &mut dyn FnMut(String, &str)) {
    let line = l.line;
    for (at, _) in line.match_indices("://") {
        let rest = &line[at + 3..];
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '/' | '"' | '\'' | '<' | '>' | '?' | '#')
            })
            .unwrap_or(rest.len());
        if let Some(user_end) = rest[..end].rfind('@') {
            let info = &rest[..user_end];
            let secret = info.split_once(':').map_or(info, |(_, p)| p);
            let keyish = info.contains(':') || info.len() >= 16;
            if keyish && !redacted(secret) && credential_like(secret) {
                push(format!("credentials in a URL ({})", masked(secret)), secret);
            }
        }
    }
}

/// A secret flag of a tool named on the line, and what `echo` pipes into a tool.
fn tool_secrets(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
    let (line, lower) = (l.line, l.lower);
    let tool_named = w.find_tools.as_ref().is_some_and(|a| a.is_match(lower));
    let words_on: Vec<&str> = if tool_named {
        line.split_whitespace().collect()
    } else {
        Vec::new()
    };
    for (names, flags) in w.tools.iter().filter(|_| tool_named) {
        let is_tool = |x: &str| {
            names.iter().any(|n| {
                x.trim_matches(|c| c == '\'' || c == '"').rsplit('/').next() == Some(n.as_str())
            })
        };
        if !words_on.iter().any(|x| is_tool(x)) {
            continue;
        }
        // A flag belongs to the command it follows: after the tool's name, in the same
        // command (`mkdir -p DIR && docker ...` gives docker no `-p`).
        let mut in_tool = false;
        for (i, word) in words_on.iter().enumerate() {
            if matches!(*word, ";" | "&&" | "||" | "|" | "&") {
                in_tool = false;
                continue;
            }
            if is_tool(word) {
                in_tool = true;
                continue;
            }
            let ends_command = word.ends_with(';');
            if !in_tool {
                continue;
            }
            if ends_command {
                in_tool = false;
            }
            for f in flags {
                let value = if *word == f.as_str() {
                    words_on.get(i + 1).copied()
                } else if let Some(rest) = word.strip_prefix(f.as_str()) {
                    (f.len() == 2 && !rest.is_empty() && !word.starts_with("--"))
                        .then_some(rest)
                        .or_else(|| rest.strip_prefix('='))
                } else {
                    None
                };
                let Some(v) = value else { continue };
                let v = v.trim_matches(|c| c == '\'' || c == '"');
                let v = v.rsplit_once([':', '%']).map_or(v, |(_, p)| p);
                if !redacted(v) && !v.contains("://") && credential_like(v) {
                    push(format!("the value of `{f}` ({})", masked(v)), v);
                }
            }
        }
    }
    if let Some(pipe) = line.find('|').filter(|_| tool_named) {
        let after: Vec<String> = lower[pipe + 1..]
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let reads_stdin = w.stdin.iter().any(|(names, flags)| {
            after.iter().any(|a| names.contains(a))
                && flags.iter().any(|f| f.is_empty() || after.contains(f))
        });
        let echoed = line[..pipe]
            .trim()
            .strip_prefix("echo ")
            .filter(|_| reads_stdin);
        if let Some(echoed) = echoed {
            let v = echoed
                .split_whitespace()
                .find(|x| !x.starts_with('-'))
                .unwrap_or("")
                .trim_matches(|c| c == '\'' || c == '"');
            if !redacted(v) && credential_like(v) {
                push(format!("what `echo` pipes in ({})", masked(v)), v);
            }
        }
    }
}

/// A value right after a name that says secret, before any other word; and a long random
/// token on a line that names a secret.
fn named_values(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
    let (line, lower) = (l.line, l.lower);
    let ends_word = |at: usize, len: usize| {
        !lower[at + len..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    };
    // A name starts a word too: `bypass` does not name a `pass`, nor `kpasswd` a
    // `passwd`.
    let starts_word =
        |at: usize, _len: usize| at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric();
    let is_name = |at: usize, len: usize| ends_word(at, len) && starts_word(at, len);
    let names_here = found(&w.find_names, &w.names, lower);
    let named = names_here.iter().any(|(at, name)| is_name(*at, name.len()));
    if named {
        for &(at, name) in &names_here {
            {
                let after = at + name.len();
                let next = lower[after..].chars().next();
                if next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                    || !starts_word(at, name.len())
                {
                    continue;
                }
                let rest = &line[after..];
                let skip = rest
                    .find(|c: char| {
                        !matches!(c, '"' | '\'' | ':' | '=' | ' ' | '\t' | '[' | '\\' | '>')
                    })
                    .unwrap_or(rest.len());
                let mut tok = value_part(token_at(rest, skip));
                // An authentication scheme names what follows it.
                if matches!(
                    tok.to_ascii_lowercase().as_str(),
                    "bearer" | "basic" | "token" | "digest" | "negotiate"
                ) {
                    let after = skip + tok.len();
                    let more = rest[after..].len() - rest[after..].trim_start().len();
                    tok = token_at(rest, after + more);
                }
                // Paths and URLs are where a secret is kept, not the secret; a word
                // after a dash is the next option (`-Name API_KEY -AsPlainText`).
                let where_kept = tok.starts_with('/')
                    || tok.starts_with('.')
                    || tok.starts_with('-')
                    || tok.contains("://");
                if !redacted(tok) && !where_kept && credential_like(tok) {
                    push(format!("a value after `{name}` ({})", masked(tok)), tok);
                }
            }
        }
        // A long random token on a line that names a secret.
        for tok in line.split(|c: char| !token_char(c) || c == ':' || c == '.') {
            // A setting's value is judged without its name (`X-Amz-Algorithm=AWS4-HMAC-
            // SHA256` is a name and a plain word, not one random token).
            let t = value_part(tok).trim_end_matches('=');
            let classes = [
                t.chars().any(|c| c.is_ascii_uppercase()),
                t.chars().any(|c| c.is_ascii_lowercase()),
                t.chars().any(|c| c.is_ascii_digit()),
            ];
            let path = t.contains('/') && !t.contains('+');
            if t.len() >= 24
                && classes.iter().all(|x| *x)
                && !path
                && !redacted(t)
                && entropy(t) >= 4.0
            {
                push(format!("a random token ({})", masked(t)), t);
            }
        }
    }
}

/// Scans every text file under the folders given (a tuning aid: `cargo test -- --ignored
/// scan_tree` with `REPROBENCH_SCAN_DIRS`).
#[cfg(test)]
#[test]
#[ignore = "a tuning aid over real files, not a check"]
fn scan_tree() {
    let dirs = std::env::var("REPROBENCH_SCAN_DIRS").unwrap_or_default();
    for d in dirs.split(':').filter(|d| !d.is_empty()) {
        let mut stack = vec![std::path::PathBuf::from(d)];
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                stack.extend(
                    std::fs::read_dir(&p)
                        .into_iter()
                        .flatten()
                        .flatten()
                        .map(|e| e.path()),
                );
            } else if let Ok(t) = std::fs::read_to_string(&p) {
                for h in scan(&t) {
                    println!("{}:{}: {}", p.display(), h.line, h.what);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_its_own_it_finds_most_of_the_corpus() {
        let corpus = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/secrets/corpus.txt"),
        )
        .expect("corpus");
        let seeded: Vec<usize> = corpus
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains("LEAK") && !l.starts_with('#'))
            .map(|(i, _)| i + 1)
            .collect();
        let hits: Vec<usize> = scan(&corpus).iter().map(|h| h.line).collect();
        let found = seeded.iter().filter(|l| hits.contains(l)).count();
        // Independent and cruder than the redactor: it must still see most of them.
        assert!(
            found * 10 >= seeded.len() * 7,
            "{found} of {}: missed lines {:?}",
            seeded.len(),
            seeded
                .iter()
                .filter(|l| !hits.contains(l))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn finds_what_the_redactor_would_have_to_remove_and_not_what_it_left() {
        assert_eq!(scan("x ghp_0123456789abcdefghijABCDEF here").len(), 1);
        assert_eq!(scan("DB_PASSWORD=hunter2").len(), 1);
        assert_eq!(scan("--api-key s3cr3tValue").len(), 1);
        assert_eq!(scan("token: aB3dE5gH7jK9mN1pQ3sT5vX7zA9c").len(), 1);
        for leak in [
            "x.run?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=9f86d081884c7d659a2feaa0c55ad015",
            "x.run?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261129%2Fus-east-1%2Fs3%2Faws4_request",
            "c/x?sv=2021-08-06&sr=b&sig=abc%2Bdef0123456789%3D",
            "get?X-Goog-Signature=0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        ] {
            assert_eq!(scan(leak).len(), 1, "{leak}");
        }
        for clean in [
            "DB_PASSWORD=[REDACTED]",
            "\"token\": \"[REDACTED]\"",
            "--max-num-batched-tokens 8192",
            "PasswordAuthentication no",
            "docker login --password-stdin ghcr.io",
            "sha256 4f5e1c0b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
            "prompt_tokens: 196531",
            "ghp_ is a prefix",
            "Vulnerability Spec store bypass:    Vulnerable",
            "kpasswd         464/tcp",
            "[credential \"https://github.com\"]",
            "token http://example/x",
            "akv-gateway-6.1.1.run?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261129T091200Z",
            "x?X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=[REDACTED]",
            "x?sv=2021-08-06&se=2026-12-01T00%3A00%3A00Z&sp=r&sig=[REDACTED]",
            "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Date=20261129T091200Z",
            "x?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=[REDACTED]&X-Goog-Signature=[REDACTED]",
            "export HF_HOME=/models/hf",
            "HF_HUB_ENABLE_HF_TRANSFER=1",
            "pip install --index-url https://pypi-proxy.example.com/simple fio-plot",
            "accesskey=host-13 secret_key: ip-4",
        ] {
            assert!(scan(clean).is_empty(), "{clean}: {:?}", scan(clean));
        }
    }
}
