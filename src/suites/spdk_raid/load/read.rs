//! Reads one file of an array folder: a fio (spdk_bdev) or bdevperf run, the SPDK config,
//! the `bdev_raid_get_bdevs` output.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::fio::signature::Signature;
use crate::ingest::{FioRecord, Item, Kind, Record};
use crate::parse::{bdevperf, fio};

use super::{ConfigFacts, RaidState, Run, Side};

pub(super) enum Read {
    Run(Box<Run>),
    Config(ConfigFacts),
    State(RaidState),
}

pub(super) fn read_item(item: &Item, degraded: bool) -> Result<Read, (Option<usize>, String)> {
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
        Ok(Record::Json(v)) if fio::rpc_error(v).is_some() => Err((
            Some(1),
            format!(
                "{} {}",
                fio::RPC_ERROR,
                fio::rpc_error(v).unwrap_or_default()
            ),
        )),
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
        // The I/O errors fio went on past; a job with an error and nothing moved, or an
        // error fio logged, counts as one at least.
        failed_ios: g.total_err.max(u64::from(
            (g.error != 0 && io_bytes == 0) || crate::fio::params::logged_error(out).is_some(),
        )),
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
        // bdevperf gives no errno: its failed I/Os say it.
        error: 0,
        failed_ios: failed,
        io_bytes: (bytes * runtime) as u64,
        recorded: true,
        interrupted: None,
        runtime_ms: (runtime * 1000.0).round() as u64,
        notes,
    })
}

pub(super) fn config_facts(rel: &str, v: &Value) -> ConfigFacts {
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
