//! Credentials inside URLs: the password of `user:password@`, a key as the user part.

use super::span;
use crate::bundle::redact::keys::{is_placeholder, looks_secret};
use crate::bundle::redact::Span;

/// `scheme://user:password@host` (a password with `@` included) and
/// `scheme://KEY@host` when the user part is a key (Sentry DSNs).
pub(super) fn url_credentials(text: &str, out: &mut Vec<Span>) {
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
