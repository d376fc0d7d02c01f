//! The rule set (`secrets.toml`), compiled once: the key vocabulary, the tools' secret
//! flags, and the token shapes with the examples each must and must not match.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

const RULES_TOML: &str = include_str!("secrets.toml");

#[derive(Deserialize)]
struct File {
    keys: Keys,
    placeholders: Vec<String>,
    prompts: Vec<String>,
    tool: Vec<Tool>,
    rule: Vec<RuleData>,
}

/// Which names of settings hold secrets.
#[derive(Deserialize)]
pub struct Keys {
    pub strong: Vec<String>,
    pub weak: Vec<String>,
    pub pairs: Vec<[String; 2]>,
    pub last: Vec<String>,
    pub not_before_last: Vec<String>,
    pub settings: Vec<String>,
}

/// A program and the flags of it that carry a secret.
#[derive(Deserialize, Debug)]
pub struct Tool {
    pub names: Vec<String>,
    /// The flags count only after one of these subcommand words.
    #[serde(default)]
    pub sub: Vec<String>,
    #[serde(default)]
    pub value: Vec<String>,
    #[serde(default)]
    pub attached: Vec<String>,
    #[serde(default)]
    pub userpass: Vec<String>,
    /// (subcommand words, 1-based position of the secret after them).
    #[serde(default)]
    pub positional: Vec<[String; 2]>,
    #[serde(default)]
    pub stdin: Vec<String>,
    /// (the flag naming a setting, the flag giving its value): the value is a secret when
    /// the name names one (`iscsiadm -n node.session.auth.password -v VALUE`).
    #[serde(default)]
    pub named: Vec<[String; 2]>,
    /// The tool's names and subcommand words match in any case (PowerShell, redis).
    #[serde(default)]
    pub nocase: bool,
    /// Options are long words after one dash (`openssl -keyout`): a short flag's value is
    /// never attached to it.
    #[serde(default)]
    pub single_dash_words: bool,
    /// The tool counts only on a line holding one of these (lowercase): `AUTH` is redis's
    /// only at a redis prompt.
    #[serde(default)]
    pub context: Vec<String>,
}

#[derive(Deserialize)]
struct RuleData {
    id: String,
    #[allow(dead_code)]
    description: String,
    keywords: Vec<String>,
    regex: String,
    #[serde(default)]
    mixed: bool,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    not: Vec<String>,
    #[serde(default)]
    params: Vec<String>,
}

/// A token shape.
pub struct Rule {
    pub id: String,
    /// Lowercase; the regex runs only on text holding one of them.
    pub keywords: Vec<String>,
    pub regex: Regex,
    /// The match must mix character classes (a word is not a credential).
    pub mixed: bool,
    pub examples: Vec<String>,
    pub not: Vec<String>,
    /// For a rule whose keywords name query parameters: the parameters whose value is
    /// the secret (the others are not).
    pub params: Vec<String>,
}

pub struct Rules {
    pub keys: Keys,
    pub placeholders: Vec<String>,
    /// Words of a prompt that asks for a secret (what an expect script answers).
    pub prompts: Vec<String>,
    pub tools: Vec<Tool>,
    pub rules: Vec<Rule>,
}

/// The embedded rules, compiled once. They are tested; a broken file is a build defect.
pub fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| {
        #[allow(clippy::expect_used)]
        let data: File = toml::from_str(RULES_TOML).expect("secrets.toml parses");
        Rules {
            keys: data.keys,
            placeholders: data.placeholders,
            prompts: data.prompts,
            tools: data.tool,
            rules: data
                .rule
                .into_iter()
                .map(|r| Rule {
                    #[allow(clippy::expect_used)]
                    regex: Regex::new(&r.regex).expect("secrets.toml regexes compile"),
                    id: r.id,
                    keywords: r.keywords,
                    mixed: r.mixed,
                    examples: r.examples,
                    not: r.not,
                    params: r.params,
                })
                .collect(),
        }
    })
}

impl Rules {
    /// The tool named by a command word (its file name: `/usr/bin/curl` is `curl`).
    pub fn tool(&self, word: &str) -> Option<&Tool> {
        let name = word.rsplit('/').next().unwrap_or(word);
        self.tools.iter().find(|t| {
            t.names
                .iter()
                .any(|n| n == name || (t.nocase && n.eq_ignore_ascii_case(name)))
        })
    }

    /// Every word the key vocabulary and the tools name, lowercase: what the independent
    /// check looks for near a value.
    pub fn keywords(&self) -> Vec<String> {
        let k = &self.keys;
        let mut out: Vec<String> = k
            .strong
            .iter()
            .chain(&k.weak)
            .chain(&k.last)
            .cloned()
            .collect();
        out.extend(self.rules.iter().flat_map(|r| r.keywords.iter().cloned()));
        out.sort();
        out.dedup();
        out
    }
}
