//! Base64 blocks judged by what they decode to: a private key or a text holding a
//! secret is redacted whole; an image, a document, an archive, a certificate or a public
//! PEM block is kept whole, and nothing inside it is taken for a token.

use base64::Engine;

use crate::bundle::redact::text::span;
use crate::bundle::redact::Span;

/// The shortest base64 run decoded to see what it holds.
const MIN_BASE64: usize = 64;

/// Base64 blocks: secret ones to redact whole, and the ranges of kept ones (nothing inside
/// them is a token).
pub(crate) struct Blocks {
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

pub(super) fn inside(kept: &[(usize, usize)], start: usize, end: usize) -> bool {
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
pub(crate) fn base64_blocks(text: &str, depth: usize) -> Blocks {
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
