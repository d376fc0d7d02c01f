//! gitleaks' default rule set (`gitleaks/gitleaks.toml`, MIT, version in
//! `gitleaks/source.json`), read as data and applied as gitleaks applies it: a rule runs
//! only on text holding one of its keywords (any case); each match's secret is the rule's
//! `secretGroup`, else its first non-empty group, else the match; a secret whose Shannon
//! entropy is not above the rule's `entropy` is no finding; nor is one the global or the
//! rule's own allowlists allow (regexes against the secret, the match or the line;
//! stopwords; `AND` or `OR`). The patterns are RE2's: `\w`, `\d`, `\s` and `\b` are ASCII
//! there, so they are written as ASCII classes for this regex engine. Rules that judge a
//! file by its path alone (`pkcs12-file`) and the global allowlist's paths (meant for
//! source trees: lock files, images, vendored code) are not used: every file of a bundle
//! is read. Rules listed in `[gitleaks] off` in `secrets.toml` are not used either, each
//! with its reason there. `update.py` beside the data replaces it with a newer release.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::{Regex, RegexBuilder};
use serde::Deserialize;

const CONFIG: &str = include_str!("gitleaks/gitleaks.toml");

#[derive(Deserialize)]
struct File {
    allowlist: AllowData,
    rules: Vec<RuleData>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleData {
    id: String,
    regex: Option<String>,
    #[serde(default)]
    secret_group: usize,
    #[serde(default)]
    entropy: f64,
    #[serde(default)]
    keywords: Vec<String>,
    path: Option<String>,
    #[serde(default)]
    allowlists: Vec<AllowData>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct AllowData {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    regex_target: String,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    condition: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Target {
    Secret,
    Match,
    Line,
}

struct Allow {
    regexes: Vec<Regex>,
    target: Target,
    stopwords: Option<AhoCorasick>,
    paths: Vec<Regex>,
    all: bool,
}

/// One rule, its pattern compiled the first time a text holds one of its keywords.
pub struct Rule {
    pub id: String,
    pattern: Option<String>,
    regex: OnceLock<Option<Regex>>,
    secret_group: usize,
    entropy: f64,
    keywords: Vec<String>,
    path: Option<Regex>,
    allow: Vec<Allow>,
}

pub struct RuleSet {
    pub rules: Vec<Rule>,
    global: Allow,
    /// Every rule's keywords; `by_keyword[i]` the rules keyword `i` belongs to.
    keywords: Option<AhoCorasick>,
    by_keyword: Vec<Vec<usize>>,
    /// Rules with no keyword: run on every text.
    always: Vec<usize>,
}

/// A secret gitleaks' rules find: its bytes in the text and the rule's id.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub rule: String,
}

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

fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(&ascii_classes(pattern))
        .size_limit(64 << 20)
        .dfa_size_limit(16 << 20)
        .build()
        .ok()
}

fn allow(data: &AllowData) -> Allow {
    let stopwords: Vec<String> = data.stopwords.iter().map(|w| w.to_lowercase()).collect();
    Allow {
        regexes: data.regexes.iter().filter_map(|r| compile(r)).collect(),
        target: match data.regex_target.as_str() {
            "match" => Target::Match,
            "line" => Target::Line,
            _ => Target::Secret,
        },
        stopwords: (!stopwords.is_empty())
            .then(|| AhoCorasick::new(&stopwords).ok())
            .flatten(),
        paths: data.paths.iter().filter_map(|r| compile(r)).collect(),
        all: data.condition.eq_ignore_ascii_case("and"),
    }
}

impl Allow {
    /// Whether the finding is allowed (not a secret), as gitleaks' `checkFindingAllowed`.
    fn allows(&self, path: &str, secret: &str, whole: &str, line: &str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => whole,
            Target::Line => line,
        };
        let regex = !target.is_empty() && self.regexes.iter().any(|r| r.is_match(target));
        let stop = self
            .stopwords
            .as_ref()
            .is_some_and(|s| s.is_match(&secret.to_lowercase()));
        if self.all {
            let mut checks = Vec::new();
            if !self.paths.is_empty() {
                checks.push(!path.is_empty() && self.paths.iter().any(|r| r.is_match(path)));
            }
            if !self.regexes.is_empty() {
                checks.push(regex);
            }
            if self.stopwords.is_some() {
                checks.push(stop);
            }
            checks.iter().all(|&c| c)
        } else {
            regex || stop
        }
    }

    /// An `OR` allowlist whose paths match leaves the whole file to the rule.
    fn allows_file(&self, path: &str) -> bool {
        !self.all && !path.is_empty() && self.paths.iter().any(|r| r.is_match(path))
    }
}

/// The rule ids `secrets.toml` turns off.
fn off() -> Vec<String> {
    #[derive(Deserialize)]
    struct Ours {
        gitleaks: Off,
    }
    #[derive(Deserialize)]
    struct Off {
        off: Vec<OffRule>,
    }
    #[derive(Deserialize)]
    struct OffRule {
        id: String,
    }
    toml::from_str::<Ours>(include_str!("secrets.toml"))
        .map(|o| o.gitleaks.off.into_iter().map(|r| r.id).collect())
        .unwrap_or_default()
}

/// The rule set, read once.
pub fn rule_set() -> &'static RuleSet {
    static SET: OnceLock<RuleSet> = OnceLock::new();
    SET.get_or_init(|| {
        let file: File = toml::from_str(CONFIG).unwrap_or(File {
            allowlist: AllowData::default(),
            rules: Vec::new(),
        });
        let off = off();
        let rules: Vec<Rule> = file
            .rules
            .iter()
            .filter(|r| r.regex.is_some() && !off.contains(&r.id))
            .map(|r| Rule {
                id: r.id.clone(),
                pattern: r.regex.clone(),
                regex: OnceLock::new(),
                secret_group: r.secret_group,
                entropy: r.entropy,
                keywords: r.keywords.iter().map(|k| k.to_lowercase()).collect(),
                path: r.path.as_deref().and_then(compile),
                allow: r.allowlists.iter().map(allow).collect(),
            })
            .collect();
        let mut words: Vec<String> = Vec::new();
        let mut by_keyword: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            if r.keywords.is_empty() {
                always.push(i);
            }
            for k in &r.keywords {
                match words.iter().position(|w| w == k) {
                    Some(at) => by_keyword[at].push(i),
                    None => {
                        words.push(k.clone());
                        by_keyword.push(vec![i]);
                    }
                }
            }
        }
        let keywords = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .ok();
        let mut global = allow(&file.allowlist);
        // The global paths describe source trees, not results folders (see above).
        global.paths.clear();
        RuleSet {
            rules,
            global,
            keywords,
            by_keyword,
            always,
        }
    })
}

impl Rule {
    /// The compiled pattern (None if this engine cannot compile it).
    pub fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| self.pattern.as_deref().and_then(compile))
            .as_ref()
    }
}

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

    #[test]
    fn entropy_is_computed_as_gitleaks_does() {
        assert_eq!(shannon(""), 0.0);
        assert_eq!(shannon("aaaa"), 0.0);
        assert!((shannon("ab") - 1.0).abs() < 1e-12);
        // Divided by bytes, counted by characters: "é" is 2 bytes, 1 character.
        assert!((shannon("é") - 0.5).abs() < 1e-12);
    }
}

/// Every rule against the examples gitleaks' authors validate it with
/// (`gitleaks/examples.json`, read from its generator by `update.py`).
#[cfg(test)]
mod examples {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Deserialize)]
    struct Example {
        #[serde(default)]
        path: String,
        text: String,
    }

    #[derive(Deserialize)]
    struct Examples {
        #[serde(rename = "match")]
        hit: Vec<Example>,
        not: Vec<Example>,
    }

    #[test]
    fn every_rule_finds_its_true_positives_and_none_of_its_false_ones() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/bundle/redact/gitleaks/examples.json"
        );
        let text = std::fs::read_to_string(path).expect("examples.json");
        let all: BTreeMap<String, Examples> = serde_json::from_str(&text).expect("examples parse");
        let data: File = toml::from_str(CONFIG).expect("gitleaks.toml parses");
        let patterns = data.rules.iter().flat_map(|r| {
            let own = r
                .allowlists
                .iter()
                .flat_map(|a| a.regexes.iter().chain(&a.paths));
            r.regex.iter().chain(&r.path).chain(own)
        });
        for p in patterns.chain(&data.allowlist.regexes) {
            assert!(compile(p).is_some(), "does not compile here: {p}");
        }
        let set = rule_set();
        assert!(set.rules.len() >= 200, "{} rules", set.rules.len());
        let mut missed = Vec::new();
        let mut wrong = Vec::new();
        let mut without = Vec::new();
        let (mut hits, mut nots) = (0, 0);
        for rule in &set.rules {
            assert!(
                rule.regex().is_some(),
                "{}: the pattern does not compile",
                rule.id
            );
            let Some(ex) = all.get(&rule.id).filter(|e| !e.hit.is_empty()) else {
                without.push(rule.id.clone());
                continue;
            };
            for e in &ex.hit {
                hits += 1;
                if set.find_by(rule, &e.path, &e.text).is_empty() {
                    missed.push(format!("{}: {:?}", rule.id, e.text));
                }
            }
            for e in &ex.not {
                nots += 1;
                let f = set.find_by(rule, &e.path, &e.text);
                if !f.is_empty() {
                    wrong.push(format!("{}: {:?} -> {:?}", rule.id, e.text, f));
                }
            }
        }
        eprintln!(
            "{} rules, {hits} true and {nots} false positives checked; no true positive in the source for: {}",
            set.rules.len(),
            without.join(", ")
        );
        assert!(
            missed.is_empty(),
            "{} missed:\n{}",
            missed.len(),
            missed.join("\n")
        );
        assert!(
            wrong.is_empty(),
            "{} false:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
        assert!(
            without.len() * 20 <= set.rules.len(),
            "too many rules without examples: {without:?}"
        );
    }
}
