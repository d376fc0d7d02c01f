//! Secrets out of text before it leaves the machine. The detectors are data
//! (`secrets.toml`): structural rules for `KEY=VALUE` in every syntax, flags, URL userinfo
//! and PEM blocks, and the token shapes of the common providers. The same detectors
//! redact a file and then check the result, so what one misses the other reports.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

pub const MARK: &str = "[REDACTED]";

const RULES_TOML: &str = include_str!("secrets.toml");

#[derive(Deserialize)]
struct RulesFile {
    secret_words: Vec<String>,
    last_words: Vec<String>,
    secret_pairs: Vec<[String; 2]>,
    setting_words: Vec<String>,
    rule: Vec<RuleData>,
}

#[derive(Deserialize)]
struct RuleData {
    id: String,
    #[allow(dead_code)]
    description: String,
    keywords: Vec<String>,
    regex: String,
    #[serde(default)]
    key: bool,
}

struct Rule {
    id: String,
    keywords: Vec<String>,
    regex: Regex,
    key: bool,
}

pub struct Rules {
    rules: Vec<Rule>,
    secret_words: Vec<String>,
    last_words: Vec<String>,
    secret_pairs: Vec<[String; 2]>,
    setting_words: Vec<String>,
}

/// The embedded rules, compiled once. They are tested; a broken file is a build defect.
pub fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| {
        #[allow(clippy::expect_used)]
        let data: RulesFile = toml::from_str(RULES_TOML).expect("secrets.toml parses");
        Rules {
            rules: data
                .rule
                .into_iter()
                .map(|r| Rule {
                    #[allow(clippy::expect_used)]
                    regex: Regex::new(&r.regex).expect("secrets.toml regexes compile"),
                    id: r.id,
                    keywords: r.keywords,
                    key: r.key,
                })
                .collect(),
            secret_words: data.secret_words,
            last_words: data.last_words,
            secret_pairs: data.secret_pairs,
            setting_words: data.setting_words,
        }
    })
}

/// One secret found: its byte range in the text, the rule, and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub start: usize,
    pub end: usize,
    pub rule: String,
    pub line: usize,
}

/// `HF_TOKEN` -> [hf, token]; `xApiKey` -> [x, api, key]; `Proxy-Authorization` ->
/// [proxy, authorization].
fn words(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if c == '_' || c == '-' || c == '.' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl Rules {
    /// Whether a key names a secret (see `secrets.toml`).
    pub fn is_secret_key(&self, key: &str) -> bool {
        let w = words(key);
        let Some(last) = w.last() else {
            return false;
        };
        if self.setting_words.contains(last) {
            return false;
        }
        w.iter().any(|x| self.secret_words.contains(x))
            || self.last_words.contains(last)
            || w.windows(2).any(|p| {
                self.secret_pairs
                    .iter()
                    .any(|s| s[0] == p[0] && s[1] == p[1])
            })
    }
}

/// Values that hold no secret: empty, `None`, `null`, `${VAR}`, `$VAR`, `<placeholder>`,
/// `****`, booleans, and what was already redacted.
pub fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    let v = v
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
        .unwrap_or(v)
        .trim();
    let lower = v.to_ascii_lowercase();
    v.is_empty()
        || matches!(
            lower.as_str(),
            "none" | "null" | "nil" | "~" | "true" | "false" | "undefined" | "-"
        )
        || v.starts_with("[REDACTED")
        || (v.starts_with("${") && v.ends_with('}'))
        || (v.starts_with('$')
            && v[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'))
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('%') && v.ends_with('%') && v.len() > 2)
        || v.chars().all(|c| c == '*' || c == 'x' || c == 'X')
}

fn line_of(text: &str, at: usize) -> usize {
    1 + text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Where an unquoted `KEY: value` ends: at the end of the line, or at the
/// quote that opened the key (`-H 'Authorization: Bearer x'`).
fn line_end(text: &str, from: usize, quote: &str) -> usize {
    let rest = &text[from..];
    let mut end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    if let Some(q) = quote.chars().next() {
        if let Some(i) = rest[..end].find(q) {
            end = i;
        }
    }
    from + rest[..end].trim_end().len()
}

/// Every secret in `text`, by the embedded rules, sorted and without overlaps.
pub fn find(text: &str) -> Vec<Finding> {
    let r = rules();
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<Finding> = Vec::new();
    for rule in &r.rules {
        if !rule.keywords.is_empty() && !rule.keywords.iter().any(|k| lower.contains(k.as_str())) {
            continue;
        }
        let mut at = 0;
        while at <= text.len() {
            let Some(c) = rule.regex.captures_at(text, at) else {
                break;
            };
            let whole = c.get(0).map_or(at..at + 1, |m| m.range());
            if !rule.key {
                let m = c.name("secret").map_or(whole.clone(), |m| m.range());
                if !is_placeholder(&text[m.clone()]) {
                    found.push(Finding {
                        start: m.start,
                        end: m.end,
                        rule: rule.id.clone(),
                        line: line_of(text, m.start),
                    });
                }
                at = whole.end.max(at + 1);
                continue;
            }
            let (Some(key), Some(value)) = (c.name("key"), c.name("value")) else {
                at = whole.end.max(at + 1);
                continue;
            };
            if !r.is_secret_key(key.as_str()) {
                // Not a secret: look again from just after the key, so a secret pair
                // inside this value is still found.
                at = key.end().max(at + 1);
                continue;
            }
            let mut range = value.range();
            // `KEY: several words` (YAML, HTTP headers) runs to the end of the line, or to
            // the quote that opened the key (`-H 'Authorization: Bearer x'`).
            let unquoted = !value.as_str().starts_with(['"', '\'']);
            let colon = c.name("sep").is_some_and(|s| s.as_str() == ":");
            if unquoted && colon {
                let quote = c.name("q").map_or("", |q| q.as_str());
                range.end = line_end(text, range.start, quote).max(range.end);
            }
            // `--token --next-flag`: the next flag is not the value.
            let next_flag = value.as_str().starts_with("--");
            if !next_flag && !is_placeholder(&text[range.clone()]) {
                found.push(Finding {
                    start: range.start,
                    end: range.end,
                    rule: rule.id.clone(),
                    line: line_of(text, range.start),
                });
            }
            at = range.end.max(at + 1);
        }
    }
    // Overlapping findings become one.
    found.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut merged: Vec<Finding> = Vec::new();
    for f in found {
        match merged.last_mut() {
            Some(last) if f.start < last.end => last.end = last.end.max(f.end),
            _ => merged.push(f),
        }
    }
    merged
}

/// Replaces every secret in `text`; returns the text and how many were replaced.
pub fn redact(text: &str) -> (String, usize) {
    let found = find(text);
    if found.is_empty() {
        return (text.to_string(), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in &found {
        out.push_str(&text[at..f.start]);
        out.push_str(MARK);
        at = f.end;
    }
    out.push_str(&text[at..]);
    (out, found.len())
}

/// A finding as it may be shown: the rule, the line, and the value masked.
pub fn masked(text: &str, f: &Finding) -> String {
    let value = &text[f.start..f.end];
    let head: String = value.chars().take(3).collect();
    format!(
        "line {}: {} ({head}… {} characters)",
        f.line,
        f.rule,
        value.chars().count()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gone(text: &str, secrets: &[&str]) -> String {
        let (out, _) = redact(text);
        for s in secrets {
            assert!(!out.contains(s), "`{s}` left in:\n{out}");
        }
        assert!(
            find(&out).is_empty(),
            "the check finds nothing after redaction: {out}"
        );
        out
    }

    #[test]
    fn splits_keys_into_words() {
        assert_eq!(words("HF_TOKEN"), ["hf", "token"]);
        assert_eq!(words("xApiKey"), ["x", "api", "key"]);
        assert_eq!(words("Proxy-Authorization"), ["proxy", "authorization"]);
        let r = rules();
        for k in [
            "HF_TOKEN",
            "api_key",
            "ApiKey",
            "x-api-key",
            "DB_PASSWORD",
            "accessToken",
            "AccountKey",
            "client_secret",
            "session",
            "Cookie",
            "private_key_id",
            "pass",
        ] {
            assert!(r.is_secret_key(k), "{k}");
        }
        for k in [
            "prompt_tokens",
            "max_tokens",
            "token_count",
            "cached_tokens",
            "author",
            "bypass",
            "compass",
            "auth_type",
            "session_timeout",
            "model",
        ] {
            assert!(!r.is_secret_key(k), "{k}");
        }
    }

    #[test]
    fn every_key_value_syntax_whatever_the_value() {
        let out = gone(
            "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz1234567\n\
             environment:\n  OPENAI_API_KEY: not-a-known-shape\n  DB_PASSWORD: \"correct horse battery staple\"\n\
             {\"token\": \"t0k\", \"prompt_tokens\": 196531, \"max_tokens\": 1}\n\
             vllm serve --api-key s3cret --served-model-name glm\n\
             vllm serve --hf-token=abc123\n\
             args: ['--api-key', 'k1', \"--password\", \"p 2\"]\n\
             Namespace(api_key='zz9', header=None)\n\
             yaml_pass: multi word value here\n",
            &["hf_abc", "not-a-known-shape", "correct horse", "t0k", "s3cret", "abc123", "k1", "p 2", "zz9", "multi word value"],
        );
        assert!(out.contains("\"prompt_tokens\": 196531"), "{out}");
        assert!(out.contains("--served-model-name glm"), "{out}");
        assert!(out.contains("header=None"), "{out}");
    }

    #[test]
    fn placeholders_are_not_secrets_and_are_not_counted() {
        let text = "api_key=None\nTOKEN=\npassword: ${DB_PASSWORD}\nAPI_KEY=$KEY\nsecret: null\nauth: true\n";
        let (out, n) = redact(text);
        assert_eq!(n, 0, "{out}");
        assert_eq!(out, text);
    }

    #[test]
    fn headers_in_any_syntax() {
        gone(
            "curl -H 'Authorization: Bearer abc.def-ghi' https://x/v1\n\
             {\"Authorization\": \"Basic dXNlcjpwYXNz\"}\n\
             Proxy-Authorization: Basic cHJveHk6cHc=\n\
             X-Api-Key: key-with-dashes\n\
             headers:\n  authorization: Token tok_123456\n\
             Cookie: sid=abc; other=def\n",
            &[
                "abc.def-ghi",
                "dXNlcjpwYXNz",
                "cHJveHk6cHc=",
                "key-with-dashes",
                "tok_123456",
                "sid=abc",
            ],
        );
        let (out, _) = redact("curl -H 'Authorization: Bearer abc' https://host/x\n");
        assert!(
            out.contains("https://host/x"),
            "the URL after the header stays: {out}"
        );
    }

    #[test]
    fn url_credentials_including_at_signs_in_passwords() {
        let out = gone(
            "https://user:pa55@registry.example/x redis://:only-pw@cache:6379 postgres://u:p@ss@db/x\n",
            &["pa55", "only-pw", "p@ss"],
        );
        assert!(out.contains("@registry.example/x"), "{out}");
        assert!(out.contains("@db/x"), "{out}");
    }

    #[test]
    fn pem_blocks_whole_and_token_shapes() {
        let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nline2\n-----END OPENSSH PRIVATE KEY-----\n";
        let out = gone(pem, &["b3BlbnNz", "line2", "BEGIN OPENSSH"]);
        assert_eq!(out, format!("{MARK}\n"));
        gone(
            "ghp_0123456789abcdefghijABCDEFGHIJ012345 gho_0123456789abcdefghijABCDEFGHIJ012345 \
             github_pat_11ABCDEFG0123456789_abcdefghij xoxb-123456789012-abcdefghij \
             AKIAIOSFODNN7EXAMPLE sk-ant-api03-abcdefghijklmnopqrstuvwx sk-proj-abcdefghijklmnopqrstuvwxyz \
             eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c\n\
             aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n\
             DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc+def/ghi==;EndpointSuffix=core\n\
             Endpoint=sb://x/;SharedAccessKeyName=n;SharedAccessKey=s3cr3t+/=\n\
             {\"type\": \"service_account\", \"private_key_id\": \"abc123\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n\"}\n",
            &["ghp_0123", "gho_0123", "github_pat_11", "xoxb-1234", "AKIAIOSFODNN7EXAMPLE", "sk-ant-api03", "sk-proj-abc", "eyJhbGci", "wJalrXUtnFEMI", "abc+def", "s3cr3t", "abc123", "MIIE"],
        );
    }

    #[test]
    fn the_project_s_own_files_lose_nothing() {
        // Counts named like secrets' neighbours, and real result lines, stay as they are.
        for text in [
            "INFO non-default args: {'model': '/models/GLM-5.3-FP8', 'enable_prompt_tokens_details': True, 'max_num_batched_tokens': 8192}\n",
            "time 2.118532 s  {\"prompt_tokens\":196531,\"cached\":196480}\n",
            "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"glm-5.3\"} 60032.0\n",
            "Namespace(input_file='level.json', api_key=None, header=None, num_clients=8, no_early_stop=True)\n",
            "\"global options\" : { \"buffer_compress_percentage\" : \"67\", \"filename\" : \"/dev/md126\" }\n",
        ] {
            let (out, n) = redact(text);
            assert_eq!((out.as_str(), n), (text, 0));
        }
    }

    #[test]
    fn redacting_twice_changes_nothing_and_masks_in_messages() {
        let text = "PASSWORD=hunter2\n";
        let (once, n) = redact(text);
        assert_eq!(n, 1);
        assert_eq!(redact(&once), (once.clone(), 0));
        let f = &find(text)[0];
        let m = masked(text, f);
        assert!(m.contains("line 1") && !m.contains("hunter2"), "{m}");
    }
}
