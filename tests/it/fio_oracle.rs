//! The Value-based fio reader the tool had before its one typed reader, kept here as an
//! independent oracle: wherever both read a file, the tool's reader must give what this
//! one gives (on every fixture, sample and fuzzed file).

#![allow(dead_code)]

use reprobench::output::visible_name;
use std::collections::BTreeMap;

use reprobench::error::Problem;
use reprobench::parse::fio::{DirStats, DiskUtil, FioJob, FioOutput, Latency};
use reprobench::parse::text::line_starts;
use serde_json::Value;

/// The general reader: text around the documents, several documents, and the line and
/// field of any problem.
pub fn read_general(bytes: &[u8]) -> Result<FioOutput, Problem> {
    let mut docs: Vec<(usize, Value)> = Vec::new();
    let mut text_before = Vec::new();
    let mut text_after = false;
    let mut first_error: Option<Problem> = None;
    let mut resume_at = 0usize;
    let mut signal: Option<String> = None;
    for (idx, start) in line_starts(bytes).into_iter().enumerate() {
        if start < resume_at {
            continue;
        }
        let line_no = idx + 1;
        let rest = &bytes[start..];
        let line = first_line(rest);
        if line.trim_start().starts_with('{') {
            let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
            match stream.next() {
                Some(Ok(value)) => {
                    resume_at = start + stream.byte_offset();
                    docs.push((line_no, value));
                    text_after = false;
                    continue;
                }
                Some(Err(e)) if first_error.is_none() => {
                    let at = line_no + e.line().saturating_sub(1);
                    let what = if e.is_eof() {
                        "truncated JSON: the file ends inside the document".to_string()
                    } else {
                        format!("invalid JSON: {}", strip_position(&e.to_string()))
                    };
                    first_error = Some(Problem::at(at, what));
                }
                Some(Err(_)) => {}
                None => {}
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        if signal.is_none() && line.trim().starts_with("fio: terminating on signal") {
            signal = Some(line.trim().to_string());
        }
        if docs.is_empty() {
            text_before.push(line.trim_end().to_string());
        } else {
            text_after = true;
        }
    }
    let fio_docs: Vec<&(usize, Value)> = docs.iter().filter(|(_, v)| is_fio(v)).collect();
    let Some((line, doc)) = fio_docs.last() else {
        if let Some(err) = first_error {
            return Err(err);
        }
        if let Some((line, _)) = docs.first() {
            return Err(Problem::at(
                *line,
                "valid JSON, but not fio output (no `jobs` array)",
            ));
        }
        return Err(match text_before.first() {
            Some(first) => Problem::at(
                1,
                format!(
                    "no fio JSON in this file; it starts with: {}",
                    clip(first, 120)
                ),
            ),
            None => Problem::whole("empty file"),
        });
    };
    // A broken document after the last complete one: fio was stopped while writing
    // (a cut-off `--status-interval` dump). The complete one is kept and the cut said.
    let broken_tail = first_error
        .filter(|e| e.line.is_some_and(|l| l > *line))
        .map(|e| format!("line {}: {}", e.line.unwrap_or(0), e.reason));
    let separate_runs = fio_docs[..fio_docs.len() - 1]
        .iter()
        .filter_map(|(l, earlier)| separate_run(earlier, doc).map(|why| (*l, why)))
        .collect();
    read_document(doc, *line).map(|mut out| {
        out.broken_tail = broken_tail;
        out.signal = signal;
        out.separate_runs = separate_runs;
        out.documents = fio_docs.len();
        out.text_before = text_before;
        out.text_after = text_after;
        out
    })
}

/// Why `earlier` is not a status report of the run `last` ends (`--status-interval`
/// writes the same jobs with the same options and a rising runtime), or None when it is.
fn separate_run(earlier: &Value, last: &Value) -> Option<String> {
    let jobs = |d: &Value| -> Vec<(String, String)> {
        let list = d
            .get("jobs")
            .or_else(|| d.get("client_stats"))
            .and_then(Value::as_array);
        list.map(|l| {
            l.iter()
                .map(|j| {
                    let name = j
                        .get("jobname")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    let opts = j
                        .get("job options")
                        .map(Value::to_string)
                        .unwrap_or_default();
                    (name, opts)
                })
                .collect()
        })
        .unwrap_or_default()
    };
    let (a, b) = (jobs(earlier), jobs(last));
    if a.iter().map(|x| &x.0).ne(b.iter().map(|x| &x.0)) {
        return Some("other job names".into());
    }
    if a != b || earlier.get("global options") != last.get("global options") {
        return Some("other options".into());
    }
    let runtime = |d: &Value| -> u64 {
        d.get("jobs")
            .or_else(|| d.get("client_stats"))
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .map(|j| {
                        ["read", "write", "trim"]
                            .iter()
                            .filter_map(|k| j.get(*k)?.get("runtime")?.as_u64())
                            .max()
                            .unwrap_or(0)
                            .max(j.get("job_runtime").and_then(Value::as_u64).unwrap_or(0))
                    })
                    .sum()
            })
            .unwrap_or(0)
    };
    let (ra, rb) = (runtime(earlier), runtime(last));
    (ra > rb).then(|| format!("its runtime ({ra} ms) is above the final document's ({rb} ms)"))
}

fn is_fio(v: &Value) -> bool {
    v.get("jobs").is_some_and(Value::is_array) || v.get("client_stats").is_some_and(Value::is_array)
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

fn first_line(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// serde_json appends " at line L column C" relative to where we started; we give our own.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
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
