//! Long random tokens with no name beside them, found by their shape and entropy, and
//! the random-looking things that are not secrets: public keys after their type or
//! their name, fingerprints after their hash's name, inline data.

use super::base64_blocks::inside;
use crate::bundle::redact::text::key_value::line_end;
use crate::bundle::redact::text::{random_token, span};
use crate::bundle::redact::Span;

/// The shortest run of token bytes taken for a secret with no context.
const MIN_RANDOM: usize = 24;

/// Whether a random-looking token is a public thing by what stands just before it: an
/// SSH public key's type, a fingerprint's hash name, inline data.
pub(crate) fn public_by_prefix(b: &[u8], start: usize) -> bool {
    let before = &b[start.saturating_sub(48)..start];
    let before = String::from_utf8_lossy(before).to_ascii_lowercase();
    let last_word = before
        .trim_end()
        .rsplit(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        .next()
        .unwrap_or("");
    let glued = before.ends_with("sha256:")
        || before.ends_with("sha1:")
        || before.ends_with("sha512:")
        || before.ends_with("md5:")
        || before.ends_with("base64,");
    glued
        || ((last_word.starts_with("ssh-")
            || last_word.starts_with("ecdsa-")
            || last_word.starts_with("sk-ssh-")
            || last_word.starts_with("sk-ecdsa-"))
            && before.ends_with(' '))
}

/// Whether the line names the token a public key (`PublicKey = …`, `public_key: …`).
fn public_by_name(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.contains("publickey")
        || l.contains("public_key")
        || l.contains("public-key")
        || l.contains("pubkey")
}

/// Long random tokens anywhere, outside the `kept` ranges. Line by line: what is asked of
/// a token's line is asked once per line, so a long line costs its length, not more.
pub(crate) fn random_tokens(text: &str, kept: &[(usize, usize)], out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let mut public_line: Option<bool> = None;
        for (ps, pe) in random_runs(text, at, e, kept) {
            let public = *public_line.get_or_insert_with(|| public_by_name(&text[at..e]));
            if public || public_by_prefix(b, ps) {
                continue;
            }
            out.push(span(ps, pe, "random-token"));
        }
        at = e + 1;
    }
}

/// The random runs (or random parts of runs) of `text[from..to]`.
fn random_runs(text: &str, from: usize, to: usize, kept: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let token = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'_' | b'-');
    let mut found = Vec::new();
    let mut i = from;
    while i < to {
        if !token(b[i]) {
            i += 1;
            continue;
        }
        let s = i;
        while i < to && token(b[i]) {
            i += 1;
        }
        while i < to && b[i] == b'=' && i > s {
            i += 1;
        }
        if i - s < MIN_RANDOM || inside(kept, s, i) {
            continue;
        }
        // The run, or its parts between `-` and `_` (`alert-B07K2-<token>.json`).
        let whole = &text[s..i];
        if random_token(whole) && strict(whole) {
            found.push((s, i));
            continue;
        }
        let mut p = s;
        for k in s..=i {
            if k == i || b[k] == b'-' || b[k] == b'_' {
                if k - p >= MIN_RANDOM - 4 && random_token(&text[p..k]) && strict(&text[p..k]) {
                    found.push((p, k));
                }
                p = k + 1;
            }
        }
    }
    found
}

/// Stricter than a token near a secret's name: with no name beside it, a token must be
/// as random as a generated one (a sentence in camel case or a long file name is not).
fn strict(tok: &str) -> bool {
    let t = tok.trim_end_matches('=');
    let digits = t.bytes().filter(u8::is_ascii_digit).count();
    let upper = t.bytes().filter(u8::is_ascii_uppercase).count();
    let lower = t.bytes().filter(u8::is_ascii_lowercase).count();
    // Class changes: random text switches class often; words and numbers do not.
    let switches = t
        .as_bytes()
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    super::entropy(t) >= 4.0 && digits >= 2 && upper >= 3 && lower >= 3 && switches * 3 >= t.len()
}

fn class(c: u8) -> u8 {
    if c.is_ascii_digit() {
        0
    } else if c.is_ascii_uppercase() {
        1
    } else if c.is_ascii_lowercase() {
        2
    } else {
        3
    }
}
