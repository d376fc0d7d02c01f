//! An oracle for fio's JSON written from fio's documentation, not from the tool's
//! reader: what a document says, read from a `serde_json::Value` in the units the
//! documentation gives, and checked against what the tool's one reader made of the
//! same file. It compares the quantities the suites judge on (per job and direction:
//! runtime, bandwidth, IOPS, I/O, latencies and their percentiles, json+ bins; per
//! reporting group: I/O and runtime), never the reader's own shape.
//!
//! What fio's documentation (HOWTO, "JSON output", "JSON+ output", "Interpreting the
//! output", "Terse output") says, and what each check rests on:
//! - "The `runtime` value is reported in msec and the `bw` value is reported in 1024 bytes
//!   per second units": the bandwidth in bytes/s is `bw` x 1024, to within the KiB that
//!   `bw` is rounded to; `runtime` is milliseconds. fio 3 also writes the bytes per
//!   second themselves (`bw_bytes`): where a file has them, they are the bandwidth.
//! - fio 3 reports latencies in nanoseconds (`clat_ns`, `lat_ns`, `slat_ns`: "completion
//!   latency and json output use nanoseconds", fio 3.0); fio 2's blocks (`clat`, `lat`,
//!   `slat`) are in microseconds, as its normal output's `clat (usec)` and its terse
//!   format's "Completion latency: min, max, mean, stdev (usec)". Percentile keys are
//!   percentages, values latencies in the block's unit.
//! - json+: "Each `bins` object contains a set of (key, value) pairs where keys are
//!   latency durations and values count how many I/Os had completion latencies of the
//!   corresponding duration" (nanoseconds in the documentation's example, fio 3).
//! - fio 2's `io_bytes` is in KiB, as its terse format's "Total IO (KiB)"; fio 3 writes
//!   bytes there and KiB in `io_kbytes` (a file with `io_kbytes` says bytes in `io_bytes`).
//! - "Run status group": a group's I/O is the aggregate of its threads', its runtime the
//!   longest of theirs (checked on the tool's groups against the jobs it read: what the
//!   groups sum, not how a job is read).
//!
//! Finding the documents in a file (text before the JSON, several documents) is the
//! tool's finder ([`fio::find_documents`]), tested on its own with stated answers.

use std::collections::BTreeMap;

use reprobench::output::visible_name;
use reprobench::parse::fio::{self, DirStats, FioOutput, Latency};
use serde_json::Value;

/// One direction of one job as the documentation reads it.
struct Dir {
    at: String,
    runtime_ms: Option<u64>,
    bw_kib: Option<f64>,
    bw_bytes: Option<f64>,
    iops: Option<f64>,
    /// Bytes, where the file says them in a documented unit.
    io_bytes: Option<u64>,
    /// Means and percentiles in ns, by block (`slat`, `clat`, `lat`).
    latency: Vec<(&'static str, Option<f64>, BTreeMap<String, f64>)>,
    bins: Option<BTreeMap<u64, u64>>,
}

/// Checks the tool's reading of `bytes` against the documentation's; `Ok(false)` when
/// the oracle cannot read the final document itself (not JSON, no `jobs`), so there is
/// nothing to compare.
pub fn agrees(bytes: &[u8], tool: &FioOutput) -> Result<bool, String> {
    let Ok(found) = fio::find_documents(bytes) else {
        return Ok(false);
    };
    let Ok(doc) = serde_json::from_slice::<Value>(&bytes[found.from..found.to]) else {
        return Ok(false);
    };
    let Some(jobs) = jobs_of(&doc) else {
        return Ok(false);
    };
    let legacy = doc
        .get("fio version")
        .and_then(Value::as_str)
        .and_then(|v| v.trim_start_matches("fio-").split('.').next())
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|m| m < 3);
    if jobs.len() != tool.jobs.len() {
        return Err(format!(
            "{} jobs in the document, {} read",
            jobs.len(),
            tool.jobs.len()
        ));
    }
    for (i, (j, t)) in jobs.iter().zip(&tool.jobs).enumerate() {
        let name = j.get("jobname").and_then(Value::as_str).map(visible_name);
        if name.as_deref() != Some(t.jobname.as_str()) {
            return Err(format!("job {i}: named {name:?}, read {:?}", t.jobname));
        }
        let gid = whole(j.get("groupid")).unwrap_or(0);
        if gid != t.groupid {
            return Err(format!("job {i}: group {gid}, read {}", t.groupid));
        }
        for (key, dir) in [("read", &t.read), ("write", &t.write), ("trim", &t.trim)] {
            if let Some(v) = j.get(key) {
                let d = read_dir(v, format!("job {i} {key}"), legacy);
                compare(&d, dir)?;
            }
        }
    }
    groups_agree(tool)?;
    Ok(true)
}

/// The documents' jobs: `jobs`, or with `--client` the per-client `client_stats` (less
/// the `All clients` sum, which has no percentiles).
fn jobs_of(doc: &Value) -> Option<Vec<&Value>> {
    if let Some(Value::Array(j)) = doc.get("jobs") {
        return Some(j.iter().collect());
    }
    match doc.get("client_stats") {
        Some(Value::Array(c)) => Some(
            c.iter()
                .filter(|j| j.get("jobname").and_then(Value::as_str) != Some("All clients"))
                .collect(),
        ),
        _ => None,
    }
}

fn read_dir(v: &Value, at: String, legacy: bool) -> Dir {
    let num = |k: &str| v.get(k).and_then(Value::as_f64);
    let io = whole(v.get("io_bytes"));
    let io_bytes = if legacy && v.get("io_kbytes").is_none() {
        // fio 2: KiB.
        io.map(|k| k.saturating_mul(1024))
    } else {
        io
    };
    let mut latency = Vec::new();
    for block in ["slat", "clat", "lat"] {
        // fio 3's nanosecond block, else fio 2's microseconds.
        let (b, scale) = match (v.get(format!("{block}_ns")), v.get(block)) {
            (Some(b), _) => (b, 1.0),
            (None, Some(b)) => (b, 1000.0),
            (None, None) => continue,
        };
        let mean = b.get("mean").and_then(Value::as_f64).map(|m| m * scale);
        let pcts = b
            .get("percentile")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, x)| Some((k.clone(), x.as_f64()? * scale)))
                    .collect()
            })
            .unwrap_or_default();
        latency.push((block, mean, pcts));
    }
    let bins = v
        .get("clat_ns")
        .and_then(|c| c.get("bins"))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, x)| Some((k.parse().ok()?, whole(Some(x))?)))
                .collect()
        });
    Dir {
        at,
        runtime_ms: whole(v.get("runtime")),
        bw_kib: num("bw"),
        bw_bytes: num("bw_bytes"),
        iops: num("iops"),
        io_bytes,
        latency,
        bins,
    }
}

/// A whole number as JSON may write it (`3` or `3.0`).
fn whole(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
            .map(|f| f as u64)
    })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn compare(d: &Dir, t: &DirStats) -> Result<(), String> {
    let at = &d.at;
    if let Some(r) = d.runtime_ms {
        if r != t.runtime_ms {
            return Err(format!("{at}: runtime {r} ms, read {}", t.runtime_ms));
        }
    }
    if let Some(b) = d.bw_bytes {
        if !close(b, t.bw_bytes) {
            return Err(format!("{at}: bw_bytes {b}, read {}", t.bw_bytes));
        }
    } else if let Some(kib) = d.bw_kib {
        // `bw` is the bandwidth in KiB/s, rounded to a whole KiB (fio 3) or exact.
        if (t.bw_bytes - kib * 1024.0).abs() >= 1024.0 {
            return Err(format!("{at}: bw {kib} KiB/s, read {} bytes/s", t.bw_bytes));
        }
    }
    if let Some(iops) = d.iops {
        if !close(iops, t.iops) {
            return Err(format!("{at}: iops {iops}, read {}", t.iops));
        }
    }
    if let Some(io) = d.io_bytes {
        if io != t.io_bytes {
            return Err(format!("{at}: {io} bytes of I/O, read {}", t.io_bytes));
        }
    }
    for (block, mean, pcts) in &d.latency {
        let l: &Latency = match *block {
            "slat" => &t.slat,
            "clat" => &t.clat,
            _ => &t.lat,
        };
        if let Some(m) = mean {
            if !close(*m, l.mean) {
                return Err(format!("{at} {block}: mean {m} ns, read {}", l.mean));
            }
        }
        for (key, ns) in pcts {
            let Ok(pct) = key.parse::<f64>() else {
                continue;
            };
            let read = l
                .percentiles
                .iter()
                .find(|(p, _)| p.to_bits() == pct.to_bits())
                .map(|(_, v)| *v);
            if !read.is_some_and(|r| close(r, *ns) || (r.is_nan() && ns.is_nan())) {
                return Err(format!(
                    "{at} {block}: {key}th percentile {ns} ns, read {read:?}"
                ));
            }
        }
    }
    if let Some(bins) = &d.bins {
        let read: Option<BTreeMap<u64, u64>> = t.clat.bins.as_ref().map(|b| {
            let mut m = BTreeMap::new();
            for (ns, n) in b {
                *m.entry(*ns).or_default() += n;
            }
            m
        });
        if read.as_ref() != Some(bins) {
            return Err(format!(
                "{at}: {} json+ bins, read {:?}",
                bins.len(),
                read.map(|r| r.len())
            ));
        }
    }
    Ok(())
}

/// A reporting group's I/O is its jobs' sum and its runtime the longest of theirs.
fn groups_agree(tool: &FioOutput) -> Result<(), String> {
    for g in reprobench::fio::groups::groups(tool) {
        let jobs: Vec<_> = tool
            .jobs
            .iter()
            .filter(|j| j.groupid == g.groupid)
            .collect();
        for (name, dir, of) in [
            (
                "read",
                &g.read,
                (|j: &fio::FioJob| j.read.clone()) as fn(&_) -> _,
            ),
            ("write", &g.write, |j: &fio::FioJob| j.write.clone()),
        ] {
            let io: u64 = jobs.iter().map(|j| of(j).io_bytes).sum();
            let run = jobs.iter().map(|j| of(j).runtime_ms).max().unwrap_or(0);
            if (dir.io_bytes, dir.runtime_ms) != (io, run) {
                return Err(format!(
                    "group {} {name}: {io} bytes in {run} ms by its jobs, the group says {} in {}",
                    g.groupid, dir.io_bytes, dir.runtime_ms
                ));
            }
        }
    }
    Ok(())
}
