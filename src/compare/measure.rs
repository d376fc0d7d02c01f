//! Measurements read off an analysis' frames, keyed so that the two sides of a comparison
//! (or the inputs of a trend) match: suite, subject (array and job shape, variant and
//! level), metric. Each keeps the direction that is better and what the files say about
//! its noise.

use polars_core::prelude::{DataFrame, DataType};
use serde::Serialize;

use crate::analysis::Analysis;
use crate::fio::signature::format_size;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Better {
    Higher,
    Lower,
}

/// One number of one input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    pub suite: String,
    /// What was measured: `raid10 · randwrite 8k × 8 jobs × QD 8`, `adp · 16 clients`.
    pub subject: String,
    pub metric: String,
    pub unit: String,
    pub better: Better,
    pub value: f64,
    /// Relative noise of this one number, when its own file gives it (fio's bandwidth
    /// stddev; the spread of repeated requests), with what it is.
    pub noise: Option<(f64, String)>,
    pub input: String,
    pub file: String,
}

/// Typed access to a frame's cells.
struct View<'a>(&'a DataFrame);

impl View<'_> {
    fn height(&self) -> usize {
        self.0.height()
    }

    fn s(&self, c: &str, i: usize) -> Option<String> {
        self.0
            .column(c)
            .ok()?
            .str()
            .ok()?
            .get(i)
            .map(str::to_string)
    }

    fn f(&self, c: &str, i: usize) -> Option<f64> {
        let col = self.0.column(c).ok()?;
        let v = match col.dtype() {
            DataType::Float64 => col.f64().ok()?.get(i),
            DataType::UInt64 => col.u64().ok()?.get(i).map(|v| v as f64),
            DataType::Int64 => col.i64().ok()?.get(i).map(|v| v as f64),
            _ => None,
        };
        v.filter(|x| x.is_finite())
    }

    fn b(&self, c: &str, i: usize) -> Option<bool> {
        self.0.column(c).ok()?.bool().ok()?.get(i)
    }
}

/// (column, metric, unit, better).
type Metric = (&'static str, &'static str, &'static str, Better);

const LADDER_METRICS: &[Metric] = &[
    ("output_tok_s", "output throughput", "tok/s", Better::Higher),
    ("ttft_p50_s", "TTFT p50", "s", Better::Lower),
    ("gen_tok_s", "generation rate", "tok/s", Better::Higher),
    ("gpu_hit_pct", "GPU hit rate", "%", Better::Higher),
    ("card_hit_pct", "card hit rate", "%", Better::Higher),
];

const SPDK_METRICS: &[Metric] = &[
    ("iops", "IOPS", "IO/s", Better::Higher),
    ("gb_s", "bandwidth", "GB/s", Better::Higher),
    ("read_avg_lat_us", "mean read latency", "µs", Better::Lower),
    ("read_p999_us", "p99.9 read latency", "µs", Better::Lower),
];

/// One frame row and what its samples are about.
struct Row<'a> {
    v: &'a View<'a>,
    i: usize,
    suite: &'a str,
    subject: &'a str,
    input: &'a str,
    file: &'a str,
}

impl Row<'_> {
    /// A sample per metric whose column holds a value that `keep` accepts.
    fn push_all(&self, metrics: &[Metric], keep: impl Fn(f64) -> bool, out: &mut Vec<Sample>) {
        for (col, metric, unit, better) in metrics {
            if let Some(value) = self.v.f(col, self.i).filter(|x| keep(*x)) {
                out.push(Sample {
                    suite: self.suite.into(),
                    subject: self.subject.into(),
                    metric: (*metric).into(),
                    unit: (*unit).into(),
                    better: *better,
                    value,
                    noise: None,
                    input: self.input.into(),
                    file: self.file.into(),
                });
            }
        }
    }
}

fn frame<'a>(a: &'a Analysis, name: &str) -> Option<View<'a>> {
    a.frames
        .iter()
        .find(|f| f.name == name)
        .map(|f| View(&f.df))
}

/// Every measurement the analysis' frames hold. Needs the record frames
/// ([`Analysis::with_record_frames`]).
pub fn samples(a: &Analysis) -> Vec<Sample> {
    let mut out = Vec::new();
    storage(a, &mut out);
    ladder(a, &mut out);
    restores(a, &mut out);
    spdk(a, &mut out);
    out
}

fn shape(rw: &str, bs: f64, jobs: f64, depth: f64, mix: Option<f64>) -> String {
    let mix = match mix {
        Some(m) if rw.contains("rw") => format!(" ({m:.0}% reads)"),
        _ => String::new(),
    };
    format!(
        "{rw}{mix} {} × {jobs:.0} jobs × QD {depth:.0}",
        format_size(bs as u64)
    )
}

/// A fio job's array (from `array_col`), rw, block size, jobs, queue depth and file.
type Job = (String, String, f64, f64, f64, String);

fn job(v: &View, array_col: &str, i: usize) -> Option<Job> {
    Some((
        v.s(array_col, i)?,
        v.s("rw", i)?,
        v.f("bs_bytes", i)?,
        v.f("numjobs", i)?,
        v.f("iodepth", i)?,
        v.s("file", i)?,
    ))
}

fn storage(a: &Analysis, out: &mut Vec<Sample>) {
    let Some(v) = frame(a, "fio_groups") else {
        return;
    };
    for i in 0..v.height() {
        if v.s("suite", i).as_deref() != Some("storage")
            || v.f("error", i) != Some(0.0)
            || v.b("interrupted", i) == Some(true)
            || v.s("job", i).as_deref() == Some("precondition")
        {
            continue;
        }
        let Some((array, rw, bs, jobs, depth, file)) = job(&v, "array", i) else {
            continue;
        };
        let subject = format!(
            "{array} · {}",
            shape(&rw, bs, jobs, depth, v.f("rwmixread", i))
        );
        let (rb, wb) = (
            v.f("read_bw_bytes", i).unwrap_or(0.0),
            v.f("write_bw_bytes", i).unwrap_or(0.0),
        );
        let writes = wb > rb;
        let sd = if writes {
            v.f("write_bw_rel_sd", i)
        } else {
            v.f("read_bw_rel_sd", i)
        };
        let noise = sd.map(|s| (s, "fio's bandwidth stddev (bw_dev / bw_mean)".to_string()));
        let mut push =
            |metric: &str, unit: &str, better, value: Option<f64>, noise: Option<(f64, String)>| {
                if let Some(value) = value {
                    out.push(Sample {
                        suite: "storage".into(),
                        subject: subject.clone(),
                        metric: metric.into(),
                        unit: unit.into(),
                        better,
                        value,
                        noise,
                        input: a.input.clone(),
                        file: file.clone(),
                    });
                }
            };
        push(
            "bandwidth",
            "MB/s",
            Better::Higher,
            Some((rb + wb) / 1e6),
            noise.clone(),
        );
        let iops = v.f("read_iops", i).unwrap_or(0.0) + v.f("write_iops", i).unwrap_or(0.0);
        push("IOPS", "IO/s", Better::Higher, Some(iops), noise);
        let p99 = if writes {
            v.f("write_p99_ns", i)
        } else {
            v.f("read_p99_ns", i)
        };
        push(
            if writes {
                "p99 write latency"
            } else {
                "p99 read latency"
            },
            "µs",
            Better::Lower,
            p99.map(|n| n / 1000.0),
            None,
        );
    }
}

fn ladder(a: &Analysis, out: &mut Vec<Sample>) {
    let Some(v) = frame(a, "ladder_levels") else {
        return;
    };
    for i in 0..v.height() {
        let (Some(variant), Some(run), Some(clients)) =
            (v.s("variant", i), v.s("run", i), v.f("clients", i))
        else {
            continue;
        };
        // A level whose run failed measures a partial load: it is not compared.
        if v.f("failures", i).unwrap_or(0.0) > 0.0 || v.s("died", i).is_some_and(|d| !d.is_empty())
        {
            continue;
        }
        let subject = format!("{variant} · {clients:.0} clients");
        let file = match v.s("prefix", i) {
            Some(p) => format!("{p}-L{clients:.0}.json"),
            None => format!("{variant}-{run}-L{clients:.0}.json"),
        };
        let at = Row {
            v: &v,
            i,
            suite: "kv-ladder",
            subject: &subject,
            input: &a.input,
            file: &file,
        };
        at.push_all(LADDER_METRICS, |_| true, out);
    }
}

fn restores(a: &Analysis, out: &mut Vec<Sample>) {
    let Some(v) = frame(a, "restore_attempts") else {
        return;
    };
    // (suite, variant, file, restore?) -> times
    let mut groups: std::collections::BTreeMap<(String, String, String, bool), Vec<f64>> =
        Default::default();
    for i in 0..v.height() {
        if v.s("failed", i).is_some_and(|f| !f.is_empty()) {
            continue;
        }
        let (Some(suite), Some(variant), Some(file), Some(secs)) = (
            v.s("suite", i),
            v.s("variant", i),
            v.s("file", i),
            v.f("seconds", i),
        ) else {
            continue;
        };
        let restored = v.f("cached_tokens", i).is_some_and(|c| c > 0.0);
        // The ADP transcript's first request writes the prompt: neither a restore nor
        // the plain variant's recompute.
        if !restored && variant != "gpu-only" {
            continue;
        }
        groups
            .entry((suite, variant, file, restored))
            .or_default()
            .push(secs);
    }
    for ((suite, variant, file, restored), times) in groups {
        let median = crate::suites::kv_common::stats::median(&times);
        let Some(m) = median.filter(|m| *m > 0.0) else {
            continue;
        };
        let noise = (times.len() >= 2).then(|| {
            (
                super::range_over(&times, m),
                format!("spread of {} repeated requests", times.len()),
            )
        });
        out.push(Sample {
            suite,
            subject: variant,
            metric: if restored {
                "restore time (median)"
            } else {
                "recompute time (median)"
            }
            .into(),
            unit: "s".into(),
            better: Better::Lower,
            value: m,
            noise,
            input: a.input.clone(),
            file,
        });
    }
}

fn spdk(a: &Analysis, out: &mut Vec<Sample>) {
    let Some(v) = frame(a, "spdk_runs") else {
        return;
    };
    for i in 0..v.height() {
        if v.b("clean", i) != Some(true) {
            continue;
        }
        let Some((dir, rw, bs, jobs, depth, file)) = job(&v, "array_dir", i) else {
            continue;
        };
        let degraded = if v.b("degraded", i) == Some(true) {
            " degraded"
        } else {
            ""
        };
        let subject = format!("{dir}{degraded} · {}", shape(&rw, bs, jobs, depth, None));
        let at = Row {
            v: &v,
            i,
            suite: "spdk-raid",
            subject: &subject,
            input: &a.input,
            file: &file,
        };
        at.push_all(SPDK_METRICS, |x| x > 0.0, out);
    }
}
