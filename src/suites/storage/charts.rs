//! The storage suite's charts: headline bandwidth beside the published bars, and latency
//! against queue depth for each workload the arrays both ran at several depths.

use std::collections::BTreeMap;

use crate::model::chart::{Chart, Kind, Series};

use super::judge::{find_workload, mb_s, Sides};
use super::load::RunGroup;
use super::reference::Reference;
use crate::model::units::format_size;

pub fn charts(groups: &[RunGroup], sides: &Sides, reference: &Reference) -> Vec<Chart> {
    let mut out = vec![bandwidth(groups, sides, reference)];
    out.extend(latency_vs_depth(groups, sides));
    out.retain(Chart::has_data);
    out
}

fn bandwidth(groups: &[RunGroup], sides: &Sides, reference: &Reference) -> Chart {
    let w = &reference.workload;
    let measured = |array: &str| Series {
        name: array.to_string(),
        values: w
            .iter()
            .map(|w| find_workload(groups, array, w).0.map(mb_s))
            .collect(),
        published: false,
        spread: Vec::new(),
    };
    Chart {
        id: "storage-bandwidth".into(),
        title: "Headline workloads: bandwidth, measured and published".into(),
        kind: Kind::Bar,
        x_label: "workload".into(),
        y_label: "MB/s".into(),
        categories: w.iter().map(|w| w.id.clone()).collect(),
        series: vec![
            measured(&sides.baseline),
            measured(&sides.candidate),
            Series {
                name: format!("{} published", reference.arrays.baseline),
                values: w.iter().map(|w| Some(w.baseline_mb_s)).collect(),
                published: true,
                spread: Vec::new(),
            },
            Series {
                name: format!("{} published", reference.arrays.candidate),
                values: w.iter().map(|w| Some(w.candidate_mb_s)).collect(),
                published: true,
                spread: Vec::new(),
            },
        ],
        lines: Vec::new(),
    }
}

/// Mean latency in us of (baseline, candidate) at one queue depth.
type LatencyPair = (Option<f64>, Option<f64>);

/// Mean latency (us) against queue depth, one chart per rw + block size with at least
/// two depths, at most three charts.
fn latency_vs_depth(groups: &[RunGroup], sides: &Sides) -> Vec<Chart> {
    // (rw, bs) -> qd -> (baseline us, candidate us)
    let mut by: BTreeMap<(String, u64), BTreeMap<u64, LatencyPair>> = BTreeMap::new();
    for g in groups.iter().filter(|g| g.group.error == 0) {
        let Some(bs) = g.signature.bs else { continue };
        let lat = [&g.group.read, &g.group.write]
            .iter()
            .filter(|d| d.total_ios > 0)
            .filter_map(|d| d.mean_lat_ns)
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
            .map(|ns| ns / 1000.0);
        let slot = by
            .entry((g.signature.rw.clone(), bs))
            .or_default()
            .entry(g.signature.queue_depth())
            .or_default();
        if g.run.array.eq_ignore_ascii_case(&sides.baseline) {
            slot.0 = slot.0.or(lat);
        } else if g.run.array.eq_ignore_ascii_case(&sides.candidate) {
            slot.1 = slot.1.or(lat);
        }
    }
    by.into_iter()
        .filter(|(_, qds)| qds.len() >= 2)
        .take(3)
        .map(|((rw, bs), qds)| Chart {
            id: format!("storage-latency-{rw}-{}", format_size(bs)),
            title: format!("{rw} {}: mean latency against queue depth", format_size(bs)),
            kind: Kind::Line,
            x_label: "queue depth (numjobs x iodepth)".into(),
            y_label: "mean latency (us)".into(),
            categories: qds.keys().map(|q| q.to_string()).collect(),
            series: vec![
                Series {
                    name: sides.baseline.clone(),
                    values: qds.values().map(|v| v.0).collect(),
                    published: false,
                    spread: Vec::new(),
                },
                Series {
                    name: sides.candidate.clone(),
                    values: qds.values().map(|v| v.1).collect(),
                    published: false,
                    spread: Vec::new(),
                },
            ],
            lines: Vec::new(),
        })
        .collect()
}

/// One array's run of a workload: its name, MB/s and mean %util per second.
type ArraySeries<'a> = (&'a str, Vec<f64>, Vec<Option<f64>>);

/// Each headline workload over time: the member drives' MB/s in every iostat sample of
/// both arrays' runs, on one axis (seconds since the job's first sample), with %util.
pub fn over_time(
    loaded: &super::load::Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Vec<Chart> {
    let mut out = Vec::new();
    for w in &reference.workload {
        let runs: Vec<ArraySeries> = [&sides.baseline, &sides.candidate]
            .into_iter()
            .filter_map(|array| {
                let g = find_workload(groups, array, w).0?;
                let (mb, _) = super::steady::series(loaded, g)?;
                let util = super::steady::util_series(loaded, g).unwrap_or_default();
                Some((array.as_str(), mb, util))
            })
            .collect();
        let n = runs.iter().map(|r| r.1.len()).max().unwrap_or(0);
        if n < 2 {
            continue;
        }
        let categories: Vec<String> = (1..=n).map(|s| s.to_string()).collect();
        let pad = |v: Vec<Option<f64>>| {
            let mut v = v;
            v.resize(n, None);
            v
        };
        let bw = Chart {
            id: format!("storage-{}-per-second", w.id),
            title: format!("{} over time: the member drives' MB/s per second", w.title),
            kind: Kind::Line,
            x_label: "iostat sample (s)".into(),
            y_label: "MB/s".into(),
            categories: categories.clone(),
            series: runs
                .iter()
                .map(|(array, mb, _)| Series {
                    name: array.to_string(),
                    values: pad(mb.iter().map(|v| Some(*v)).collect()),
                    published: false,
                    spread: Vec::new(),
                })
                .collect(),
            lines: Vec::new(),
        };
        let util = Chart {
            id: format!("storage-{}-util", w.id),
            title: format!("{} over time: the member drives' mean %util", w.title),
            kind: Kind::Line,
            x_label: "iostat sample (s)".into(),
            y_label: "%util".into(),
            categories,
            series: runs
                .iter()
                .map(|(array, _, util)| Series {
                    name: array.to_string(),
                    values: pad(util.clone()),
                    published: false,
                    spread: Vec::new(),
                })
                .collect(),
            lines: Vec::new(),
        };
        out.push(bw);
        out.push(util);
    }
    out.retain(Chart::has_data);
    out
}
