//! gitleaks' patterns, written in RE2's syntax, made this engine's: RE2's ASCII classes
//! and literal braces spelled out, then compiled within size limits.

use regex::{Regex, RegexBuilder};

/// RE2's ASCII `\w`, `\d`, `\s` and `\b`, written for a Unicode-aware engine.
pub fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut in_class = false;
    let mut chars = pattern.chars().peekable();
    let mut class_start = false;
    while let Some(c) = chars.next() {
        if c == '\\' {
            let Some(e) = chars.next() else {
                out.push(c);
                break;
            };
            let (inside, outside) = match e {
                'w' => ("0-9A-Za-z_", "[0-9A-Za-z_]"),
                'd' => ("0-9", "[0-9]"),
                's' => ("\\t\\n\\f\\r ", "[\\t\\n\\f\\r ]"),
                'b' if !in_class => ("", "(?-u:\\b)"),
                'B' if !in_class => ("", "(?-u:\\B)"),
                _ => {
                    out.push(c);
                    out.push(e);
                    class_start = false;
                    continue;
                }
            };
            out.push_str(if in_class { inside } else { outside });
            class_start = false;
            continue;
        }
        if in_class {
            if c == '[' && chars.peek() == Some(&':') {
                // A POSIX class, `[:alnum:]`, copied whole.
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
                class_start = false;
                continue;
            }
            if c == ']' && !class_start {
                in_class = false;
            }
            let negation = class_start && c == '^';
            out.push(c);
            class_start = negation;
            continue;
        }
        if c == '[' {
            in_class = true;
            class_start = true;
        }
        if c == '{' && !repetition(chars.clone()) {
            // RE2 reads a brace that starts no `{n}`, `{n,}` or `{n,m}` as itself.
            out.push_str("\\{");
            continue;
        }
        out.push(c);
    }
    out
}

/// Whether the text after a `{` is a counted repetition's rest: `n}`, `n,}`, `n,m}`.
fn repetition(mut rest: impl Iterator<Item = char>) -> bool {
    let mut digits = 0;
    let mut comma = false;
    for c in rest.by_ref() {
        match c {
            '0'..='9' => digits += 1,
            ',' if !comma && digits > 0 => comma = true,
            '}' => return digits > 0,
            _ => return false,
        }
    }
    false
}

pub(super) fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(&ascii_classes(pattern))
        .size_limit(64 << 20)
        .dfa_size_limit(16 << 20)
        .build()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn re2_classes_are_ascii_inside_and_outside_brackets() {
        assert_eq!(ascii_classes(r"\w+"), "[0-9A-Za-z_]+");
        assert_eq!(ascii_classes(r"[\w.-]{3}"), "[0-9A-Za-z_.-]{3}");
        assert_eq!(ascii_classes(r"\b(x)\b"), r"(?-u:\b)(x)(?-u:\b)");
        assert_eq!(ascii_classes(r"[^\s]"), r"[^\t\n\f\r ]");
        assert_eq!(ascii_classes(r"[]\d]"), "[]0-9]");
        assert_eq!(ascii_classes(r"[[:alnum:]\d]"), "[[:alnum:]0-9]");
        assert_eq!(ascii_classes(r"\\w"), r"\\w");
        assert_eq!(ascii_classes(r"a{2,}\${{x}}"), r"a{2,}\$\{\{x}}");
        assert!(compile(r#"['"]?\$?{{[^}]+}}"#).is_some());
        let re = compile(r"^\w+$").expect("compiles");
        assert!(re.is_match("abc_9"));
        assert!(!re.is_match("héllo"), "RE2's \\w is ASCII");
    }
}
