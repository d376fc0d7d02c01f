//! The fio parser's fast path: a file that is one fio JSON document and nothing else (the
//! usual case) is read straight into typed records, skipping every field reprobench does
//! not use, instead of through a `serde_json::Value` tree. Anything unusual (text around
//! the document, several documents, a value of the wrong type, a duplicate key, bytes that
//! are not UTF-8) is left to the general reader, which gives the line and field of any
//! problem; both give the same result where both read a file. Fields reprobench does not
//! use are skipped, not checked: damage inside them does not stop this path.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::fio::{DirStats, DiskUtil, FioJob, FioOutput, Latency};

/// A JSON object's entries in file order (keys borrowed where the file allows).
struct Pairs<'a, V>(Vec<(Cow<'a, str>, V)>);

impl<'de: 'a, 'a, V: Deserialize<'de>> Deserialize<'de> for Pairs<'a, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<'a, V>(PhantomData<(&'a (), V)>);
        impl<'de: 'a, 'a, V: Deserialize<'de>> Visitor<'de> for V2<'a, V> {
            type Value = Pairs<'a, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::with_capacity(m.size_hint().unwrap_or(8));
                while let Some((k, v)) = m.next_entry::<Cow<'a, str>, V>()? {
                    out.push((k, v));
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(rename = "fio version", borrow)]
    version: Option<Cow<'a, str>>,
    #[serde(rename = "global options", borrow)]
    global: Option<Pairs<'a, Value>>,
    #[serde(borrow)]
    jobs: Option<Vec<Job<'a>>>,
    #[serde(borrow)]
    client_stats: Option<Vec<Job<'a>>>,
    #[serde(borrow)]
    disk_util: Option<Vec<Pairs<'a, Value>>>,
}

#[derive(Deserialize)]
struct Job<'a> {
    #[serde(borrow)]
    jobname: Option<Cow<'a, str>>,
    groupid: Option<u64>,
    error: Option<i64>,
    #[serde(rename = "job options", borrow)]
    options: Option<Pairs<'a, Value>>,
    #[serde(borrow)]
    read: Option<Dir<'a>>,
    #[serde(borrow)]
    write: Option<Dir<'a>>,
    #[serde(borrow)]
    trim: Option<Dir<'a>>,
    usr_cpu: Option<f64>,
    sys_cpu: Option<f64>,
    job_runtime: Option<u64>,
}

#[derive(Deserialize)]
struct Dir<'a> {
    io_bytes: Option<u64>,
    io_kbytes: Option<IgnoredAny>,
    bw_bytes: Option<f64>,
    bw: Option<f64>,
    bw_mean: Option<f64>,
    bw_dev: Option<f64>,
    iops: Option<f64>,
    runtime: Option<u64>,
    total_ios: Option<u64>,
    #[serde(borrow)]
    slat_ns: Option<Lat<'a>>,
    #[serde(borrow)]
    clat_ns: Option<Lat<'a>>,
    #[serde(borrow)]
    lat_ns: Option<Lat<'a>>,
    #[serde(borrow)]
    slat: Option<Lat<'a>>,
    #[serde(borrow)]
    clat: Option<Lat<'a>>,
    #[serde(borrow)]
    lat: Option<Lat<'a>>,
}

#[derive(Deserialize)]
struct Lat<'a> {
    #[serde(rename = "N")]
    n: Option<u64>,
    mean: Option<f64>,
    max: Option<f64>,
    #[serde(borrow)]
    percentile: Option<Pairs<'a, f64>>,
    #[serde(borrow)]
    bins: Option<Pairs<'a, u64>>,
}

/// The whole file as one fio document, or None for the general reader.
pub fn read(bytes: &[u8]) -> Option<FioOutput> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] != b'{' || std::str::from_utf8(bytes).is_err() {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_slice(&bytes[start..]).into_iter::<Doc>();
    let doc = stream.next()?.ok()?;
    let end = start + stream.byte_offset();
    if !bytes[end..].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let line = 1 + bytes[..start].iter().filter(|&&b| b == b'\n').count();
    let legacy = doc
        .version
        .as_deref()
        .and_then(|v| v.trim_start_matches("fio-").split('.').next())
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|m| m < 3);
    let (client, raw) = match (doc.jobs, doc.client_stats) {
        (Some(j), _) => (false, j),
        (None, Some(c)) => (true, c),
        _ => return None,
    };
    let mut jobs = Vec::with_capacity(raw.len());
    for j in raw {
        if client && j.jobname.as_deref() == Some("All clients") {
            continue;
        }
        jobs.push(job(j, legacy)?);
    }
    Some(FioOutput {
        fio_version: doc.version.map(Cow::into_owned),
        documents: 1,
        line,
        text_before: Vec::new(),
        text_after: false,
        broken_tail: None,
        global_options: options(doc.global),
        jobs,
        disk_util: disk_util(doc.disk_util),
        signal: None,
        separate_runs: Vec::new(),
    })
}

fn disk_util(list: Option<Vec<Pairs<Value>>>) -> Vec<DiskUtil> {
    list.unwrap_or_default()
        .into_iter()
        .filter_map(|d| {
            let name =
                d.0.iter()
                    .find(|(k, _)| k == "name")?
                    .1
                    .as_str()?
                    .to_string();
            let aggregate = d.0.iter().any(|(k, _)| k.starts_with("aggr_"));
            Some(DiskUtil { name, aggregate })
        })
        .collect()
}

fn options(p: Option<Pairs<Value>>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (k, v) in p.map(|p| p.0).unwrap_or_default() {
        let s = match v {
            Value::String(s) => s,
            other => other.to_string(),
        };
        // A key given twice: the last one wins, as in fio.
        out.insert(k.into_owned(), s);
    }
    out
}

fn job(j: Job, legacy: bool) -> Option<FioJob> {
    Some(FioJob {
        jobname: j.jobname?.into_owned(),
        groupid: j.groupid.unwrap_or(0),
        error: j.error.unwrap_or(0),
        job_options: options(j.options),
        read: dir(j.read, legacy)?,
        write: dir(j.write, legacy)?,
        trim: dir(j.trim, legacy)?,
        usr_cpu: j.usr_cpu.unwrap_or(0.0),
        sys_cpu: j.sys_cpu.unwrap_or(0.0),
        job_runtime_ms: j.job_runtime.unwrap_or(0),
    })
}

fn dir(d: Option<Dir>, legacy: bool) -> Option<DirStats> {
    let Some(d) = d else {
        return Some(DirStats::default());
    };
    let io_bytes = d.io_bytes.unwrap_or(0);
    let lat = |ns: Option<Lat>, us: Option<Lat>| -> Option<Latency> {
        match (ns, us) {
            (Some(b), _) => latency(b, 1.0),
            (None, Some(b)) => latency(b, 1000.0),
            (None, None) => Some(Latency::default()),
        }
    };
    Some(DirStats {
        io_bytes: if legacy && d.io_kbytes.is_none() {
            io_bytes.saturating_mul(1024)
        } else {
            io_bytes
        },
        bw_bytes: match d.bw_bytes {
            Some(b) => b,
            None => d.bw.map_or(0.0, |k| k * 1024.0),
        },
        iops: d.iops.unwrap_or(0.0),
        runtime_ms: d.runtime.unwrap_or(0),
        total_ios: d.total_ios.unwrap_or(0),
        bw_mean_kib: d.bw_mean.filter(|x| x.is_finite()),
        bw_dev_kib: d.bw_dev.filter(|x| x.is_finite()),
        slat: lat(d.slat_ns, d.slat)?,
        clat: lat(d.clat_ns, d.clat)?,
        lat: lat(d.lat_ns, d.lat)?,
    })
}

fn latency(b: Lat, scale: f64) -> Option<Latency> {
    let mut percentiles: Vec<(f64, f64)> = Vec::new();
    for (k, v) in b.percentile.map(|p| p.0).unwrap_or_default() {
        let p = k.parse::<f64>().ok()?;
        if percentiles.iter().any(|(q, _)| *q == p) {
            return None; // a key given twice: the general reader decides
        }
        percentiles.push((p, v * scale));
    }
    let bins = match b.bins {
        None => None,
        Some(p) => {
            let mut bins = Vec::with_capacity(p.0.len());
            for (k, count) in p.0 {
                bins.push((k.parse::<u64>().ok()?, count));
            }
            bins.sort_unstable();
            if bins.windows(2).any(|w| w[0].0 == w[1].0) {
                return None;
            }
            Some(bins)
        }
    };
    Some(Latency {
        n: b.n.unwrap_or(0),
        mean: b.mean.unwrap_or(0.0) * scale,
        max: b.max.unwrap_or(0.0) * scale,
        percentiles,
        bins: bins.filter(|_| scale == 1.0),
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "json" || x == "out") {
                out.push(p);
            }
        }
    }

    #[test]
    fn the_fast_path_reads_every_fixture_as_the_general_reader_does() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut all = Vec::new();
        for d in ["tests/fixtures", "samples"] {
            files(&root.join(d), &mut all);
        }
        let mut fast = 0;
        for p in &all {
            let bytes = std::fs::read(p).expect("read");
            let Some(typed) = super::read(&bytes) else {
                continue;
            };
            fast += 1;
            let general = super::super::fio::read_general(&bytes)
                .unwrap_or_else(|e| panic!("{}: {e:?}", p.display()));
            assert_eq!(typed, general, "{}", p.display());
        }
        assert!(fast > 100, "the fast path took {fast} files");
    }

    #[test]
    fn anything_unusual_goes_to_the_general_reader() {
        let doc = r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "error": 0.5}]}"#;
        assert!(super::read(doc.as_bytes()).is_none(), "a fractional errno");
        let two = r#"{"jobs": []} {"jobs": []}"#;
        assert!(super::read(two.as_bytes()).is_none(), "two documents");
        let before = "note: x\n{\"jobs\": []}";
        assert!(super::read(before.as_bytes()).is_none(), "text before");
        let dup = r#"{"jobs": [], "jobs": []}"#;
        assert!(super::read(dup.as_bytes()).is_none(), "a duplicate key");
        let ok = r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "a"}]}"#;
        assert!(super::read(ok.as_bytes()).is_some());
    }
}
