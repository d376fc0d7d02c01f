//! The checks run on each line, each finding its own kind of secret: a token prefix the
//! rules name, a secret query parameter, a private key, credentials in a URL, a tool's
//! secret flag, a value after a name that says secret.

use aho_corasick::AhoCorasick;

use super::values::{credential_like, entropy, masked, redacted, token_at, token_char, value_part};
use super::words::Words;
use super::Scanned;

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
pub(super) fn prefixed_tokens(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
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
pub(super) fn secret_params(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
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
pub(super) fn private_key(l: &Scanned, push: &mut dyn FnMut(String, &str)) {
    let lower = l.lower;
    if (lower.contains("-----begin")
        && (lower.contains("private key-----") || lower.contains("private key block-----")))
        || lower.trim_start().starts_with("putty-user-key-file-")
    {
        push("a private key block".to_string(), "");
    }
}

/// Credentials in a URL: `scheme://user:password@` or `scheme://KEY@`.
pub(super) fn url_credentials(l: &Scanned, push: &mut dyn FnMut(String, &str)) {
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
pub(super) fn tool_secrets(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
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
pub(super) fn named_values(w: &'static Words, l: &Scanned, push: &mut dyn FnMut(String, &str)) {
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
