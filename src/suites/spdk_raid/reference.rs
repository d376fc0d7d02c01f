//! The article's published tables and the thresholds, from `reports/spdk-raid.toml`.

use std::collections::BTreeMap;

use serde::Deserialize;

pub const SPDK_TOML: &str = include_str!("../../../reports/spdk-raid.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct SpdkReference {
    pub source: BTreeMap<String, toml::Value>,
    pub criteria: Criteria,
    pub procedure: Procedure,
    pub row: Vec<Row>,
    pub degraded: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Criteria {
    pub random_read_share: f64,
    pub stripe_read_share: f64,
    pub stripe_write_share: f64,
}

/// What the article's job files set for every run.
#[derive(Debug, Clone, Deserialize)]
pub struct Procedure {
    pub source: String,
    pub small_runtime_s: u64,
    pub stripe_runtime_s: u64,
    pub runtime_floor_share: f64,
    pub ioengine: String,
}

/// One published line: a run on an array of `drives` drives.
#[derive(Debug, Clone, Deserialize)]
pub struct Row {
    pub array: String,
    pub drives: u32,
    pub rw: String,
    pub bs: String,
    pub numjobs: u64,
    pub iodepth: u64,
    pub rwmixread: Option<u64>,
    pub iops: Option<f64>,
    pub write_iops: Option<f64>,
    pub avg_us: Option<f64>,
    pub write_avg_us: Option<f64>,
    pub p999_us: Option<f64>,
    pub write_p999_us: Option<f64>,
    pub gbps: Option<f64>,
}

impl SpdkReference {
    pub fn load() -> Result<SpdkReference, toml::de::Error> {
        crate::parse::embedded_toml::read(SPDK_TOML)
    }

    pub fn strip_kb(&self) -> u32 {
        self.source
            .get("strip_kb")
            .and_then(|v| v.as_integer())
            .map_or(64, |v| v as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_tables_parse() {
        let r = SpdkReference::load().expect("reports/spdk-raid.toml parses");
        assert_eq!(r.row.len(), 77);
        let x16 = r.row.iter().find(|x| {
            x.array == "xinnor" && x.drives == 16 && x.rw == "randwrite" && x.numjobs == 16
        });
        assert_eq!(x16.and_then(|x| x.iops), Some(1_031_000.0));
        assert_eq!(r.strip_kb(), 64);
    }
}
