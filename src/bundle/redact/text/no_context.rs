//! Secrets with no name beside them, found by what they are: long random tokens (by
//! their shape and entropy, with the random-looking things that are not secrets named:
//! public keys after their type, fingerprints after their hash's name, inline data,
//! hex digests and UUIDs, which have no upper case), base64 blocks judged by what they
//! decode to (a credential file inside is redacted whole; an image or a certificate is
//! kept whole, and nothing inside it is taken for a token), a password typed at the
//! shell prompt (`-bash: …: command not found`), and what an expect script answered to
//! a password prompt.

use base64::Engine;

use super::key_value::line_end;
use super::{random_token, span};
use crate::bundle::redact::rules::rules;
use crate::bundle::redact::Span;

/// The shortest run of token bytes taken for a secret with no context.
const MIN_RANDOM: usize = 24;
/// The shortest base64 run decoded to see what it holds.
const MIN_BASE64: usize = 64;

/// Base64 blocks: secret ones to redact whole, and the ranges of kept ones (nothing inside
/// them is a token).
pub(super) struct Blocks {
    pub secret: Vec<Span>,
    /// Sorted, not overlapping.
    pub kept: Vec<(usize, usize)>,
}

impl Blocks {
    /// Whether `start..end` lies inside a kept block (a binary search: many blocks and
    /// many tokens cost their count's logarithm each, not their product).
    pub fn keeps(&self, start: usize, end: usize) -> bool {
        inside(&self.kept, start, end)
    }
}

fn inside(kept: &[(usize, usize)], start: usize, end: usize) -> bool {
    let i = kept.partition_point(|&(s, _)| s <= start);
    i > 0 && end <= kept[i - 1].1
}

fn b64_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_')
}

/// Every base64 run of at least [`MIN_BASE64`] characters, also folded over lines (a
/// mail's 76 columns, PEM's 64): (start, end) in `text`, padding included.
fn base64_runs(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // Where the line holding `i` starts (kept as the scan goes: no search back).
    let mut line_at = 0;
    while i < b.len() {
        if b[i] == b'\n' || b[i] == 0 {
            line_at = i + 1;
        }
        if !b64_byte(b[i]) || (i > 0 && b64_byte(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end;
        loop {
            while i < b.len() && b64_byte(b[i]) {
                i += 1;
            }
            while i < b.len() && b[i] == b'=' {
                i += 1;
            }
            end = i;
            // A fold: the line is all base64, and the next one starts with base64 at
            // its first column (CRLF too).
            let line_len = end - line_at;
            let mut n = end;
            if b.get(n) == Some(&b'\r') {
                n += 1;
            }
            let folded = line_len >= 40
                && b.get(n) == Some(&b'\n')
                && b.get(n + 1).is_some_and(|&c| b64_byte(c))
                && b[end - 1] != b'=';
            if !folded {
                break;
            }
            i = n + 1;
            line_at = i;
        }
        if end - start >= MIN_BASE64 {
            out.push((start, end));
        }
        i = end.max(start + 1);
    }
    out
}

fn decode(run: &str) -> Option<Vec<u8>> {
    use base64::engine::{DecodePaddingMode, GeneralPurposeConfig};
    let cfg = GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let compact: String = run.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let std = base64::engine::GeneralPurpose::new(&base64::alphabet::STANDARD, cfg);
    let url = base64::engine::GeneralPurpose::new(&base64::alphabet::URL_SAFE, cfg);
    std.decode(&compact).or_else(|_| url.decode(&compact)).ok()
}

/// What decoded bytes are: text, a known binary format (an image, a document, an
/// archive, a certificate), key material, or bytes of no known kind (no decision: a
/// random secret decodes to those too).
enum Decoded {
    Text(String),
    Binary,
    PrivateKey,
    Unknown,
}

/// Formats known by their first bytes: PNG, JPEG, GIF, PDF, gzip, zip, WebP.
const MAGIC: &[&[u8]] = &[
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF8",
    b"%PDF-",
    b"\x1f\x8b",
    b"PK\x03\x04",
    b"RIFF",
];

fn classify(bytes: &[u8]) -> Decoded {
    // DER: a SEQUENCE whose first element is INTEGER 0 is a private key (PKCS#1, #8);
    // a certificate starts with another SEQUENCE.
    if bytes.len() > 8 && bytes[0] == 0x30 {
        let skip = match bytes[1] {
            0x81 => 3,
            0x82 => 4,
            0x83 => 5,
            n if n < 0x80 => 2,
            _ => 0,
        };
        if skip > 0 && bytes.get(skip..skip + 3) == Some(&[0x02, 0x01, 0x00][..]) {
            return Decoded::PrivateKey;
        }
    }
    if MAGIC.iter().any(|m| bytes.starts_with(m)) || certificate(bytes) {
        return Decoded::Binary;
    }
    match std::str::from_utf8(bytes) {
        Ok(t)
            if t.chars()
                .filter(|c| c.is_control() && !c.is_whitespace())
                .count()
                * 50
                <= t.len() =>
        {
            Decoded::Text(t.to_string())
        }
        _ => Decoded::Unknown,
    }
}

/// A DER X.509 certificate: SEQUENCE { SEQUENCE { [0] { INTEGER 2 } ... } }.
fn certificate(bytes: &[u8]) -> bool {
    let header = |at: usize| -> Option<usize> {
        match bytes.get(at + 1)? {
            0x82 => Some(at + 4),
            0x81 => Some(at + 3),
            n if *n < 0x80 => Some(at + 2),
            _ => None,
        }
    };
    bytes.first() == Some(&0x30)
        && header(0).is_some_and(|tbs| {
            bytes.get(tbs) == Some(&0x30)
                && header(tbs).is_some_and(|v| {
                    bytes.get(v..v + 5) == Some(&[0xa0, 0x03, 0x02, 0x01, 0x02][..])
                })
        })
}

/// Base64 blocks, judged by what they decode to. `depth` bounds base64 inside base64.
pub(super) fn base64_blocks(text: &str, depth: usize) -> Blocks {
    let mut blocks = Blocks {
        secret: Vec::new(),
        kept: Vec::new(),
    };
    blocks.kept.extend(public_pem(text));
    for (s, e) in base64_runs(text) {
        let Some(bytes) = decode(&text[s..e]) else {
            continue;
        };
        let secret = match classify(&bytes) {
            Decoded::PrivateKey => true,
            Decoded::Binary => false,
            Decoded::Text(t) => depth < 2 && !super::spans_at(Some(""), &t, depth + 1).is_empty(),
            Decoded::Unknown => continue,
        };
        if secret {
            blocks.secret.push(span(s, e, "base64-with-a-secret"));
        } else {
            blocks.kept.push((s, e));
        }
    }
    blocks.kept.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(blocks.kept.len());
    for (s, e) in blocks.kept.drain(..) {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    blocks.kept = merged;
    blocks
}

/// PEM blocks of public things (certificates, public keys, requests, revocation lists),
/// BEGIN to END: kept whole.
fn public_pem(text: &str) -> Vec<(usize, usize)> {
    const PUBLIC: &[&str] = &[
        "CERTIFICATE",
        "TRUSTED CERTIFICATE",
        "PUBLIC KEY",
        "RSA PUBLIC KEY",
        "CERTIFICATE REQUEST",
        "NEW CERTIFICATE REQUEST",
        "X509 CRL",
        "PGP PUBLIC KEY BLOCK",
        "PGP SIGNATURE",
        "SSH2 PUBLIC KEY",
    ];
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("-----BEGIN ") {
        let s = from + p;
        let label_at = s + "-----BEGIN ".len();
        let Some(q) = text[label_at..].find("-----") else {
            break;
        };
        let label = &text[label_at..label_at + q];
        let end_marker = format!("-----END {label}-----");
        from = label_at + q;
        if !PUBLIC.contains(&label) {
            continue;
        }
        if let Some(e) = text[from..].find(&end_marker) {
            let e = from + e + end_marker.len();
            out.push((s, e));
            from = e;
        }
    }
    out
}

/// Whether a random-looking token is a public thing by what stands just before it: an
/// SSH public key's type, a fingerprint's hash name, inline data.
pub(super) fn public_by_prefix(b: &[u8], start: usize) -> bool {
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
pub(super) fn random_tokens(text: &str, kept: &[(usize, usize)], out: &mut Vec<Span>) {
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

/// A word typed at the shell prompt that the shell then refused (`-bash: WORD: command
/// not found`, zsh's `command not found: WORD`): when it looks like a password rather
/// than a mistyped command, it was one.
pub(super) fn typed_at_prompt(text: &str, out: &mut Vec<Span>) {
    let mut at = 0;
    let b = text.as_bytes();
    while at < b.len() {
        let e = line_end(b, at);
        let line = &text[at..e];
        let word = if let Some(w) = line.strip_suffix(": command not found") {
            w.rsplit(": ")
                .next()
                .map(|x| (e - ": command not found".len() - x.len(), x))
        } else {
            line.find("command not found: ").map(|p| {
                let s = p + "command not found: ".len();
                (at + s, &line[s..])
            })
        };
        if let Some((s, w)) = word {
            let shell = line.starts_with("-bash")
                || line.starts_with("bash")
                || line.starts_with("zsh")
                || line.starts_with("sh:")
                || line.starts_with("-sh");
            if shell && typed_secret(w) {
                out.push(span(s, s + w.len(), "typed-at-prompt"));
            }
        }
        at = e + 1;
    }
}

/// A password, not a command: long enough, three kinds of character, no path.
fn typed_secret(w: &str) -> bool {
    let lower = w.bytes().any(|c| c.is_ascii_lowercase());
    let upper = w.bytes().any(|c| c.is_ascii_uppercase());
    let digit = w.bytes().any(|c| c.is_ascii_digit());
    let symbol = w.bytes().any(|c| !c.is_ascii_alphanumeric());
    let kinds = [lower, upper, digit, symbol].iter().filter(|k| **k).count();
    w.len() >= 8 && kinds >= 3 && !w.contains('/') && !w.contains(char::is_whitespace)
}

/// What an expect script sent after a password prompt: `send: sending "…" to { exp4 }`
/// in its debug log, `send "…\r"` in the script, when the lines since the last send
/// hold one of the rule set's prompt words.
pub(super) fn expect_answers(text: &str, out: &mut Vec<Span>) {
    let prompts = &rules().prompts;
    let b = text.as_bytes();
    let mut since_send = String::new();
    let mut at = 0;
    while at < b.len() {
        let e = line_end(b, at);
        let line = &text[at..e];
        let t = line.trim_start();
        let lead = line.len() - t.len();
        let quoted_from = ["send: sending \"", "send -- \"", "send \"", "exp_send \""]
            .iter()
            .find(|p| t.starts_with(**p))
            .map(|p| at + lead + p.len());
        match quoted_from {
            Some(s) => {
                let asked = since_send.to_ascii_lowercase();
                if prompts.iter().any(|p| asked.contains(p.as_str())) {
                    if let Some(q) = text[s..e].find('"') {
                        let mut end = s + q;
                        for esc in ["\\r", "\\n"] {
                            if text[s..end].ends_with(esc) {
                                end -= esc.len();
                            }
                        }
                        if end > s {
                            out.push(span(s, end, "expect-answer"));
                        }
                    }
                }
                since_send.clear();
            }
            None => {
                if since_send.len() < 4096 {
                    since_send.push_str(line);
                    since_send.push('\n');
                }
            }
        }
        at = e + 1;
    }
}
