//! Consistent pseudonyms for host names and IPv4 addresses: whole tokens only (`10.0.0.1`
//! never rewrites the start of `10.0.0.12`), the same value the same name in every file,
//! the mapping kept apart from the bundle.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

#[derive(Debug, Default, Clone)]
pub struct Pseudonyms {
    /// Original value -> pseudonym, for the mapping file.
    pub map: BTreeMap<String, String>,
    hosts: Option<Regex>,
}

fn ipv4() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    #[allow(clippy::expect_used)]
    RE.get_or_init(|| Regex::new(r"\d{1,3}(?:\.\d{1,3}){3}").expect("valid regex"))
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Whether `text[start..end]` stands alone: no name character touches it, and no dot
/// joins it to more of a name or address.
fn whole(text: &str, start: usize, end: usize, digits_only: bool) -> bool {
    let before = text[..start].chars().next_back();
    let mut after = text[end..].chars();
    let next = after.next();
    let next2 = after.next();
    let joins = |c: Option<char>| {
        c.is_some_and(|c| {
            if digits_only {
                c.is_ascii_digit()
            } else {
                name_char(c)
            }
        })
    };
    let touches = joins(before) || before == Some('.') || joins(next);
    let dotted = next == Some('.') && joins(next2);
    !(touches || dotted)
}

fn valid_ip(s: &str) -> bool {
    s.split('.')
        .all(|o| o.parse::<u16>().is_ok_and(|n| n <= 255))
}

impl Pseudonyms {
    /// Host names to replace, besides every IPv4 address.
    pub fn with_hosts(hosts: impl IntoIterator<Item = String>) -> Self {
        let mut hosts: Vec<String> = hosts
            .into_iter()
            .filter(|h| h.len() >= 2 && !h.eq_ignore_ascii_case("localhost"))
            .collect();
        // Longest first, so `gpu01.lab` is taken before `gpu01`.
        hosts.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        hosts.dedup();
        let alternation = hosts
            .iter()
            .map(|h| regex::escape(h))
            .collect::<Vec<_>>()
            .join("|");
        Pseudonyms {
            map: BTreeMap::new(),
            hosts: (!hosts.is_empty())
                .then(|| Regex::new(&alternation).ok())
                .flatten(),
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

    /// Every whole host name and IPv4 address in `text`, replaced.
    pub fn apply(&mut self, text: &str) -> String {
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        if let Some(re) = self.hosts.clone() {
            for m in re.find_iter(text) {
                if whole(text, m.start(), m.end(), false) {
                    let name = self.name_for(m.as_str(), "host-");
                    spans.push((m.start(), m.end(), name));
                }
            }
        }
        for m in ipv4().find_iter(text) {
            let ip = m.as_str();
            if !valid_ip(ip) || !whole(text, m.start(), m.end(), true) {
                continue;
            }
            if ip == "127.0.0.1" || ip == "0.0.0.0" || ip == "255.255.255.255" {
                continue;
            }
            if spans.iter().any(|(s, e, _)| m.start() < *e && *s < m.end()) {
                continue;
            }
            let name = self.name_for(ip, "ip-");
            spans.push((m.start(), m.end(), name));
        }
        if spans.is_empty() {
            return text.to_string();
        }
        spans.sort_by_key(|s| s.0);
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e, name) in spans {
            if s < at {
                continue;
            }
            out.push_str(&text[at..s]);
            out.push_str(&name);
            at = e;
        }
        out.push_str(&text[at..]);
        out
    }
}

/// Host names where tools and people name their host: iostat banners `(host)`, shell
/// prompts `user@host:~$`, URLs, `hostname:` / `host=` lines, and `/etc/hosts` lines.
/// Whether `v` is one of the names [`Pseudonyms`] gives (`host-3`, `ip-12`): what the
/// bundle wrote itself, never a secret.
pub fn is_pseudonym(v: &str) -> bool {
    ["host-", "ip-"].iter().any(|p| {
        v.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
    })
}

pub fn find_hosts(text: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    #[allow(clippy::expect_used)]
    let re = RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?m)^Linux \S+ \((?P<a>[A-Za-z0-9._-]+)\)",
            r"|://(?P<b>[A-Za-z][A-Za-z0-9.-]*[A-Za-z0-9])[:/]",
            r"|\b(?:hostname|host|HOSTNAME|HOST)[ \t]*[:=][ \t]*(?P<c>[A-Za-z][A-Za-z0-9.-]*[A-Za-z0-9])",
            r"|(?:^|[\s\[])[A-Za-z_][A-Za-z0-9_.-]*@(?P<d>[A-Za-z][A-Za-z0-9.-]*[A-Za-z0-9])(?::[~/]|[ \t][~/A-Za-z0-9_.-]*\][$#]|:\S*[$#])",
            r"|(?m)^[ \t]*\d{1,3}(?:\.\d{1,3}){3}[ \t]+(?P<e>[A-Za-z][A-Za-z0-9.-]*(?:[ \t]+[A-Za-z][A-Za-z0-9.-]*)*)[ \t]*(?:#.*)?$",
        ))
        .expect("valid regex")
    });
    let mut out: Vec<String> = Vec::new();
    let mut push = |h: &str| {
        let h = h.trim_end_matches('.');
        let skip = h.eq_ignore_ascii_case("localhost")
            || h.eq_ignore_ascii_case("localhost.localdomain")
            || h.len() < 2
            || out.iter().any(|x| x == h);
        if !skip {
            out.push(h.to_string());
        }
    };
    for c in re.captures_iter(text) {
        for g in ["a", "b", "c", "d"] {
            if let Some(m) = c.name(g) {
                push(m.as_str());
            }
        }
        if let Some(m) = c.name("e") {
            for h in m.as_str().split_whitespace() {
                push(h);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_addresses_only_and_the_same_name_everywhere() {
        let mut p = Pseudonyms::with_hosts(vec!["gpu01".into()]);
        let a = p.apply("10.0.0.1 and 10.0.0.12 and 110.0.0.1; gpu01 at 10.0.0.1, gpu010 and gpu01.lab; local 127.0.0.1");
        assert_eq!(
            a,
            "ip-1 and ip-2 and ip-3; host-1 at ip-1, gpu010 and gpu01.lab; local 127.0.0.1"
        );
        assert_eq!(
            p.apply("again 10.0.0.12 then 10.0.0.1."),
            "again ip-2 then ip-1."
        );
        assert_eq!(p.map["10.0.0.1"], "ip-1");
        assert_eq!(
            p.apply("version 1.2.3.999 stays"),
            "version 1.2.3.999 stays"
        );
    }

    #[test]
    fn longer_names_win() {
        let mut p = Pseudonyms::with_hosts(vec!["gpu01".into(), "gpu01.lab".into()]);
        assert_eq!(p.apply("gpu01.lab gpu01"), "host-1 host-2");
    }

    #[test]
    fn finds_host_names_where_they_are_named() {
        let h = find_hosts(
            "Linux 6.8.0 (gpu-node7) \t11/30/26\nURL=http://storage01:8000/v1\nhostname: edge3\n\
             root@bench-host:~$ ls\n[admin@db02 tmp]$ ls\n10.0.0.5   nas01 nas01.lab\n",
        );
        assert_eq!(
            h,
            [
                "gpu-node7",
                "storage01",
                "edge3",
                "bench-host",
                "db02",
                "nas01",
                "nas01.lab"
            ]
        );
        assert!(find_hosts("http://localhost:8000/x").is_empty());
        assert!(
            find_hosts("10.0.0.1 and 10.0.0.12 and more\n").is_empty(),
            "a hosts line holds only an address and names"
        );
    }
}
