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
use regex::Regex;
use serde::Deserialize;

mod allowlist;
mod find;
mod pattern;

pub use find::shannon;
pub use pattern::ascii_classes;

use allowlist::{allow, Allow};
use pattern::compile;

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

/// Every rule against the examples gitleaks' authors validate it with
/// (`gitleaks/examples.json`, read from its generator by `update.py`).
#[cfg(test)]
mod examples;
