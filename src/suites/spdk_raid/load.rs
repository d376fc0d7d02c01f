//! Reads SPDK RAID results: `spdk/<array>-<drives>/` with fio (spdk_bdev) or bdevperf
//! JSON per run, `degraded/` runs with a member removed, the SPDK config and the
//! `bdev_raid_get_bdevs` output.

use std::collections::BTreeMap;

use crate::fio::signature::Signature;
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Item, Kind};

mod placement;
mod read;

pub use placement::detect;
use placement::placement;
use read::{config_facts, read_item, Read};

/// One direction of one run, in the article's units.
#[derive(Debug, Clone, Default)]
pub struct Side {
    pub iops: f64,
    pub avg_us: Option<f64>,
    pub p999_us: Option<f64>,
    pub bytes_per_s: f64,
    /// The throughput's standard error within the run, relative to it, where the file
    /// gives one (fio's bandwidth samples: `bw_dev / sqrt(bw_samples)`, taken as
    /// independent); None for bdevperf and for fio output without samples.
    pub rel_se: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Run {
    pub file: String,
    pub degraded: bool,
    pub tool: &'static str,
    pub sig: Signature,
    pub read: Side,
    pub write: Side,
    /// fio's job error (errno), 0 when clean.
    pub error: i64,
    /// I/Os that failed (bdevperf io_failed, or fio's error with nothing moved).
    pub failed_ios: u64,
    pub io_bytes: u64,
    /// The options in effect, as the file records them (fio's; bdevperf's job fields).
    pub options: BTreeMap<String, String>,
    /// Whether the file records the options at all.
    pub recorded: bool,
    /// How long the run lasted by the tool's own account, in ms.
    pub runtime_ms: u64,
    /// fio's line saying the run was cut short, if it was.
    pub interrupted: Option<String>,
    pub notes: Vec<String>,
}

impl Run {
    pub fn iops(&self) -> f64 {
        self.read.iops + self.write.iops
    }

    pub fn gbps(&self) -> f64 {
        (self.read.bytes_per_s + self.write.bytes_per_s) / 1e9
    }

    /// The relative standard error of the run's throughput (both directions together,
    /// as independent, weighted by what each moved: bytes, or I/Os where a side reports
    /// no bytes), or None when a direction that moved data has none.
    pub fn rel_se(&self) -> Option<f64> {
        let by_bytes = self.read.bytes_per_s > 0.0 || self.write.bytes_per_s > 0.0;
        let mut var = 0.0;
        let mut total = 0.0;
        for side in [&self.read, &self.write] {
            if side.bytes_per_s > 0.0 || side.iops > 0.0 {
                let weight = if by_bytes {
                    side.bytes_per_s
                } else {
                    side.iops
                };
                var += (side.rel_se? * weight).powi(2);
                total += weight;
            }
        }
        (total > 0.0).then(|| var.sqrt() / total)
    }

    /// The run failed: an error, failed I/Os or nothing moved.
    pub fn failed(&self) -> bool {
        self.error != 0 || self.failed_ios > 0 || self.io_bytes == 0
    }

    /// It ran to its end without failing: the only kind that feeds a number.
    pub fn clean(&self) -> bool {
        !self.failed() && self.interrupted.is_none()
    }
}

/// `bdev_raid_get_bdevs` for one array: SPDK has no "degraded" state; fewer operational
/// members than slots means degraded.
#[derive(Debug, Clone)]
pub struct RaidState {
    pub file: String,
    pub name: String,
    pub state: String,
    pub raid_level: String,
    pub strip_size_kb: Option<u32>,
    pub members: u64,
    pub operational: u64,
}

impl RaidState {
    pub fn label(&self) -> String {
        match self.state.as_str() {
            "online" if self.operational < self.members => format!(
                "degraded ({} of {} members operational)",
                self.operational, self.members
            ),
            "online" => format!("online ({} of {} members)", self.operational, self.members),
            other => format!(
                "{other} ({} of {} members operational)",
                self.operational, self.members
            ),
        }
    }
}

/// What the SPDK config says about the array.
#[derive(Debug, Clone)]
pub struct ConfigFacts {
    pub file: String,
    /// Member bdevs: the array's base bdevs, or every attached or created bdev.
    pub drives: usize,
    pub raid_level: Option<String>,
    pub strip_kb: Option<u32>,
    /// What the members are: `nvme`, `malloc` (RAM), `mixed` or `unknown`.
    pub members: &'static str,
}

#[derive(Debug, Clone, Default)]
pub struct ArrayDir {
    pub dir: String,
    pub array: String,
    pub drives: u32,
    pub runs: Vec<Run>,
    pub config: Option<ConfigFacts>,
    pub state: Option<RaidState>,
    pub degraded_state: Option<RaidState>,
    /// The files in `degraded/` that could not be read as a run: (file, why, whether
    /// the file says the job failed, as bdevperf's RPC error does).
    pub degraded_unread: Vec<(String, String, bool)>,
    /// The other files of the folder that could not be read: (file, why).
    pub unread: Vec<(String, String)>,
}

pub use crate::ingest::layout::split_array;

pub fn load(catalog: &Catalog, skipped: &mut Vec<Skipped>) -> Vec<ArrayDir> {
    let mut arrays: BTreeMap<String, ArrayDir> = BTreeMap::new();
    let mut unnamed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (rel, (dir, degraded)) in placement(catalog) {
        let Some(item) = catalog.get(&rel) else {
            continue;
        };
        let name = if dir.is_empty() {
            catalog.root_name.clone()
        } else {
            layout::name_of(&dir).to_string()
        };
        let (array, drives) = match split_array(&name) {
            Some((a, n)) => (a.to_string(), n),
            None => (name.clone(), 0),
        };
        let slot = arrays.entry(dir.clone()).or_insert_with(|| ArrayDir {
            dir: dir.clone(),
            array,
            drives,
            ..ArrayDir::default()
        });
        match read_item(item, degraded) {
            Ok(Read::Run(r)) => {
                if slot.drives == 0 {
                    unnamed.entry(dir.clone()).or_default().push(rel.clone());
                }
                slot.runs.push(*r)
            }
            Ok(Read::Config(c)) => slot.config = Some(c),
            Ok(Read::State(s)) => {
                if degraded {
                    slot.degraded_state = Some(s);
                } else {
                    slot.state = Some(s);
                }
            }
            Err((line, why)) => {
                // Only a run's output counts as a job that could not be read: a config or
                // a raid listing is not a job. bdevperf's own failure is -32603 (its other
                // RPC errors are a setup's: the job is not known to have run).
                let rpc = why.starts_with(crate::parse::fio::RPC_ERROR);
                let a_run = rpc || matches!(item.kind, Kind::Fio | Kind::Bdevperf);
                if a_run && degraded {
                    let failed = rpc && why.contains("code -32603:");
                    slot.degraded_unread
                        .push((rel.clone(), why.clone(), failed));
                } else if a_run {
                    slot.unread.push((rel.clone(), why.clone()));
                }
                skipped.push(Skipped {
                    file: rel.clone(),
                    line,
                    reason: why,
                })
            }
        }
    }
    for a in arrays.values_mut().filter(|a| a.drives == 0) {
        count_drives(
            catalog,
            a,
            unnamed.remove(&a.dir).unwrap_or_default(),
            skipped,
        );
    }
    arrays
        .into_values()
        .filter(|a| a.drives > 0 || a.config.is_some() || a.state.is_some())
        .collect()
}

/// A folder not named `<array>-<drives>`: the drive count from its config or its raid
/// state, else the runs cannot be judged as a share of anything (they are dropped, each
/// listed as skipped with how to name the folder). `unnamed`: its runs' files.
fn count_drives(
    catalog: &Catalog,
    a: &mut ArrayDir,
    unnamed: Vec<String>,
    skipped: &mut Vec<Skipped>,
) {
    // fio's `spdk_json_conf` names the config the runs used: when a file of that name
    // is in the input, it is this array's config.
    if a.config.is_none() {
        a.config = named_config(catalog, &a.runs);
    }
    let from_config = a
        .config
        .as_ref()
        .map(|c| c.drives as u32)
        .filter(|n| *n > 0);
    let from_state = a
        .state
        .as_ref()
        .map(|s| s.members as u32)
        .filter(|n| *n > 0);
    if let Some(n) = from_config.or(from_state) {
        a.drives = n;
        return;
    }
    let shown = if a.dir.is_empty() {
        ".".to_string()
    } else {
        a.dir.clone()
    };
    for rel in unnamed {
        skipped.push(Skipped {
            file: rel,
            line: None,
            reason: format!(
                "spdk_bdev fio results under `{shown}/`, whose drive count nothing gives: the spdk-raid suite reads `spdk/<array>-<drives>/` (name the folder `{}-<drives>`, or put the SPDK config.json beside the runs)",
                a.array
            ),
        });
    }
    a.runs.clear();
}

/// The SPDK config the runs name in `spdk_json_conf`, found in the input by the path's
/// longest matching tail (`/home/u/bench/configs/raid5f.json` matches
/// `configs/raid5f.json`), when one file matches and every run names the same one.
fn named_config(catalog: &Catalog, runs: &[Run]) -> Option<ConfigFacts> {
    let mut named: Vec<&str> = runs
        .iter()
        .filter_map(|r| r.options.get("spdk_json_conf").map(String::as_str))
        .collect();
    named.sort_unstable();
    named.dedup();
    let [path] = named.as_slice() else {
        return None;
    };
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let score = |rel: &str| {
        rel.split('/')
            .rev()
            .zip(parts.iter().rev())
            .take_while(|(a, b)| a == *b)
            .count()
    };
    let mut best: Vec<(&Item, usize)> = catalog
        .items
        .iter()
        .filter(|i| i.kind == Kind::SpdkConfig)
        .map(|i| (i, score(&i.rel)))
        .filter(|(_, n)| *n > 0)
        .collect();
    best.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    match best.as_slice() {
        [(item, n), rest @ ..] if rest.first().is_none_or(|(_, m)| m < n) => {
            item.json().map(|v| config_facts(&item.rel, v))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_array_folders() {
        assert_eq!(split_array("raid5f-8"), Some(("raid5f", 8)));
        assert_eq!(split_array("my-array-16"), Some(("my-array", 16)));
        assert_eq!(split_array("raid5f"), None);
        assert_eq!(split_array("-8"), None);
    }
}
