//! Values after a key that names a secret, in the syntaxes text files write them:
//! `key: value`, `key=value`, quoted, lists and YAML blocks.

use super::*;

mod extents;
mod key;
mod lines;
mod value;

pub(super) use extents::quoted;
pub(super) use key::describe;
pub(super) use lines::{indent, line_end, skip_blank};
pub(super) use value::value_of;

/// Names followed by their values, in every syntax above.
pub(super) fn key_values(text: &str, out: &mut Vec<Span>) {
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
        // A name starts after a word's end; after a `/` it is a path's part
        // (`/run/secrets:ro`), not a name.
        let starts = (c.is_ascii_alphabetic() || c == b'_' || c == b'.')
            && (i == 0
                || after_colour
                || !(b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'_' | b'/')));
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
                // A record's name field (`key: s3_secret_key`, `key="Region"`) holds a
                // name: only a random token there is a secret.
                let name_field = crate::bundle::redact::keys::field_is(
                    name.trim_matches('.'),
                    crate::bundle::redact::keys::RECORD_NAMES,
                );
                if is_secret(name.trim_matches('.'), &value)
                    && (!prose || looks_secret(&value))
                    && (!name_field || super::random_token(&value))
                {
                    for (s, e) in found {
                        out.push(span(s, e, "key-value"));
                    }
                }
            }
        }
        i = j.max(i + 1);
    }
}
