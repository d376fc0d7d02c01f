//! Secrets out of text before it leaves the machine: tokens, keys and passwords in
//! compose files, environment dumps and logs; credentials in URLs; Authorization headers.
//! Optional consistent pseudonyms for host names and IPv4 addresses.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

pub const MARK: &str = "[REDACTED]";

struct Rules {
    key_value: Regex,
    auth: Regex,
    url_creds: Regex,
    raw_tokens: Regex,
    flags: Regex,
}

fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| Rules {
        // NAME=value, NAME: value, "name": "value" for names that hold secrets. `token`
        // must end the name (HF_TOKEN, token) so counts like prompt_tokens stay.
        key_value: Regex::new(
            r#"(?P<k>\b(?:[A-Z0-9_]*TOKEN|[a-z0-9_]*_token|token|[A-Za-z0-9_]*(?:API_KEY|api_key|ApiKey|apikey|APIKEY|SECRET|secret|Secret|PASSWORD|password|Password|PASSWD|passwd)[A-Za-z0-9_]*)\b)(?P<q1>["']?)(?P<sep>[ \t]*[:=][ \t]*)(?P<q2>["']?)(?P<v>[^\s"',}\]]+)"#,
        )
        .expect("valid regex"),
        auth: Regex::new(r"(?i)(?P<k>\b(?:proxy-)?authorization[ \t]*:[ \t]*)(?P<v>[^\r\n'\x22]+)")
            .expect("valid regex"),
        url_creds: Regex::new(r"(?P<s>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<u>[^/\s:@]+):(?P<p>[^/\s@]+)@")
            .expect("valid regex"),
        raw_tokens: Regex::new(r"\b(?:hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{20,}|xox[bp]-[A-Za-z0-9-]{10,})\b")
            .expect("valid regex"),
        flags: Regex::new(r"(?P<f>--(?:api-key|hf-token|token|password)[ =])(?P<v>\S+)").expect("valid regex"),
    })
}

/// Replaces every secret in `text`; returns the text and how many were replaced.
pub fn redact(text: &str) -> (String, usize) {
    let r = rules();
    let mut count = 0;
    let mut out = r
        .key_value
        .replace_all(text, |c: &regex::Captures| {
            if c["v"].starts_with("[REDACTED") {
                return c[0].to_string();
            }
            count += 1;
            format!("{}{}{}{}{MARK}", &c["k"], &c["q1"], &c["sep"], &c["q2"])
        })
        .into_owned();
    out = r
        .auth
        .replace_all(&out, |c: &regex::Captures| {
            count += 1;
            format!("{}{MARK}", &c["k"])
        })
        .into_owned();
    out = r
        .url_creds
        .replace_all(&out, |c: &regex::Captures| {
            count += 1;
            format!("{}{MARK}@", &c["s"])
        })
        .into_owned();
    out = r
        .flags
        .replace_all(&out, |c: &regex::Captures| {
            if c["v"].starts_with("[REDACTED") {
                return c[0].to_string();
            }
            count += 1;
            format!("{}{MARK}", &c["f"])
        })
        .into_owned();
    out = r
        .raw_tokens
        .replace_all(&out, |_: &regex::Captures| {
            count += 1;
            MARK.to_string()
        })
        .into_owned();
    (out, count)
}

/// Consistent pseudonyms: the same host or address always gets the same name.
#[derive(Debug, Default, Clone)]
pub struct Pseudonyms {
    pub map: BTreeMap<String, String>,
    hosts: Vec<String>,
}

fn ipv4() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b")
            .expect("valid regex")
    })
}

impl Pseudonyms {
    /// Host names to replace, besides every IPv4 address.
    pub fn with_hosts(hosts: impl IntoIterator<Item = String>) -> Self {
        let mut hosts: Vec<String> = hosts.into_iter().filter(|h| h.len() >= 2).collect();
        // Longest first, so `gpu01.lab` is replaced before `gpu01`.
        hosts.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        hosts.dedup();
        Pseudonyms {
            map: BTreeMap::new(),
            hosts,
        }
    }

    fn name_for(&mut self, original: &str, prefix: &str) -> String {
        if let Some(n) = self.map.get(original) {
            return n.clone();
        }
        let n = self.map.values().filter(|v| v.starts_with(prefix)).count() + 1;
        let name = format!("{prefix}{n}");
        self.map.insert(original.to_string(), name.clone());
        name
    }

    pub fn apply(&mut self, text: &str) -> String {
        let mut out = text.to_string();
        for h in self.hosts.clone() {
            if out.contains(&h) {
                let name = self.name_for(&h, "host-");
                out = out.replace(&h, &name);
            }
        }
        let found: Vec<String> = ipv4()
            .find_iter(&out)
            .map(|m| m.as_str().to_string())
            .collect();
        for ip in found {
            if ip == "127.0.0.1" || ip == "0.0.0.0" {
                continue;
            }
            let name = self.name_for(&ip, "ip-");
            out = out.replace(&ip, &name);
        }
        out
    }
}

/// Host names mentioned where the tools name their host: iostat banners `(host)`,
/// URLs, and `hostname`/`host` lines.
pub fn find_hosts(text: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?m)^Linux \S+ \((?P<a>[A-Za-z0-9._-]+)\)|://(?P<b>[A-Za-z][A-Za-z0-9.-]*[A-Za-z0-9])[:/]|\b(?:hostname|host)[ \t]*[:=][ \t]*(?P<c>[A-Za-z][A-Za-z0-9.-]+)")
            .expect("valid regex")
    });
    let mut out = Vec::new();
    for c in re.captures_iter(text) {
        for g in ["a", "b", "c"] {
            if let Some(m) = c.name(g) {
                let h = m.as_str();
                if h != "localhost" && !out.iter().any(|x| x == h) {
                    out.push(h.to_string());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_tokens_keys_passwords_headers_and_url_credentials() {
        let text = "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123\n\
            environment:\n  OPENAI_API_KEY: sk-secretsecretsecretsecret\n  DB_PASSWORD: \"hunter2\"\n\
            curl -H 'Authorization: Bearer abc.def' https://user:pa55@registry.example/x\n\
            {\"token\": \"t0k\", \"prompt_tokens\": 196531, \"max_tokens\": 1}\n\
            vllm serve --api-key s3cret\n";
        let (out, n) = redact(text);
        for secret in [
            "hf_abcdefghijklmnopqrstuvwxyz123",
            "sk-secret",
            "hunter2",
            "abc.def",
            "pa55",
            "t0k",
            "s3cret",
        ] {
            assert!(!out.contains(secret), "{secret} left in:\n{out}");
        }
        assert!(
            out.contains("\"prompt_tokens\": 196531"),
            "counts stay: {out}"
        );
        assert!(out.contains("\"max_tokens\": 1"));
        assert!(out.contains("HF_TOKEN=[REDACTED]"));
        assert!(out.contains("https://[REDACTED]@registry.example/x"));
        assert!(n >= 7, "{n}");
        assert_eq!(redact(&out).0, out, "redacting twice changes nothing");
    }

    #[test]
    fn pseudonyms_are_consistent() {
        let mut p = Pseudonyms::with_hosts(vec!["gpu01".into()]);
        let a = p.apply("gpu01 at 10.1.2.3 talks to 10.1.2.4 and 10.1.2.3; local 127.0.0.1");
        assert_eq!(a, "host-1 at ip-1 talks to ip-2 and ip-1; local 127.0.0.1");
        assert_eq!(p.apply("again 10.1.2.4"), "again ip-2");
        assert_eq!(p.map["10.1.2.3"], "ip-1");
    }

    #[test]
    fn finds_host_names() {
        let h = find_hosts(
            "Linux 6.8.0 (gpu-node7) \t11/30/26\nURL=http://storage01:8000/v1\nhostname: edge3\n",
        );
        assert_eq!(h, ["gpu-node7", "storage01", "edge3"]);
    }
}
