//! Long random tokens a short distance after a secret's name on its line.

use super::key_value::line_end;
use super::stems::{first_stem, names_a_secret};
use super::{no_context, random_token, span};
use crate::bundle::redact::Span;

/// A long random token (upper and lower case and digits, base64 or base62 style) within
/// a short distance after a secret's name on its line: what no rule names, found by its
/// shape. Hex digests, ids and paths are not random enough to count.
pub(super) fn near_names(text: &str, out: &mut Vec<Span>) {
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
