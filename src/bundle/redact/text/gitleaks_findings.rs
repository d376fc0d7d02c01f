//! gitleaks' rule set beside ours: its findings but for placeholders and paths, and
//! where its extent or ours decides.

use super::span;
use crate::bundle::redact::keys::is_placeholder;
use crate::bundle::redact::Span;

/// gitleaks' findings beside ours. Where ours found the secrets inside one of its findings,
/// reach to its end and leave no token cut between them, ours decide the extent: they
/// read the syntax (the user of `curl -u user:pw` is a name, the password after it the
/// secret; the lines between two PEM blocks a lazy pattern ran across are evidence).
/// Anywhere else its extent stands, so a token ours caught only part of goes whole.
pub(super) fn gitleaks_where_ours_did_not(name: &str, text: &str, out: &mut Vec<Span>) {
    let mut found = Vec::new();
    gitleaks(name, text, &mut found);
    if found.is_empty() {
        return;
    }
    // Ours as disjoint sorted ranges: each finding's question is a binary search.
    let mut ours: Vec<(usize, usize)> = out.iter().map(|o| (o.start, o.end)).collect();
    ours.sort_unstable();
    let mut joined: Vec<(usize, usize)> = Vec::with_capacity(ours.len());
    for (s, e) in ours {
        match joined.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => joined.push((s, e)),
        }
    }
    for g in found {
        let first = joined.partition_point(|&(_, e)| e <= g.start);
        let inside: Vec<(usize, usize)> = joined[first..]
            .iter()
            .copied()
            .take_while(|&(s, _)| s < g.end)
            .collect();
        // Ours decide when they reach the finding's end and every gap between them holds
        // a blank: then each of ours is a whole value of its own (a key and the lines
        // after it). A gap with no blank is a piece of one token ours cut in two, and the
        // finding takes it.
        let reach = inside.last().is_some_and(|&(_, end)| end >= g.end);
        let gaps_are_blanks = inside.windows(2).all(|w| {
            text[w[0].1..w[1].0]
                .bytes()
                .any(|b| b.is_ascii_whitespace())
        });
        if !(reach && gaps_are_blanks) {
            out.push(g);
        }
    }
}

/// What gitleaks' rules find, but for placeholders (`${VAR}`, `<token>`) and paths to
/// a secret's file, which its allowlists leave to the reader.
pub fn gitleaks(name: &str, text: &str, out: &mut Vec<Span>) {
    for f in super::gitleaks::rule_set().find(name, text) {
        let value = &text[f.start..f.end];
        if is_placeholder(value) || super::keys::is_reference(value) {
            continue;
        }
        out.push(span(f.start, f.end, &f.rule));
    }
}
