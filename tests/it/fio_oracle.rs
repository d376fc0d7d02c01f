//! The Value-based reader of a fio document the tool had before its one typed reader,
//! kept here as an independent oracle: wherever both read a file, the tool's reader must
//! give what this one gives (on every fixture, sample and fuzzed file). Finding the
//! documents in a file is not repeated here: both use the tool's finder.

#![allow(dead_code)]

use reprobench::output::visible_name;
use std::collections::BTreeMap;

use reprobench::error::Problem;
use reprobench::parse::fio;
use reprobench::parse::fio::{DirStats, DiskUtil, FioJob, FioOutput, Latency};
use serde_json::Value;

/// A file read as the tool reads it, but with this reader for the final document: the
/// documents are found by the tool's own finder ([`fio::find_documents`], tested on its
/// own with stated answers), and only what a document says is read here, from a
/// `serde_json::Value`, independently of the tool's typed reader.
pub fn read_general(bytes: &[u8]) -> Result<FioOutput, Problem> {
    let found = fio::find_documents(bytes)?;
    let doc: Value = serde_json::from_slice(&bytes[found.from..found.to])
        .map_err(|e| Problem::at(found.line, format!("invalid JSON: {e}")))?;
    read_document(&doc, found.line).map(|out| found.onto(out))
}

/// fio 2.x wrote `io_bytes` in KiB, bandwidth only in KiB/s and latencies in µs under
/// `slat`/`clat`/`lat` (fio 3 added `io_kbytes`, `bw_bytes` and the `_ns` blocks).
#[derive(Clone, Copy)]
struct Units {
    legacy: bool,
}

impl Units {
    fn of(doc: &Value) -> Units {
        let major = doc
            .get("fio version")
            .and_then(Value::as_str)
            .and_then(|v| v.trim_start_matches("fio-").split('.').next())
            .and_then(|m| m.parse::<u32>().ok());
        Units {
            legacy: major.is_some_and(|m| m < 3),
        }
    }
}

fn read_document(doc: &Value, line: usize) -> Result<FioOutput, Problem> {
    let bad = |what: String| Problem::at(line, what);
    let units = Units::of(doc);
    // `fio --client` writes `client_stats`: one entry per client and job, and with
    // several clients an `All clients` sum without options or percentiles, which is left
    // out: the per-client entries are summed per group as group_reporting would.
    let (key, jobs_v) = match (doc.get("jobs"), doc.get("client_stats")) {
        (Some(Value::Array(j)), _) => ("jobs", j),
        (_, Some(Value::Array(c))) => ("client_stats", c),
        _ => return Err(bad("not fio output: no `jobs` array".into())),
    };
    let mut jobs = Vec::with_capacity(jobs_v.len());
    for (i, j) in jobs_v.iter().enumerate() {
        if key == "client_stats" && j.get("jobname").and_then(Value::as_str) == Some("All clients")
        {
            continue;
        }
        jobs.push(read_job(j, &format!("{key}[{i}]"), units).map_err(bad)?);
    }
    Ok(FioOutput {
        fio_version: doc
            .get("fio version")
            .and_then(Value::as_str)
            .map(str::to_string),
        timestamp: doc.get("timestamp").and_then(Value::as_i64),
        documents: 1,
        line,
        text_before: Vec::new(),
        text_after: false,
        broken_tail: None,
        global_options: read_options(doc.get("global options")),
        jobs,
        client_stats: key == "client_stats",
        disk_util: read_disk_util(doc.get("disk_util")),
        signal: None,
        separate_runs: Vec::new(),
    })
}

fn read_disk_util(v: Option<&Value>) -> Vec<DiskUtil> {
    let Some(Value::Array(list)) = v else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|d| {
            let name = d.get("name")?.as_str()?.to_string();
            let aggregate = d
                .as_object()
                .is_some_and(|o| o.keys().any(|k| k.starts_with("aggr_")));
            Some(DiskUtil { name, aggregate })
        })
        .collect()
}

fn read_job(j: &Value, at: &str, units: Units) -> Result<FioJob, String> {
    if !j.is_object() {
        return Err(format!("{at}: expected an object"));
    }
    let jobname = match j.get("jobname") {
        Some(Value::String(s)) => visible_name(s).into_owned(),
        Some(_) => return Err(format!("{at}.jobname: expected a string")),
        None => return Err(format!("{at}: no `jobname`")),
    };
    Ok(FioJob {
        jobname,
        groupid: opt_u64(j, "groupid", at)?.unwrap_or(0),
        error: opt_i64(j, "error", at)?.unwrap_or(0),
        job_options: read_options(j.get("job options")),
        read: read_dir(j.get("read"), &format!("{at}.read"), units)?,
        write: read_dir(j.get("write"), &format!("{at}.write"), units)?,
        trim: read_dir(j.get("trim"), &format!("{at}.trim"), units)?,
        usr_cpu: opt_f64(j, "usr_cpu", at)?.unwrap_or(0.0),
        sys_cpu: opt_f64(j, "sys_cpu", at)?.unwrap_or(0.0),
        job_runtime_ms: opt_u64(j, "job_runtime", at)?.unwrap_or(0),
    })
}

fn read_dir(v: Option<&Value>, at: &str, units: Units) -> Result<DirStats, String> {
    let Some(v) = v else {
        return Ok(DirStats::default());
    };
    if !v.is_object() {
        return Err(format!("{at}: expected an object"));
    }
    let io_bytes = opt_u64(v, "io_bytes", at)?.unwrap_or(0);
    let bw_kib = opt_f64(v, "bw", at)?;
    // The `_ns` blocks when present; fio 2.x's µs blocks scaled to ns otherwise.
    let lat = |name: &str| -> Result<Latency, String> {
        let ns = format!("{name}_ns");
        match (v.get(&ns), v.get(name)) {
            (Some(b), _) => read_latency(Some(b), &format!("{at}.{ns}"), 1.0),
            (None, Some(b)) => read_latency(Some(b), &format!("{at}.{name}"), 1000.0),
            (None, None) => Ok(Latency::default()),
        }
    };
    Ok(DirStats {
        bw_bytes_given: v.get("bw_bytes").is_some_and(|x| !x.is_null()),
        ns_latency: ["clat_ns", "lat_ns"]
            .iter()
            .any(|k| v.get(*k).is_some_and(|x| !x.is_null())),
        io_bytes: if units.legacy && v.get("io_kbytes").is_none() {
            io_bytes.saturating_mul(1024)
        } else {
            io_bytes
        },
        bw_bytes: match opt_f64(v, "bw_bytes", at)? {
            Some(b) => b,
            None => bw_kib.map_or(0.0, |k| k * 1024.0),
        },
        iops: opt_f64(v, "iops", at)?.unwrap_or(0.0),
        runtime_ms: opt_u64(v, "runtime", at)?.unwrap_or(0),
        total_ios: opt_u64(v, "total_ios", at)?.unwrap_or(0),
        bw_mean_kib: opt_f64(v, "bw_mean", at)?.filter(|x| x.is_finite()),
        bw_dev_kib: opt_f64(v, "bw_dev", at)?.filter(|x| x.is_finite()),
        bw_samples: opt_u64(v, "bw_samples", at)?,
        slat: lat("slat")?,
        clat: lat("clat")?,
        lat: lat("lat")?,
    })
}

/// A latency block; `scale` turns its unit into ns (1000 for fio 2.x's µs).
fn read_latency(v: Option<&Value>, at: &str, scale: f64) -> Result<Latency, String> {
    let Some(v) = v else {
        return Ok(Latency::default());
    };
    if !v.is_object() {
        return Err(format!("{at}: expected an object"));
    }
    let mut percentiles = Vec::new();
    if let Some(p) = v.get("percentile") {
        let map = p
            .as_object()
            .ok_or_else(|| format!("{at}.percentile: expected an object"))?;
        for (k, val) in map {
            let pct: f64 = k
                .parse()
                .map_err(|_| format!("{at}.percentile: key `{k}` is not a number"))?;
            let ns = val
                .as_f64()
                .ok_or_else(|| format!("{at}.percentile.{k}: expected a number"))?;
            percentiles.push((pct, ns * scale));
        }
    }
    let bins = match v.get("bins") {
        None => None,
        Some(b) => {
            let map = b
                .as_object()
                .ok_or_else(|| format!("{at}.bins: expected an object"))?;
            let mut bins = Vec::with_capacity(map.len());
            for (k, val) in map {
                let ns: u64 = k
                    .parse()
                    .map_err(|_| format!("{at}.bins: key `{k}` is not a whole number"))?;
                let count = val
                    .as_u64()
                    .ok_or_else(|| format!("{at}.bins.{k}: expected a count"))?;
                bins.push((ns, count));
            }
            bins.sort_unstable();
            Some(bins)
        }
    };
    Ok(Latency {
        n: opt_u64(v, "N", at)?.unwrap_or(0),
        mean: opt_f64(v, "mean", at)?.unwrap_or(0.0) * scale,
        max: opt_f64(v, "max", at)?.unwrap_or(0.0) * scale,
        percentiles,
        // fio 2.x's json+ bins are indices, not durations: left out.
        bins: bins.filter(|_| scale == 1.0),
    })
}

fn read_options(v: Option<&Value>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(map)) = v {
        for (k, val) in map {
            // Names and options are shown with their control characters visible (the
            // project's rule for every name from an input).
            let s = match val {
                Value::String(s) => visible_name(s).into_owned(),
                other => other.to_string(),
            };
            out.insert(visible_name(k).into_owned(), s);
        }
    }
    out
}

fn opt_f64(v: &Value, key: &str, at: &str) -> Result<Option<f64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{at}.{key}: expected a number, found {}", kind(x))),
    }
}

/// An errno: a whole number (`0.5` is not one, and not success either).
fn opt_i64(v: &Value, key: &str, at: &str) -> Result<Option<i64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match (x.as_i64(), x.as_f64()) {
            (Some(n), _) => Ok(Some(n)),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(Some(f as i64)),
            _ => Err(format!(
                "{at}.{key}: expected a whole number, found {}",
                if x.is_number() {
                    x.to_string()
                } else {
                    kind(x).to_string()
                }
            )),
        },
    }
}

fn opt_u64(v: &Value, key: &str, at: &str) -> Result<Option<u64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match (x.as_u64(), x.as_f64()) {
            (Some(n), _) => Ok(Some(n)),
            (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 => Ok(Some(f as u64)),
            _ => Err(format!(
                "{at}.{key}: expected a whole number, found {}",
                kind(x)
            )),
        },
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
