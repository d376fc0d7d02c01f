//! Reads SPDK RAID results: `spdk/<array>-<drives>/` with fio (spdk_bdev) or bdevperf
//! JSON per run, `degraded/` runs with a member removed, the SPDK config and the
//! `bdev_raid_get_bdevs` output.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::fio::signature::Signature;
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, FioRecord, Item, Kind, Record};
use crate::parse::{bdevperf, fio};

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
}

pub use crate::ingest::layout::split_array;

/// The kinds of file an array folder holds.
fn spdk_kind(k: Kind) -> bool {
    matches!(
        k,
        Kind::Fio | Kind::Bdevperf | Kind::SpdkConfig | Kind::RaidState | Kind::OtherJson
    )
}

/// fio results that ran through SPDK's bdev layer: this suite's wherever they sit.
fn spdk_bdev_run(item: &Item) -> bool {
    item.fio().is_some_and(|o| o.uses_ioengine("spdk_bdev"))
}

/// The array folder of a file outside the article's layout (`results/raid5f/x.json`):
/// its folder, the one above a `degraded/` folder, or the array a `raid5f_degraded/`
/// folder is named for (its degraded runs, never an array of its own).
fn folder_of(rel: &str) -> (String, bool) {
    let dir = layout::dir_of(rel);
    if layout::name_of(dir) == "degraded" && !dir.is_empty() && dir != "degraded" {
        return (layout::dir_of(dir).to_string(), true);
    }
    if let Some(array) = layout::degraded_of(layout::name_of(dir)) {
        let parent = layout::dir_of(dir);
        let at = if parent.is_empty() {
            array.to_string()
        } else {
            format!("{parent}/{array}")
        };
        return (at, true);
    }
    (dir.to_string(), false)
}

pub fn detect(catalog: &Catalog) -> bool {
    catalog.items.iter().any(|i| {
        spdk_bdev_run(i)
            || (spdk_kind(i.kind)
                && i.kind != Kind::OtherJson
                && layout::spdk_array_of(&i.rel).is_some()
                && (layout::in_spdk_tree(&i.rel)
                    || matches!(i.kind, Kind::Bdevperf | Kind::SpdkConfig)))
    })
}

/// Where each file of this suite belongs: the article's `<array>-<drives>/` folders, and
/// the folders of spdk_bdev runs found elsewhere.
fn placement(catalog: &Catalog) -> BTreeMap<String, (String, bool)> {
    let mut out: BTreeMap<String, (String, bool)> = BTreeMap::new();
    let mut elsewhere: BTreeMap<String, ()> = BTreeMap::new();
    for i in &catalog.items {
        if !i.rel.ends_with(".json") && !spdk_bdev_run(i) {
            continue;
        }
        if let Some(at) = layout::spdk_array_of(&i.rel) {
            if spdk_kind(i.kind) {
                out.insert(i.rel.clone(), at);
            }
        } else if spdk_bdev_run(i) {
            let (dir, degraded) = folder_of(&i.rel);
            elsewhere.insert(dir.clone(), ());
            out.insert(i.rel.clone(), (dir, degraded));
        }
    }
    // The configs and raid states beside runs found elsewhere belong to them too.
    for i in catalog
        .items
        .iter()
        .filter(|i| matches!(i.kind, Kind::SpdkConfig | Kind::RaidState | Kind::Bdevperf))
    {
        let (dir, degraded) = folder_of(&i.rel);
        if elsewhere.contains_key(&dir) {
            out.entry(i.rel.clone()).or_insert((dir, degraded));
        }
    }
    out
}

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
            Err((line, why)) => skipped.push(Skipped {
                file: rel.clone(),
                line,
                reason: why,
            }),
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

enum Read {
    Run(Box<Run>),
    Config(ConfigFacts),
    State(RaidState),
}

fn read_item(item: &Item, degraded: bool) -> Result<Read, (Option<usize>, String)> {
    let rel = item.rel.as_str();
    match &item.record {
        Ok(Record::Fio(out)) => Ok(Read::Run(Box::new(from_fio(rel, degraded, out)?))),
        Ok(Record::Bdevperf(b)) => Ok(Read::Run(Box::new(from_bdevperf(rel, degraded, b)?))),
        Ok(Record::Json(v)) if item.kind == Kind::SpdkConfig => {
            Ok(Read::Config(config_facts(rel, v)))
        }
        Ok(Record::Json(v)) if item.kind == Kind::RaidState => match raid_state(rel, v) {
            Some(s) => Ok(Read::State(s)),
            None => Err((
                Some(1),
                "bdev_raid_get_bdevs output without a raid bdev".into(),
            )),
        },
        Ok(_) => Err((
            Some(1),
            "not fio or bdevperf output, an SPDK config or bdev_raid_get_bdevs output".into(),
        )),
        Err(p) => Err((p.line, p.reason.clone())),
    }
}

fn from_fio(rel: &str, degraded: bool, fio: &FioRecord) -> Result<Run, (Option<usize>, String)> {
    let out = &fio.output;
    let gs = &fio.groups;
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
        rel_se: d.bw_rel_se.filter(|x| x.is_finite() && *x >= 0.0),
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
        file: rel.to_string(),
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
    rel: &str,
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
        rel_se: None,
    };
    let writes_only = matches!(first.workload.as_str(), "write" | "randwrite");
    Ok(Run {
        file: rel.to_string(),
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

fn config_facts(rel: &str, v: &Value) -> ConfigFacts {
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
        file: rel.to_string(),
        drives: kinds.len(),
        raid_level: level,
        strip_kb: strip,
        members,
    }
}

fn raid_state(rel: &str, v: &Value) -> Option<RaidState> {
    let list = v.as_array()?;
    let r = list.iter().find(|r| r.get("raid_level").is_some())?;
    let members = r["num_base_bdevs"].as_u64().unwrap_or(0);
    Some(RaidState {
        file: rel.to_string(),
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
        let s = raid_state("spdk/raid5f-8/degraded/bdev_raid_get_bdevs.json", &v).expect("state");
        assert_eq!(s.label(), "degraded (7 of 8 members operational)");
    }
}
