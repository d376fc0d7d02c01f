//! Secrets given at a prompt: a password typed at the shell prompt that the shell
//! refused as a command, and what an expect script answered to a password prompt.

use crate::bundle::redact::rules::rules;
use crate::bundle::redact::text::key_value::line_end;
use crate::bundle::redact::text::span;
use crate::bundle::redact::Span;

/// A word typed at the shell prompt that the shell then refused (`-bash: WORD: command
/// not found`, zsh's `command not found: WORD`): when it looks like a password rather
/// than a mistyped command, it was one.
pub(crate) fn typed_at_prompt(text: &str, out: &mut Vec<Span>) {
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
pub(crate) fn expect_answers(text: &str, out: &mut Vec<Span>) {
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
