//! A found secret's span, with the rule that found it.

use crate::bundle::redact::Span;

pub(super) fn span(start: usize, end: usize, rule: &str) -> Span {
    Span {
        start,
        end,
        rule: rule.to_string(),
    }
}
