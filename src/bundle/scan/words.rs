//! What the check looks for, read on its own from the rule set's data (`secrets.toml`):
//! token prefixes, secret query parameters, words that name a secret, tools' secret flags.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

/// What the check looks for, read from the rule set's data on its own.
pub(super) struct Words {
    /// Token prefixes with a non-letter in them (`ghp_`, `sk-`, `dhhc-1:`), lowercase.
    pub(super) prefixes: Vec<String>,
    /// Query parameters whose value is a secret (`x-amz-signature`, `sig`), lowercase,
    /// each with `=`: a rule that lists them has keywords that name parameters, not the
    /// start of a token, and its other parameters hold nothing secret.
    pub(super) params: Vec<String>,
    /// Words that name a secret (`password`, `token`, `secret`, ...), lowercase.
    pub(super) names: Vec<String>,
    /// (tool names, the flags of theirs whose value is a secret).
    pub(super) tools: Vec<(Vec<String>, Vec<String>)>,
    /// (tool names, the flags that make it read a secret from its standard input; an
    /// empty flag: always), as in `echo PW | sudo -S`.
    pub(super) stdin: Vec<(Vec<String>, Vec<String>)>,
    /// The prefixes and the names, each found in one pass over a line.
    pub(super) find_prefixes: Option<AhoCorasick>,
    pub(super) find_params: Option<AhoCorasick>,
    pub(super) find_names: Option<AhoCorasick>,
    /// Every tool's name: a line naming none needs no word-by-word look.
    pub(super) find_tools: Option<AhoCorasick>,
}

pub(super) fn words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| {
        let data: toml::Value = include_str!("../redact/secrets.toml")
            .parse::<toml::Table>()
            .map(toml::Value::Table)
            .unwrap_or(toml::Value::Boolean(false));
        let names = key_names(&data);
        let (params, prefixes) = rule_words(&data);
        let (tools, stdin) = tool_flags(&data);
        let tool_names: Vec<&String> = tools
            .iter()
            .chain(stdin.iter())
            .flat_map(|(n, _): &(Vec<String>, Vec<String>)| n.iter())
            .collect();
        Words {
            find_params: AhoCorasick::new(&params).ok(),
            params,
            find_tools: AhoCorasick::new(&tool_names).ok(),
            find_prefixes: AhoCorasick::new(&prefixes).ok(),
            find_names: AhoCorasick::new(&names).ok(),
            prefixes,
            names,
            tools,
            stdin,
        }
    })
}

/// A list of words from the rule file, lower case.
fn list(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_ascii_lowercase))
        .collect()
}

/// The key names that say a value is a secret.
fn key_names(data: &toml::Value) -> Vec<String> {
    let keys = data.get("keys");
    let mut names = list(keys.and_then(|k| k.get("strong")));
    // `token` alone, and the pairs written every way (`api_key`, `api-key`, `apikey`):
    // `key` and `pass` alone name too much to stop a bundle on.
    names.push("token".into());
    names.push("cookie".into());
    for pair in keys
        .and_then(|k| k.get("pairs"))
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
    {
        let p = list(Some(pair));
        if let [a, b] = p.as_slice() {
            for sep in ["_", "-", ""] {
                names.push(format!("{a}{sep}{b}"));
            }
        }
    }
    names.retain(|n| n.len() >= 3);
    names.sort();
    names.dedup();
    names
}

/// The rules' URL parameters (`X-Amz-Signature=`) and the prefixes of their keywords.
fn rule_words(data: &toml::Value) -> (Vec<String>, Vec<String>) {
    let rules = || {
        data.get("rule")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
    };
    let mut params: Vec<String> = rules()
        .flat_map(|r| list(r.get("params")))
        .map(|p| format!("{p}="))
        .collect();
    params.sort();
    params.dedup();
    let mut prefixes: Vec<String> = rules()
        .filter(|r| list(r.get("params")).is_empty())
        .flat_map(|r| list(r.get("keywords")))
        .filter(|k| k.len() >= 3 && k.bytes().any(|c| !c.is_ascii_alphabetic()) && !k.contains(' '))
        .collect();
    prefixes.sort();
    prefixes.dedup();
    (params, prefixes)
}

/// Per tool: its names, and some of its flags.
type ToolFlags = Vec<(Vec<String>, Vec<String>)>;

/// Each tool's names with the flags that carry a secret, and with the flags that read one
/// from standard input (tools without such flags left out).
fn tool_flags(data: &toml::Value) -> (ToolFlags, ToolFlags) {
    let tools: ToolFlags = data
        .get("tool")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let raw = |k: &str| -> Vec<String> {
                t.get(k)
                    .and_then(toml::Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            };
            let mut flags = raw("value");
            flags.extend(raw("attached"));
            flags.extend(raw("userpass"));
            flags.retain(|f| !f.is_empty());
            (raw("names"), flags)
        })
        .collect();
    let stdin: ToolFlags = data
        .get("tool")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| (list(t.get("names")), list(t.get("stdin"))))
        .filter(|(_, flags)| !flags.is_empty())
        .collect();
    (tools, stdin)
}
