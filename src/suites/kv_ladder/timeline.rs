//! Test 2 over time: per level, the collector's `/metrics` series of every variant's
//! first run on one axis (seconds since the level's first scrape): the KV cache usage
//! with the hit rates, and the requests waiting.

use super::*;
use crate::suites::kv_common::timeline::Point;

/// The levels' first run of each of test 2's variants, with a series.
fn firsts(levels: &[Level], clients: u32, has: fn(&Level) -> bool) -> Vec<&Level> {
    let mut out: Vec<&Level> = Vec::new();
    for l in levels
        .iter()
        .filter(|l| l.clients == clients && has(l) && (l.variant == ADP || l.variant == PLAIN))
    {
        if !out.iter().any(|o| o.variant == l.variant) {
            out.push(l);
        }
    }
    out
}

/// Seconds between scrapes: the median gap over the levels given.
fn interval(levels: &[&Level]) -> f64 {
    let gaps: Vec<f64> = levels
        .iter()
        .flat_map(|l| l.timeline.windows(2).map(|w| w[1].t_s - w[0].t_s))
        .filter(|g| *g > 0.0)
        .collect();
    median(&gaps).unwrap_or(1.0).max(0.001)
}

fn line(
    levels: &[&Level],
    step: f64,
    buckets: usize,
    name: impl Fn(&Level) -> String,
    value: fn(&Point) -> Option<f64>,
) -> Vec<Series> {
    levels
        .iter()
        .map(|l| {
            let mut values = vec![None; buckets];
            for p in &l.timeline {
                let b = (p.t_s / step).round() as usize;
                if b < buckets {
                    values[b] = value(p).or(values[b]);
                }
            }
            Series {
                name: name(l),
                values,
                published: false,
                spread: Vec::new(),
            }
        })
        .filter(|s| s.values.iter().any(Option::is_some))
        .collect()
}

pub(super) fn charts(levels: &[Level]) -> Vec<Chart> {
    let mut clients: Vec<u32> = levels
        .iter()
        .filter(|l| !l.timeline.is_empty() || !l.gpus.is_empty())
        .map(|l| l.clients)
        .collect();
    clients.sort_unstable();
    clients.dedup();
    let mut out: Vec<Chart> = Vec::new();
    for n in clients {
        out.extend(level_charts(
            &firsts(levels, n, |l| !l.timeline.is_empty()),
            n,
        ));
        out.extend(gpu_chart(&firsts(levels, n, |l| !l.gpus.is_empty()), n));
    }
    out.retain(Chart::has_data);
    out
}

type GpuValue = fn(&crate::suites::kv_common::timeline::GpuPoint) -> Option<f64>;

/// One series per level: `what` of its GPU points, per second.
fn gpu_series(here: &[&Level], buckets: usize, what: &str, f: GpuValue) -> Vec<Series> {
    here.iter()
        .map(|l| {
            let mut values = vec![None; buckets];
            for p in &l.gpus {
                if let Some(v) = values.get_mut(p.t_s.round() as usize) {
                    *v = f(p).or(*v);
                }
            }
            Series {
                name: format!("{} {what}", l.variant),
                values,
                published: false,
                spread: Vec::new(),
            }
        })
        .collect()
}

/// The GPUs during one level, from the nvidia-smi series: utilization and memory in
/// use, each variant's first run, per second.
fn gpu_chart(here: &[&Level], n: u32) -> Option<Chart> {
    let end = here
        .iter()
        .flat_map(|l| l.gpus.iter().map(|p| p.t_s))
        .fold(0.0f64, f64::max);
    let buckets = end.round() as usize + 1;
    if here.is_empty() || buckets > 20_000 {
        return None;
    }
    let series = |what: &str, f: GpuValue| gpu_series(here, buckets, what, f);
    Some(Chart {
        id: format!("kv-ladder-L{n}-gpus"),
        title: format!(
            "{} over time: GPU utilization and memory (nvidia-smi, first run of each variant)",
            clients(n)
        ),
        kind: Kind::Line,
        x_label: "seconds into the level".into(),
        y_label: "%".into(),
        categories: (0..buckets).map(|b| b.to_string()).collect(),
        series: series("GPU util", |p| p.util_pct)
            .into_iter()
            .chain(series("GPU memory", |p| p.memory_pct))
            .collect(),
        lines: Vec::new(),
    })
}

/// One level's two charts: usage with the hit rates, and the requests.
fn level_charts(here: &[&Level], n: u32) -> Vec<Chart> {
    let step = interval(here);
    let end = here
        .iter()
        .flat_map(|l| l.timeline.iter().map(|p| p.t_s))
        .fold(0.0f64, f64::max);
    let buckets = (end / step).round() as usize + 1;
    if buckets > 2000 {
        return Vec::new();
    }
    let categories: Vec<String> = (0..buckets)
        // Axis labels are numbers a reader of the chart's data parses: ungrouped.
        .map(|b| phrase!("{}", crate::model::phrase::printed(b as f64 * step, 0)).to_string())
        .collect();
    let mut usage = line(
        here,
        step,
        buckets,
        |l| format!("{} KV cache usage", l.variant),
        |p| p.kv_usage_pct,
    );
    usage.extend(line(
        here,
        step,
        buckets,
        |l| {
            if l.variant == PLAIN {
                format!("{} GPU hit", l.variant)
            } else {
                format!("{} card hit", l.variant)
            }
        },
        |p| p.card_hit_pct.or(p.gpu_hit_pct),
    ));
    let queue: Vec<Series> = line(
        here,
        step,
        buckets,
        |l| format!("{} waiting", l.variant),
        |p| p.waiting,
    )
    .into_iter()
    .chain(line(
        here,
        step,
        buckets,
        |l| format!("{} running", l.variant),
        |p| p.running,
    ))
    .collect();
    let chart = |id: &str, title: String, y: &str, series: Vec<Series>| Chart {
        id: format!("kv-ladder-L{n}-{id}"),
        title,
        kind: Kind::Line,
        x_label: "seconds into the level".into(),
        y_label: y.into(),
        categories: categories.clone(),
        series,
        lines: Vec::new(),
    };
    let mut out = chart(
        "usage",
        format!(
            "{} over time: KV cache usage and hit rates (first run of each variant)",
            clients(n)
        ),
        "%",
        usage,
    )
    .split();
    out.extend(
        chart(
            "requests",
            format!("{} over time: requests running and waiting", clients(n)),
            "requests",
            queue,
        )
        .split(),
    );
    out
}

/// `1 client`, `16 clients`.
fn clients(n: u32) -> String {
    if n == 1 {
        "1 client".into()
    } else {
        format!("{n} clients")
    }
}
