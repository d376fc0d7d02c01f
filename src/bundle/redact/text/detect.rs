//! Every detector run over one text: the trigger words that let a text with none of
//! them pass in one scan, the detectors in their order, and a value found once redacted
//! wherever else it stands.

use super::credential_files::kubernetes_secret;
use super::gitleaks_findings::gitleaks_where_ours_did_not;
use super::key_value::key_values;
use super::near_names::near_names;
use super::span;
use super::stems::STEMS;
use super::token_rules::token_rules;
use super::url_credentials::url_credentials;
use super::{no_context, records};
use crate::bundle::redact::rules::rules;
use crate::bundle::redact::Span;

/// Every word any detector starts from: the rules' keywords, the stems of secrets'
/// names, the tools' names, URLs. Text holding none of them holds no secret the
/// detectors could find, and is passed over in one scan.
fn triggers() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        let r = rules();
        let mut words: Vec<String> = STEMS.iter().map(|s| s.to_string()).collect();
        words.extend(r.rules.iter().flat_map(|x| x.keywords.iter().cloned()));
        words.extend(r.tools.iter().flat_map(|t| t.names.iter().cloned()));
        words.extend(["://".to_string(), "machine".to_string()]);
        #[allow(clippy::expect_used)]
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .expect("the trigger words compile")
    })
}

/// Every secret span in a file's `text`, or a value of one (unsorted, possibly
/// overlapping); `name` is its path in the bundle ("" when unknown or a value). gitleaks'
/// rule set runs beside ours.
pub fn spans_of_file(name: &str, text: &str) -> Vec<Span> {
    // A secret coloured by a terminal's control sequences, or split by one, is the same
    // secret: the text is read again without them, and each span found there covers the
    // same characters in the file (with any sequence inside it). What the text as it
    // stands shows is kept too: `\x1b[A` is a whole sequence (cursor up) that would
    // otherwise take the `A` of a key written right after it.
    let mut out = spans_at(Some(name), text, 0);
    if let Some((plain, at)) = without_csi(text) {
        out.extend(
            spans_at(Some(name), &plain, 0)
                .into_iter()
                .filter(|s| s.end > s.start)
                .map(|s| Span {
                    start: at[s.start],
                    end: at[s.end - 1] + 1,
                    rule: s.rule,
                }),
        );
    }
    out
}

/// `text` without its control sequences (CSI: `ESC [`, parameter and intermediate bytes,
/// a final byte, as in `\x1b[1;32m`), and for each byte kept its offset in `text`; `None`
/// when it holds none. A CSI sequence holds only digits and punctuation, never a
/// secret's characters; other escapes (OSC, whose text may hold a URL) are kept.
fn without_csi(text: &str) -> Option<(String, Vec<usize>)> {
    let b = text.as_bytes();
    let first = memchr::memmem::find(b, b"\x1b[")?;
    let mut plain = Vec::with_capacity(b.len());
    let mut at = Vec::with_capacity(b.len());
    plain.extend_from_slice(&b[..first]);
    at.extend(0..first);
    let mut i = first;
    while i < b.len() {
        if b[i] == 0x1b && b.get(i + 1) == Some(&b'[') {
            let mut j = i + 2;
            while j < b.len() && (0x20..=0x3f).contains(&b[j]) {
                j += 1;
            }
            if j < b.len() && (0x40..=0x7e).contains(&b[j]) {
                i = j + 1;
                continue;
            }
        }
        plain.push(b[i]);
        at.push(i);
        i += 1;
    }
    // Only ASCII bytes were left out, so the rest is still UTF-8.
    String::from_utf8(plain).ok().map(|p| (p, at))
}

/// [`spans_of_file`], `depth` levels of base64 down; `file`: the file's name, when
/// gitleaks' rules are to run (None: ours only).
pub(super) fn spans_at(file: Option<&str>, text: &str, depth: usize) -> Vec<Span> {
    let mut out = Vec::new();
    let blocks = no_context::base64_blocks(text, depth);

    if triggers().is_match(text) {
        let lower = text.to_ascii_lowercase();
        token_rules(text, &lower, &mut out);
        key_values(text, &mut out);
        url_credentials(text, &mut out);
        if lower.contains("kind: secret") {
            kubernetes_secret(text, &mut out);
        }
        near_names(text, &mut out);
        records::spans(text, &lower, &mut out);
        super::shell::spans(text, &mut out);
        if lower.contains("send") {
            no_context::expect_answers(text, &mut out);
        }
    }
    if memchr::memmem::find(text.as_bytes(), b"command not found").is_some() {
        no_context::typed_at_prompt(text, &mut out);
    }
    no_context::random_tokens(text, &blocks.kept, &mut out);
    if let Some(name) = file {
        gitleaks_where_ours_did_not(name, text, &mut out);
    }
    // An image or a certificate in base64 is kept whole: nothing inside it is a token.
    out.retain(|s| !blocks.keeps(s.start, s.end));
    out.extend(blocks.secret);
    same_values(text, &mut out);
    out
}

/// A secret found once is redacted wherever else it stands in the text (the password
/// typed at the prompt is also on the prompt's line).
fn same_values(text: &str, out: &mut Vec<Span>) {
    let mut values: Vec<&str> = out
        .iter()
        .map(|s| &text[s.start..s.end])
        .filter(|v| v.len() >= 8 && !v.contains('\n') && !super::keys::is_placeholder(v))
        .collect();
    values.sort_unstable();
    values.dedup();
    if values.is_empty() || values.len() > 10_000 {
        return;
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new(&values) else {
        return;
    };
    for m in ac.find_iter(text) {
        out.push(span(m.start(), m.end(), "same-value"));
    }
}
