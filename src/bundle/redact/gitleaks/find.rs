//! How the rule set finds secrets in a text: the rules its keywords call for, each
//! match's secret, its entropy, and the allowlists read on the line around it.

use super::{Found, Rule, RuleSet};

/// Shannon entropy over characters, as gitleaks computes it (divided by the byte length).
pub fn shannon(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts: std::collections::HashMap<char, usize> = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_default() += 1;
    }
    let inv = 1.0 / s.len() as f64;
    counts
        .values()
        .map(|&n| {
            let f = n as f64 * inv;
            -f * f.log2()
        })
        .sum()
}

/// How far a finding's line reaches either side of the match, at most: the line an
/// allowlist reads is cut there, so one long line costs what many short ones do.
const LINE_REACH: usize = 1024;

/// The line(s) holding bytes `start..end` of `text`, at most [`LINE_REACH`] bytes either
/// side of them (gitleaks reads the whole line; a line of megabytes would make the reading
/// quadratic).
fn lines_around(text: &str, start: usize, end: usize) -> &str {
    let mut lo = start.saturating_sub(LINE_REACH);
    while !text.is_char_boundary(lo) {
        lo += 1;
    }
    let mut hi = (end + LINE_REACH).min(text.len());
    while !text.is_char_boundary(hi) {
        hi -= 1;
    }
    let from = text[lo..start].rfind('\n').map_or(lo, |i| lo + i + 1);
    let to = text[end..hi].find('\n').map_or(hi, |i| end + i);
    &text[from..to]
}

impl RuleSet {
    /// The rules a text may hold a finding of: those with a keyword in it, and those
    /// without keywords.
    fn candidates(&self, text: &str) -> Vec<usize> {
        let mut hit = vec![false; self.rules.len()];
        for &i in &self.always {
            hit[i] = true;
        }
        if let Some(ac) = &self.keywords {
            for m in ac.find_overlapping_iter(text) {
                for &i in &self.by_keyword[m.pattern().as_usize()] {
                    hit[i] = true;
                }
            }
        }
        (0..self.rules.len()).filter(|&i| hit[i]).collect()
    }

    /// Every secret the rules find in `text` (the file `path`, "" when unknown).
    pub fn find(&self, path: &str, text: &str) -> Vec<Found> {
        let mut out = Vec::new();
        for i in self.candidates(text) {
            self.matches(&self.rules[i], path, text, true, &mut out);
        }
        out
    }

    #[cfg(test)]
    /// The secrets one rule alone finds, as gitleaks validates a rule with its examples:
    /// its keywords, pattern, entropy, own allowlists and the global allowlist.
    pub fn find_by(&self, rule: &Rule, path: &str, text: &str) -> Vec<Found> {
        let mut out = Vec::new();
        let lower = text.to_lowercase();
        if rule.keywords.is_empty() || rule.keywords.iter().any(|k| lower.contains(k.as_str())) {
            self.matches(rule, path, text, true, &mut out);
        }
        out
    }

    /// The secrets `rule` finds in a text that holds one of its keywords; `global`:
    /// whether the global allowlist applies.
    fn matches(&self, rule: &Rule, path: &str, text: &str, global: bool, out: &mut Vec<Found>) {
        if rule.allow.iter().any(|a| a.allows_file(path)) {
            return;
        }
        if let Some(p) = &rule.path {
            if !p.is_match(path) {
                return;
            }
        }
        let Some(re) = rule.regex() else {
            return;
        };
        for m in re.find_iter(text) {
            let whole = m.as_str().trim_matches('\n');
            let lead = m.as_str().len() - m.as_str().trim_start_matches('\n').len();
            let at = m.start() + lead;
            if whole.is_empty() {
                continue;
            }
            let (mut s, mut e) = (at, at + whole.len());
            if let Some(c) = re.captures(whole) {
                if c.len() >= 2 {
                    let g = if rule.secret_group > 0 {
                        c.get(rule.secret_group)
                    } else {
                        c.iter().skip(1).flatten().find(|g| !g.as_str().is_empty())
                    };
                    if let Some(g) = g {
                        (s, e) = (at + g.start(), at + g.end());
                    } else if rule.secret_group > 0 {
                        continue;
                    }
                }
            }
            let secret = &text[s..e];
            if rule.entropy != 0.0 && shannon(secret) <= rule.entropy {
                continue;
            }
            let line = lines_around(text, at, at + whole.len());
            if global && self.global.allows(path, secret, whole, line) {
                continue;
            }
            if rule
                .allow
                .iter()
                .any(|a| a.allows(path, secret, whole, line))
            {
                continue;
            }
            out.push(Found {
                start: s,
                end: e,
                rule: format!("gitleaks:{}", rule.id),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_is_computed_as_gitleaks_does() {
        assert_eq!(shannon(""), 0.0);
        assert_eq!(shannon("aaaa"), 0.0);
        assert!((shannon("ab") - 1.0).abs() < 1e-12);
        // Divided by bytes, counted by characters: "é" is 2 bytes, 1 character.
        assert!((shannon("é") - 0.5).abs() < 1e-12);
    }
}
