//! Reads SPDK RAID results: `spdk/<array>-<drives>/` with fio (spdk_bdev) or bdevperf
//! JSON per run, `degraded/` runs with a member removed, the SPDK config and the
//! `bdev_raid_get_bdevs` output.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::fio::groups::groups;
use crate::fio::signature::Signature;
use crate::folder::{Entry, Folder, Skipped};
use crate::parse::{bdevperf, fio};

/// One direction of one run, in the article's units.
#[derive(Debug, Clone, Default)]
pub struct Side {
    pub iops: f64,
    pub avg_us: Option<f64>,
    pub p999_us: Option<f64>,
    pub bytes_per_s: f64,
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
}

/// `raid5f-8` -> (`raid5f`, 8)
pub fn split_array(name: &str) -> Option<(&str, u32)> {
    let (a, n) = name.rsplit_once('-')?;
    let n: u32 = n.parse().ok()?;
    (!a.is_empty() && n > 0).then_some((a, n))
}

/// The array folder an entry belongs to, and whether it is a degraded run.
fn array_of(e: &Entry) -> Option<(String, bool)> {
    let parts: Vec<&str> = e.rel.split('/').collect();
    let n = parts.len();
    if n >= 2 && split_array(parts[n - 2]).is_some() {
        return Some((parts[..n - 1].join("/"), false));
    }
    if n >= 3 && parts[n - 2] == "degraded" && split_array(parts[n - 3]).is_some() {
        return Some((parts[..n - 2].join("/"), true));
    }
    None
}

/// Whether a results file sits in this suite's layout (`spdk/...` or `<array>-<n>/`), so
/// the storage suite leaves it alone.
pub fn claims(rel: &str) -> bool {
    rel.starts_with("spdk/") || rel.contains("/spdk/")
}

pub fn detect(folder: &Folder) -> bool {
    folder
        .files
        .iter()
        .any(|e| e.rel.ends_with(".json") && array_of(e).is_some() && e.rel.contains("spdk"))
        || folder.files.iter().any(|e| {
            e.rel.ends_with(".json")
                && array_of(e).is_some()
                && std::fs::read(&e.path).is_ok_and(|b| {
                    serde_json::from_slice::<Value>(&b)
                        .is_ok_and(|v| bdevperf::looks_like(&v) || v.get("subsystems").is_some())
                })
        })
}

pub fn load(folder: &Folder, skipped: &mut Vec<Skipped>) -> Vec<ArrayDir> {
    let mut arrays: BTreeMap<String, ArrayDir> = BTreeMap::new();
    for e in folder.with_suffix(".json") {
        let Some((dir, degraded)) = array_of(e) else {
            continue;
        };
        let name = dir.rsplit('/').next().unwrap_or(&dir).to_string();
        let Some((array, drives)) = split_array(&name) else {
            continue;
        };
        let slot = arrays.entry(dir.clone()).or_insert_with(|| ArrayDir {
            dir: dir.clone(),
            array: array.to_string(),
            drives,
            ..ArrayDir::default()
        });
        match read_file(e, degraded) {
            Ok(Item::Run(r)) => slot.runs.push(*r),
            Ok(Item::Config(c)) => slot.config = Some(c),
            Ok(Item::State(s)) => {
                if degraded {
                    slot.degraded_state = Some(s);
                } else {
                    slot.state = Some(s);
                }
            }
            Err((line, why)) => skipped.push(folder.skipped(e, line, why)),
        }
    }
    arrays.into_values().collect()
}

enum Item {
    Run(Box<Run>),
    Config(ConfigFacts),
    State(RaidState),
}

fn read_file(e: &Entry, degraded: bool) -> Result<Item, (Option<usize>, String)> {
    let bytes = std::fs::read(&e.path).map_err(|err| (None, format!("cannot read: {err}")))?;
    if let Ok(out) = fio::parse_bytes(&bytes) {
        return Ok(Item::Run(Box::new(from_fio(e, degraded, &out)?)));
    }
    let v: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => {
            return match bdevperf::parse_bytes(&bytes) {
                Ok(b) => Ok(Item::Run(Box::new(from_bdevperf(e, degraded, &b)?))),
                Err(p) => {
                    let f = fio::parse_bytes(&bytes)
                        .err()
                        .map(|p| p.reason)
                        .unwrap_or_default();
                    Err((p.line, if f.is_empty() { p.reason } else { f }))
                }
            }
        }
    };
    if v.get("subsystems").is_some() {
        return Ok(Item::Config(config_facts(e, &v)));
    }
    if let Some(s) = raid_state(e, &v) {
        return Ok(Item::State(s));
    }
    match bdevperf::parse_bytes(&bytes) {
        Ok(b) => Ok(Item::Run(Box::new(from_bdevperf(e, degraded, &b)?))),
        Err(p) => Err((
            p.line,
            format!(
                "not fio or bdevperf output, an SPDK config or bdev_raid_get_bdevs output ({})",
                p.reason
            ),
        )),
    }
}

fn from_fio(
    e: &Entry,
    degraded: bool,
    out: &fio::FioOutput,
) -> Result<Run, (Option<usize>, String)> {
    let gs = groups(out);
    let mut notes = Vec::new();
    if gs.len() > 1 {
        notes.push(format!(
            "{} groups in the file: the first is used",
            gs.len()
        ));
    }
    let Some(g) = gs.first() else {
        return Err((
            Some(out.line),
            "fio output with no jobs: nothing ran".to_string(),
        ));
    };
    let side = |d: &crate::fio::groups::Dir, stats: Option<&fio::DirStats>| Side {
        iops: d.iops,
        avg_us: d.mean_lat_ns.filter(|n| *n > 0.0).map(|n| n / 1000.0),
        p999_us: stats
            .and_then(|s| s.clat.percentile(99.9).or_else(|| s.lat.percentile(99.9)))
            .map(|n| n / 1000.0),
        bytes_per_s: d.bw_bytes,
    };
    let first = out.jobs.first();
    if let Some(t) = out.text_before.iter().find(|t| t.contains("error")) {
        notes.push(if t.starts_with("fio:") {
            t.clone()
        } else {
            format!("fio: {t}")
        });
    }
    let io_bytes = g.read.io_bytes + g.write.io_bytes;
    let recorded = g.recorded;
    Ok(Run {
        file: e.rel.clone(),
        degraded,
        tool: "fio",
        options: g.options.clone(),
        recorded,
        runtime_ms: g.read.runtime_ms.max(g.write.runtime_ms),
        interrupted: crate::fio::params::interrupted(out).map(str::to_string),
        sig: Signature::from_options(&g.options),
        read: side(&g.read, first.map(|j| &j.read).filter(|_| g.entries == 1)),
        write: side(&g.write, first.map(|j| &j.write).filter(|_| g.entries == 1)),
        error: g.error,
        failed_ios: if g.error != 0 && io_bytes == 0 { 1 } else { 0 },
        io_bytes,
        notes,
    })
}

fn from_bdevperf(
    e: &Entry,
    degraded: bool,
    b: &bdevperf::Bdevperf,
) -> Result<Run, (Option<usize>, String)> {
    let iops: f64 = b.results.iter().map(|r| r.iops).sum();
    let bytes: f64 = b.results.iter().map(|r| r.mibps * 1024.0 * 1024.0).sum();
    let avg = if iops > 0.0 {
        Some(
            b.results
                .iter()
                .map(|r| r.avg_latency_us.unwrap_or(0.0) * r.iops)
                .sum::<f64>()
                / iops,
        )
    } else {
        None
    };
    let Some(first) = b.results.first() else {
        return Err((None, "bdevperf output with no results".to_string()));
    };
    let mut opts = BTreeMap::new();
    opts.insert("rw".to_string(), first.workload.clone());
    opts.insert("bs".to_string(), first.io_size.to_string());
    opts.insert("iodepth".to_string(), first.queue_depth.to_string());
    opts.insert("numjobs".to_string(), b.results.len().to_string());
    opts.insert("ioengine".to_string(), "bdevperf".to_string());
    let failed: u64 = b.results.iter().map(|r| r.io_failed).sum();
    let runtime: f64 = b.results.iter().map(|r| r.runtime).fold(0.0, f64::max);
    let mut notes = vec!["bdevperf: no percentiles; read and write are not split".to_string()];
    if b.results
        .iter()
        .any(|r| r.avg_latency_us > r.max_latency_us && r.max_latency_us.is_some())
    {
        notes.push(
            "bdevperf printed an average latency above its maximum (seen in real output)".into(),
        );
    }
    let side = Side {
        iops,
        avg_us: avg,
        p999_us: None,
        bytes_per_s: bytes,
    };
    let writes_only = matches!(first.workload.as_str(), "write" | "randwrite");
    Ok(Run {
        file: e.rel.clone(),
        degraded,
        tool: "bdevperf",
        sig: Signature::from_options(&opts),
        options: opts.clone(),
        read: if writes_only {
            Side::default()
        } else {
            side.clone()
        },
        write: if writes_only { side } else { Side::default() },
        error: if failed > 0 { 5 } else { 0 },
        failed_ios: failed,
        io_bytes: (bytes * runtime) as u64,
        recorded: true,
        interrupted: None,
        runtime_ms: (runtime * 1000.0).round() as u64,
        notes,
    })
}

fn config_facts(e: &Entry, v: &Value) -> ConfigFacts {
    let mut controllers: Vec<String> = Vec::new();
    let mut malloc: Vec<String> = Vec::new();
    let mut level = None;
    let mut strip = None;
    let mut base: Option<Vec<String>> = None;
    for sub in v["subsystems"].as_array().into_iter().flatten() {
        for m in sub["config"].as_array().into_iter().flatten() {
            let p = &m["params"];
            match m["method"].as_str() {
                Some("bdev_nvme_attach_controller") => {
                    controllers.push(p["name"].as_str().unwrap_or("").to_string())
                }
                Some("bdev_malloc_create") => {
                    malloc.push(p["name"].as_str().unwrap_or("").to_string())
                }
                Some("bdev_raid_create") | Some("bdev_rdx_raid_create") => {
                    level = match &p["raid_level"] {
                        Value::String(s) => Some(s.clone()),
                        Value::Number(n) => Some(format!("raid{n}")),
                        _ => None,
                    };
                    strip = p["strip_size_kb"]
                        .as_u64()
                        .and_then(|s| u32::try_from(s).ok());
                    base = match &p["base_bdevs"] {
                        Value::Array(b) => Some(
                            b.iter()
                                .map(|x| x.as_str().unwrap_or("").to_string())
                                .collect(),
                        ),
                        // rpc.py takes "a b c" as one string.
                        Value::String(s) => Some(s.split_whitespace().map(String::from).collect()),
                        _ => None,
                    };
                }
                _ => {}
            }
        }
    }
    let kind = |name: &str| -> &'static str {
        if malloc.iter().any(|m| m == name) {
            "malloc"
        } else if controllers
            .iter()
            .any(|c| !c.is_empty() && name.starts_with(c.as_str()))
        {
            "nvme"
        } else {
            "unknown"
        }
    };
    let kinds: Vec<&'static str> = match &base {
        Some(b) => b.iter().map(|n| kind(n)).collect(),
        None => controllers
            .iter()
            .map(|_| "nvme")
            .chain(malloc.iter().map(|_| "malloc"))
            .collect(),
    };
    let members = match (
        kinds.iter().all(|k| *k == "nvme"),
        kinds.iter().all(|k| *k == "malloc"),
    ) {
        _ if kinds.is_empty() => "unknown",
        (true, _) => "nvme",
        (_, true) => "malloc",
        _ if kinds.contains(&"malloc") => "mixed",
        _ => "unknown",
    };
    ConfigFacts {
        file: e.rel.clone(),
        drives: kinds.len(),
        raid_level: level,
        strip_kb: strip,
        members,
    }
}

fn raid_state(e: &Entry, v: &Value) -> Option<RaidState> {
    let list = v.as_array()?;
    let r = list.iter().find(|r| r.get("raid_level").is_some())?;
    let members = r["num_base_bdevs"].as_u64().unwrap_or(0);
    Some(RaidState {
        file: e.rel.clone(),
        name: r["name"].as_str().unwrap_or("").to_string(),
        state: r["state"].as_str().unwrap_or("unknown").to_string(),
        raid_level: r["raid_level"].as_str().unwrap_or("").to_string(),
        strip_size_kb: r["strip_size_kb"].as_u64().map(|s| s as u32),
        members,
        // Older outputs have no `num_base_bdevs_operational`: fall back to discovered.
        operational: r["num_base_bdevs_operational"]
            .as_u64()
            .or_else(|| r["num_base_bdevs_discovered"].as_u64())
            .unwrap_or(members),
    })
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

    #[test]
    fn reads_degraded_state_the_way_spdk_reports_it() {
        let v: Value = serde_json::from_str(
            r#"[{"name": "raid5", "strip_size_kb": 64, "state": "online", "raid_level": "raid5f",
                 "num_base_bdevs": 8, "num_base_bdevs_discovered": 7, "num_base_bdevs_operational": 7,
                 "base_bdevs_list": [{"name": null, "is_configured": false}]}]"#,
        )
        .expect("json");
        let e = Entry {
            path: "x".into(),
            rel: "spdk/raid5f-8/degraded/bdev_raid_get_bdevs.json".into(),
        };
        let s = raid_state(&e, &v).expect("state");
        assert_eq!(s.label(), "degraded (7 of 8 members operational)");
    }
}
