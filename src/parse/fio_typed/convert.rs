//! The document read into reprobench's records: jobs, directions, latency blocks and
//! json+ bins, fio 2.x's units scaled, a value of the wrong type named by its field.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use super::document::{Count, Dir, Doc, Job, Lat, Pairs};
use super::scalars::{amount, errno, number, whole};
use crate::error::Problem;
use crate::parse::fio_record::{DirStats, DiskUtil, FioJob, FioOutput, Latency};

/// A json+ block's bins as (ns, count), sorted; the entries collapsed as
/// [`Pairs::collapsed`] does (a key given twice: its last count), without a map: the
/// keys are fio's ascending numbers, so a sort by number is nearly free.
/// A bin as read: (its number, if the key is one; the key; its place; its count).
type Bin<'a> = (Option<u64>, Cow<'a, str>, usize, Option<u64>);

fn bins(p: Pairs<'_, Count>, at: &str) -> Result<Vec<(u64, u64)>, String> {
    let mut entries: Vec<Bin<'_>> = Vec::with_capacity(p.0.len());
    for (place, (k, Count(count))) in p.0.into_iter().enumerate() {
        entries.push((k.parse().ok(), k, place, count));
    }
    // Equal keys side by side, in file order: the last one's count stays, at the first
    // one's place. The first problem in that order is the one named, as when the entries
    // are read one by one.
    entries.sort_by(|a, b| (a.0, &a.1, a.2).cmp(&(b.0, &b.1, b.2)));
    let mut kept: Vec<Bin<'_>> = Vec::with_capacity(entries.len());
    for e in entries {
        match kept.last_mut() {
            Some(last) if last.0 == e.0 && last.1 == e.1 => last.3 = e.3,
            _ => kept.push(e),
        }
    }
    if let Some(bad) = kept
        .iter()
        .filter(|e| e.0.is_none() || e.3.is_none())
        .min_by_key(|e| e.2)
    {
        return Err(match bad.0 {
            None => format!("{at}.bins: key `{}` is not a whole number", bad.1),
            Some(_) => format!("{at}.bins.{}: expected a count", bad.1),
        });
    }
    let mut out: Vec<(u64, u64)> = kept
        .into_iter()
        .filter_map(|(ns, _, _, c)| Some((ns?, c?)))
        .collect();
    out.sort_unstable();
    Ok(out)
}

pub(super) fn convert(doc: Doc, line: usize) -> Result<FioOutput, Problem> {
    let bad = |what: String| Problem::at(line, what);
    // fio 2.x wrote `io_bytes` in KiB, bandwidth only in KiB/s and latencies in µs under
    // `slat`/`clat`/`lat` (fio 3 added `io_kbytes`, `bw_bytes` and the `_ns` blocks).
    let version = doc.version.as_ref().and_then(Value::as_str);
    let legacy = version
        .and_then(|v| v.trim_start_matches("fio-").split('.').next())
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|m| m < 3);
    // `fio --client` writes `client_stats`: one entry per client and job, and with
    // several clients an `All clients` sum without options or percentiles, which is left
    // out: the per-client entries are summed per group as group_reporting would.
    let (key, raw) = match (doc.jobs, doc.client_stats) {
        (Some(j), _) => ("jobs", j),
        (None, Some(c)) => ("client_stats", c),
        _ => return Err(bad("not fio output: no `jobs` array".into())),
    };
    let mut jobs = Vec::with_capacity(raw.len());
    for (i, j) in raw.into_iter().enumerate() {
        if key == "client_stats"
            && j.jobname.as_ref().and_then(Value::as_str) == Some("All clients")
        {
            continue;
        }
        jobs.push(job(j, &format!("{key}[{i}]"), legacy).map_err(bad)?);
    }
    Ok(FioOutput {
        fio_version: version.map(str::to_string),
        timestamp: doc.timestamp.as_ref().and_then(Value::as_i64),
        documents: 1,
        line,
        text_before: Vec::new(),
        text_after: false,
        broken_tail: None,
        global_options: options(doc.global.as_ref()),
        jobs,
        client_stats: key == "client_stats",
        disk_util: disk_util(doc.disk_util.as_ref()),
        signal: None,
        separate_runs: Vec::new(),
    })
}

fn disk_util(v: Option<&Value>) -> Vec<DiskUtil> {
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

/// An options object as strings; a key given twice: the last one wins, as in fio.
fn options(v: Option<&Value>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(map)) = v {
        for (k, val) in map {
            let s = match val {
                Value::String(s) => crate::output::visible_name(s).into_owned(),
                other => other.to_string(),
            };
            out.insert(crate::output::visible_name(k).into_owned(), s);
        }
    }
    out
}

fn job(j: Job, at: &str, legacy: bool) -> Result<FioJob, String> {
    let jobname = match j.jobname {
        // Shown in every output: control characters visible, never obeyed.
        Some(Value::String(s)) => crate::output::visible_name(&s).into_owned(),
        Some(_) => return Err(format!("{at}.jobname: expected a string")),
        None => return Err(format!("{at}: no `jobname`")),
    };
    Ok(FioJob {
        jobname,
        groupid: whole(j.groupid.as_ref(), at, "groupid")?.unwrap_or(0),
        error: errno(j.error.as_ref(), at, "error")?.unwrap_or(0),
        total_err: whole(j.total_err.as_ref(), at, "total_err")?.unwrap_or(0),
        job_options: options(j.options.as_ref()),
        read: dir(j.read, &format!("{at}.read"), legacy)?,
        write: dir(j.write, &format!("{at}.write"), legacy)?,
        trim: dir(j.trim, &format!("{at}.trim"), legacy)?,
        usr_cpu: number(j.usr_cpu.as_ref(), at, "usr_cpu")?.unwrap_or(0.0),
        sys_cpu: number(j.sys_cpu.as_ref(), at, "sys_cpu")?.unwrap_or(0.0),
        job_runtime_ms: whole(j.job_runtime.as_ref(), at, "job_runtime")?.unwrap_or(0),
    })
}

fn dir(d: Option<Dir>, at: &str, legacy: bool) -> Result<DirStats, String> {
    let Some(d) = d else {
        return Ok(DirStats::default());
    };
    let io_bytes = whole(d.io_bytes.as_ref(), at, "io_bytes")?.unwrap_or(0);
    let bw_kib = amount(d.bw.as_ref(), at, "bw")?;
    // The `_ns` blocks when present; fio 2.x's µs blocks scaled to ns otherwise.
    let lat = |ns: Option<Lat>, us: Option<Lat>, name: &str| -> Result<Latency, String> {
        match (ns, us) {
            (Some(b), _) => latency(b, &format!("{at}.{name}_ns"), 1.0),
            (None, Some(b)) => latency(b, &format!("{at}.{name}"), 1000.0),
            (None, None) => Ok(Latency::default()),
        }
    };
    let bw_bytes_given = d.bw_bytes.is_some();
    let ns_latency = d.clat_ns.is_some() || d.lat_ns.is_some();
    let io_given = d.io_bytes.is_some();
    let io_bytes = if legacy && !d.io_kbytes {
        io_bytes.saturating_mul(1024)
    } else {
        io_bytes
    };
    let bw_given = amount(d.bw_bytes.as_ref(), at, "bw_bytes")?;
    let bw_bytes = match bw_given {
        Some(b) => b,
        None => bw_kib.map_or(0.0, |k| k * 1024.0),
    };
    let runtime_ms = whole(d.runtime.as_ref(), at, "runtime")?.unwrap_or(0);
    if io_given && (bw_given.is_some() || bw_kib.is_some()) {
        // fio 2.x wrote the bytes in whole KiB, rounded down: up to 1023 short.
        let short = if legacy && !d.io_kbytes { 1023 } else { 0 };
        fios_own_rate(
            ("bandwidth", "B/s", "io_bytes"),
            bw_bytes,
            io_bytes,
            short,
            runtime_ms,
            at,
        )?;
    }
    let iops = amount(d.iops.as_ref(), at, "iops")?;
    let total_ios = whole(d.total_ios.as_ref(), at, "total_ios")?;
    if let (Some(iops), Some(ios)) = (iops, total_ios) {
        fios_own_rate(("IOPS", "IO/s", "total_ios"), iops, ios, 0, runtime_ms, at)?;
    }
    Ok(DirStats {
        bw_bytes_given,
        ns_latency,
        io_bytes,
        bw_bytes,
        iops: iops.unwrap_or(0.0),
        runtime_ms,
        total_ios: total_ios.unwrap_or(0),
        bw_mean_kib: number(d.bw_mean.as_ref(), at, "bw_mean")?.filter(|x| x.is_finite()),
        bw_dev_kib: number(d.bw_dev.as_ref(), at, "bw_dev")?.filter(|x| x.is_finite()),
        bw_samples: whole(d.bw_samples.as_ref(), at, "bw_samples")?,
        slat: lat(d.slat_ns, d.slat, "slat")?,
        clat: lat(d.clat_ns, d.clat, "clat")?,
        lat: lat(d.lat_ns, d.lat, "lat")?,
    })
}

/// fio computes a direction's rates from its counts and runtime (`bw_bytes = 1000 *
/// io_bytes / runtime` in integers, `bw` that in KiB/s rounded down, `iops = 1000 *
/// total_ios / runtime`): a file whose rate is not that, beyond rounding, has figures
/// that disagree with each other, and its rate is not fio's. `short`: how much the count
/// may be under the true one (fio 2.x's whole KiB). A runtime of 0 (a direction that did
/// not run) has none to check.
fn fios_own_rate(
    (what, unit, count_key): (&str, &str, &str),
    rate: f64,
    count: u64,
    short: u64,
    runtime_ms: u64,
    at: &str,
) -> Result<(), String> {
    if runtime_ms == 0 {
        return Ok(());
    }
    let computed = 1000.0 * count as f64 / runtime_ms as f64;
    // 1% for files written from rounded figures; one unit (a KiB for `bw`), and what a
    // count rounded down can take off the rate, for fio's own rounding.
    let unit_slack = if unit == "B/s" { 1024.0 } else { 1.0 };
    let slack = (0.01 * computed).max(unit_slack + 1000.0 * short as f64 / runtime_ms as f64);
    if (rate - computed).abs() <= slack {
        return Ok(());
    }
    Err(format!(
        "{at}: {what} of {} {unit}, where fio computes {} {unit} from the file's own {count_key} ({count}) and runtime ({runtime_ms} ms): the file's figures disagree, so its {what} is not fio's",
        crate::model::units::three_digits(rate),
        crate::model::units::three_digits(computed),
    ))
}

/// A latency block; `scale` turns its unit into ns (1000 for fio 2.x's µs).
fn latency(b: Lat, at: &str, scale: f64) -> Result<Latency, String> {
    let mut percentiles = Vec::new();
    for (k, val) in b.percentile.map(Pairs::collapsed).unwrap_or_default() {
        let pct: f64 = k
            .parse()
            .map_err(|_| format!("{at}.percentile: key `{k}` is not a number"))?;
        let ns = val
            .as_f64()
            .ok_or_else(|| format!("{at}.percentile.{k}: expected a number"))?;
        percentiles.push((pct, ns * scale));
    }
    let bins = match b.bins {
        None => None,
        Some(p) => Some(bins(p, at)?),
    };
    Ok(Latency {
        n: whole(b.n.as_ref(), at, "N")?.unwrap_or(0),
        mean: number(b.mean.as_ref(), at, "mean")?.unwrap_or(0.0) * scale,
        max: number(b.max.as_ref(), at, "max")?.unwrap_or(0.0) * scale,
        percentiles,
        // fio 2.x's json+ bins are indices, not durations: left out.
        bins: bins.filter(|_| scale == 1.0),
    })
}
