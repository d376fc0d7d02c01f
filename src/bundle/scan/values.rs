//! What a value looks like to the check: a token's bounds, a credential rather than a
//! placeholder or a setting's name, its randomness, and how a hit shows it masked.

pub(super) fn masked(value: &str) -> String {
    let head: String = value.chars().take(3).collect();
    format!("{head}… {} characters", value.chars().count())
}

pub(super) fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-' | '.' | ':' | '~' | '%')
}

/// The token starting at byte `at` of `line`.
pub(super) fn token_at(line: &str, at: usize) -> &str {
    let rest = &line[at..];
    let end = rest.find(|c: char| !token_char(c)).unwrap_or(rest.len());
    &rest[..end]
}

pub(super) fn redacted(t: &str) -> bool {
    t.starts_with("[REDACTED") || t.contains("REDACTED")
}

/// A value that could be a credential: not a placeholder or a plain word or count.
pub(super) fn credential_like(v: &str) -> bool {
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
pub(super) fn value_part(tok: &str) -> &str {
    match tok.trim_end_matches('=').split_once('=') {
        Some((_, v)) if !v.is_empty() => v,
        _ => tok,
    }
}

/// A line without its colour sequences (`\x1b[32m`).
pub(super) fn plain(line: &str) -> std::borrow::Cow<'_, str> {
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

pub(super) fn entropy(s: &str) -> f64 {
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
