//! The one reader of a fio JSON document: the document's structure read straight into
//! typed records (every field reprobench does not use skipped, not built), its scalar
//! leaves checked one by one so a value of the wrong type is named by its field
//! (`jobs[0].read.iops: expected a number, found a string`). [`super::fio`] finds the
//! documents in a file and maps a problem to its line; this module reads one.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::fio_record::{DirStats, DiskUtil, FioJob, FioOutput, Latency};
use crate::error::Problem;

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

impl<'a, V> Pairs<'a, V> {
    /// The entries with a key given twice collapsed as a JSON object does: the first
    /// one's place, the last one's value. Linear: a json+ block has thousands of bins,
    /// and a search of the entries so far for each one made a file's read quadratic.
    fn collapsed(self) -> Vec<(Cow<'a, str>, V)> {
        let mut out: Vec<(Cow<'a, str>, V)> = Vec::with_capacity(self.0.len());
        let mut place: HashMap<Cow<'a, str>, usize> = HashMap::with_capacity(self.0.len());
        for (k, v) in self.0 {
            match place.entry(k) {
                Entry::Occupied(at) => out[*at.get()].1 = v,
                Entry::Vacant(slot) => {
                    out.push((slot.key().clone(), v));
                    slot.insert(out.len() - 1);
                }
            }
        }
        out
    }
}

/// Whether a key is there at all (a `null` counts).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

#[derive(Deserialize)]
#[serde(expecting = "an object")]
struct Doc<'a> {
    #[serde(rename = "fio version")]
    version: Option<Value>,
    timestamp: Option<Value>,
    #[serde(rename = "global options")]
    global: Option<Value>,
    #[serde(borrow)]
    jobs: Option<Vec<Job<'a>>>,
    #[serde(borrow)]
    client_stats: Option<Vec<Job<'a>>>,
    disk_util: Option<Value>,
}

#[derive(Deserialize)]
#[serde(expecting = "an object")]
struct Job<'a> {
    jobname: Option<Value>,
    groupid: Option<Value>,
    error: Option<Value>,
    #[serde(rename = "job options")]
    options: Option<Value>,
    #[serde(borrow)]
    read: Option<Dir<'a>>,
    #[serde(borrow)]
    write: Option<Dir<'a>>,
    #[serde(borrow)]
    trim: Option<Dir<'a>>,
    usr_cpu: Option<Value>,
    sys_cpu: Option<Value>,
    job_runtime: Option<Value>,
}

#[derive(Deserialize)]
#[serde(expecting = "an object")]
struct Dir<'a> {
    io_bytes: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    io_kbytes: bool,
    bw_bytes: Option<Value>,
    bw: Option<Value>,
    bw_mean: Option<Value>,
    bw_dev: Option<Value>,
    bw_samples: Option<Value>,
    iops: Option<Value>,
    runtime: Option<Value>,
    total_ios: Option<Value>,
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
#[serde(expecting = "an object")]
struct Lat<'a> {
    #[serde(rename = "N")]
    n: Option<Value>,
    mean: Option<Value>,
    max: Option<Value>,
    #[serde(borrow)]
    percentile: Option<Pairs<'a, Value>>,
    #[serde(borrow)]
    bins: Option<Pairs<'a, Count>>,
}

/// A json+ bin's count: a whole number, or None for anything else (read and dropped
/// without building a value: a block has thousands of bins).
struct Count(Option<u64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct C;
        impl<'de> Visitor<'de> for C {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a count")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Count, E> {
                Ok(Count(Some(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Count, E> {
                Ok(Count(u64::try_from(v).ok()))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_unit<E>(self) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Count(None))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Count, M::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Count(None))
            }
        }
        d.deserialize_any(C)
    }
}

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

/// A file that is one fio document and nothing else (the usual case), read without
/// looking for text around it; None for anything else (the caller then finds the
/// documents and maps any problem to its line).
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
    convert(doc, line).ok()
}

/// The document in `slice`, which starts on `line` of its file.
pub fn read_document(slice: &[u8], line: usize) -> Result<FioOutput, Problem> {
    let mut stream = serde_json::Deserializer::from_slice(slice).into_iter::<Doc>();
    match stream.next() {
        Some(Ok(doc)) => convert(doc, line),
        Some(Err(e)) => Err(Problem::at(
            line + e.line().saturating_sub(1),
            super::text::json_message(&e),
        )),
        None => Err(Problem::at(line, "no document")),
    }
}

fn convert(doc: Doc, line: usize) -> Result<FioOutput, Problem> {
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
    let bw_kib = number(d.bw.as_ref(), at, "bw")?;
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
    Ok(DirStats {
        bw_bytes_given,
        ns_latency,
        io_bytes: if legacy && !d.io_kbytes {
            io_bytes.saturating_mul(1024)
        } else {
            io_bytes
        },
        bw_bytes: match number(d.bw_bytes.as_ref(), at, "bw_bytes")? {
            Some(b) => b,
            None => bw_kib.map_or(0.0, |k| k * 1024.0),
        },
        iops: number(d.iops.as_ref(), at, "iops")?.unwrap_or(0.0),
        runtime_ms: whole(d.runtime.as_ref(), at, "runtime")?.unwrap_or(0),
        total_ios: whole(d.total_ios.as_ref(), at, "total_ios")?.unwrap_or(0),
        bw_mean_kib: number(d.bw_mean.as_ref(), at, "bw_mean")?.filter(|x| x.is_finite()),
        bw_dev_kib: number(d.bw_dev.as_ref(), at, "bw_dev")?.filter(|x| x.is_finite()),
        bw_samples: whole(d.bw_samples.as_ref(), at, "bw_samples")?,
        slat: lat(d.slat_ns, d.slat, "slat")?,
        clat: lat(d.clat_ns, d.clat, "clat")?,
        lat: lat(d.lat_ns, d.lat, "lat")?,
    })
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

fn number(v: Option<&Value>, at: &str, key: &str) -> Result<Option<f64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{at}.{key}: expected a number, found {}", kind(x))),
    }
}

/// An errno: a whole number (`0.5` is not one, and not success either).
fn errno(v: Option<&Value>, at: &str, key: &str) -> Result<Option<i64>, String> {
    match v {
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

fn whole(v: Option<&Value>, at: &str, key: &str) -> Result<Option<u64>, String> {
    match v {
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

#[cfg(test)]
mod tests {
    #[test]
    fn anything_unusual_is_left_to_the_document_finder() {
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

    #[test]
    fn a_problem_names_its_field_or_its_line() {
        let doc = "{\"jobs\": [{\"jobname\": \"a\", \"error\": 0.5}]}";
        let e = super::read_document(doc.as_bytes(), 7).expect_err("fractional errno");
        assert_eq!(e.line, Some(7));
        assert_eq!(
            e.reason,
            "jobs[0].error: expected a whole number, found 0.5"
        );
        let doc = "{\"jobs\": [{\"jobname\": \"a\",\n \"read\": 5}]}";
        let e = super::read_document(doc.as_bytes(), 7).expect_err("a number for a block");
        assert_eq!(e.line, Some(8), "{e:?}");
        assert!(e.reason.contains("expected an object"), "{e:?}");
        // A key given twice in a percentile block: the place of the first, the last value.
        let doc = r#"{"jobs": [{"jobname": "a", "read": {"clat_ns": {"percentile": {"99.0": 1, "50.0": 2, "99.0": 3}}}}]}"#;
        let out = super::read_document(doc.as_bytes(), 1).expect("reads");
        assert_eq!(
            out.jobs[0].read.clat.percentiles,
            vec![(99.0, 3.0), (50.0, 2.0)]
        );
    }
}
