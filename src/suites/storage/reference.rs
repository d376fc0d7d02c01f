//! The published numbers and thresholds of `reports/storage.toml`, embedded in the binary.

use std::collections::BTreeMap;

use serde::Deserialize;

pub const STORAGE_TOML: &str = include_str!("../../../reports/storage.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Reference {
    pub source: BTreeMap<String, String>,
    pub arrays: Arrays,
    pub procedure: Procedure,
    pub workload: Vec<Workload>,
    pub observations: BTreeMap<String, ObservationRef>,
    pub steady_state: super::steady::Rule,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Arrays {
    pub baseline: String,
    pub candidate: String,
    pub baseline_label: String,
    pub candidate_label: String,
    pub drives: u32,
    pub drive_tb: f64,
}

/// What the procedure's helper fixes for every run, and the headline runs' span and time.
#[derive(Debug, Clone, Deserialize)]
pub struct Procedure {
    pub source: String,
    pub runtime_s: u64,
    pub runtime_floor_s: f64,
    pub size: String,
    pub size_source: String,
    pub baseline_dev: String,
    pub dev_source: String,
    pub qd1_ioengine: String,
    pub qd1_source: String,
    pub option: Vec<OptionRef>,
}

/// One fio option the helper sets, and what another value does to the comparison.
#[derive(Debug, Clone, Deserialize)]
pub struct OptionRef {
    pub name: String,
    /// The helper's value; `not set` when the helper leaves it out.
    pub value: String,
    pub changes: bool,
    pub effect: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Workload {
    pub id: String,
    pub name: String,
    pub title: String,
    pub rw: String,
    pub bs: String,
    pub numjobs: u64,
    pub iodepth: u64,
    pub rwmixread: Option<u64>,
    pub baseline_mb_s: f64,
    pub candidate_mb_s: f64,
    pub published: String,
    pub criterion: String,
    pub min_ratio: f64,
    #[serde(default)]
    pub strict: bool,
    /// The procedure's own line for this run.
    pub command: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ObservationRef {
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    pub value: Option<f64>,
    pub source: String,
}

impl Reference {
    pub fn load() -> Result<Reference, toml::de::Error> {
        crate::parse::embedded_toml::read(STORAGE_TOML)
    }

    pub fn observation(&self, key: &str) -> Option<&ObservationRef> {
        self.observations.get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_reference_parses_and_has_the_five_headline_workloads() {
        let r = Reference::load().expect("reports/storage.toml parses");
        assert_eq!(r.workload.len(), 5);
        for w in &r.workload {
            assert!(w.min_ratio > 0.0 && !w.source.is_empty(), "{}", w.id);
        }
        let write = r.workload.iter().find(|w| w.id == "write-1m-qd32");
        assert!(write.is_some_and(|w| w.strict));
        for w in &r.workload {
            assert!(
                w.command.starts_with(&format!("run {} ", w.name)),
                "{}",
                w.id
            );
        }
        assert_eq!(r.procedure.runtime_s, 60);
        assert!(r
            .procedure
            .option
            .iter()
            .any(|o| o.name == "direct" && o.changes));
    }
}
