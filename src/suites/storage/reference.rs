//! The published numbers and thresholds of `reports/storage.toml`, embedded in the binary.

use std::collections::BTreeMap;

use serde::Deserialize;

pub const STORAGE_TOML: &str = include_str!("../../../reports/storage.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Reference {
    pub source: BTreeMap<String, String>,
    pub arrays: Arrays,
    pub workload: Vec<Workload>,
    pub observations: BTreeMap<String, ObservationRef>,
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
        toml::from_str(STORAGE_TOML)
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
    }
}
