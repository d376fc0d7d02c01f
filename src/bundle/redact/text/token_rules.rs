//! The rule set's token shapes, where their keywords stand in the text.

use super::span;
use crate::bundle::redact::keys::{is_placeholder, mixes_classes};
use crate::bundle::redact::rules::rules;
use crate::bundle::redact::Span;

/// The rule set's token shapes.
pub(super) fn token_rules(text: &str, lower: &str, out: &mut Vec<Span>) {
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
