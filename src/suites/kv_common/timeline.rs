//! A ladder level over time, from the collector's `/metrics` series: the KV cache usage,
//! the running and waiting requests, and the prefix-cache hit rates between one scrape
//! and the next (GPU and external, as the hit-rate columns are computed from the
//! snapshots). Time is seconds since the level's first scrape.

use serde::Serialize;

use crate::parse::prom::Snapshot;
use crate::parse::prom_series::PromSeries;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub t_s: f64,
    /// `vllm:kv_cache_usage_perc` (a fraction in vLLM) as percent, averaged over engines.
    pub kv_usage_pct: Option<f64>,
    pub running: Option<f64>,
    pub waiting: Option<f64>,
    /// Since the previous scrape.
    pub gpu_hit_pct: Option<f64>,
    pub card_hit_pct: Option<f64>,
}

fn mean_of(s: &Snapshot, names: &[&str]) -> Option<f64> {
    names.iter().find_map(|n| {
        let v: Vec<f64> = s
            .samples()
            .filter(|x| x.name == *n && x.value.is_finite())
            .map(|x| x.value)
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    })
}

fn rate(a: &Snapshot, b: &Snapshot, tier: &str) -> Option<f64> {
    let (queries, hits) = super::names::tier(tier);
    let (queries, hits) = (super::names::metric(queries), super::names::metric(hits));
    let q = b.sum_any(&queries)? - a.sum_any(&queries)?;
    let h = b.sum_any(&hits)? - a.sum_any(&hits)?;
    (q > 0.0 && h >= 0.0).then(|| 100.0 * h / q)
}

/// The level's points, one per scrape that answered.
pub fn points(series: &PromSeries) -> Vec<Point> {
    let Some(t0) = series.scrapes.first().map(|s| s.at_s) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut previous: Option<&Snapshot> = None;
    for s in series.scrapes.iter().filter(|s| !s.snapshot.is_empty()) {
        let snap = &s.snapshot;
        out.push(Point {
            t_s: s.at_s - t0,
            kv_usage_pct: mean_of(snap, &super::names::metric("KV cache usage")).map(|f| f * 100.0),
            running: snap.sum_any(&super::names::metric("requests running")),
            waiting: snap.sum_any(&super::names::metric("requests waiting")),
            gpu_hit_pct: previous.and_then(|p| rate(p, snap, "")),
            card_hit_pct: previous.and_then(|p| rate(p, snap, "external_")),
        });
        previous = Some(snap);
    }
    out
}

/// The GPUs at one moment: mean utilization and memory in use, over the GPUs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuPoint {
    pub t_s: f64,
    pub util_pct: Option<f64>,
    pub memory_pct: Option<f64>,
}

/// One point per sampling moment (nvidia-smi writes every GPU's line with one time).
pub fn gpu_points(s: &crate::parse::gpu_csv::GpuSeries) -> Vec<GpuPoint> {
    let mut out: Vec<GpuPoint> = Vec::new();
    let mut at = 0;
    while at < s.samples.len() {
        let t = s.samples[at].t_s;
        let same: Vec<&crate::parse::gpu_csv::Sample> = s.samples[at..]
            .iter()
            .take_while(|x| (x.t_s - t).abs() < 0.5)
            .collect();
        at += same.len();
        let util: Vec<f64> = same.iter().filter_map(|x| x.util_pct).collect();
        let used: f64 = same.iter().filter_map(|x| x.memory_used_mib).sum();
        let total: f64 = same.iter().filter_map(|x| x.memory_total_mib).sum();
        out.push(GpuPoint {
            t_s: t,
            util_pct: (!util.is_empty()).then(|| util.iter().sum::<f64>() / util.len() as f64),
            memory_pct: (total > 0.0).then(|| 100.0 * used / total),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_from_scrapes() {
        let text = "# scrape 1000\nvllm:kv_cache_usage_perc{engine=\"0\"} 0.2\nvllm:num_requests_running{engine=\"0\"} 2\nvllm:prefix_cache_queries_total{engine=\"0\"} 100\nvllm:prefix_cache_hits_total{engine=\"0\"} 50\n# scrape 1005\n# scrape 1010\nvllm:kv_cache_usage_perc{engine=\"0\"} 0.9\nvllm:num_requests_waiting{engine=\"0\"} 3\nvllm:prefix_cache_queries_total{engine=\"0\"} 300\nvllm:prefix_cache_hits_total{engine=\"0\"} 100\n";
        let s = crate::parse::prom_series::parse_bytes(text.as_bytes()).expect("series");
        let p = points(&s);
        assert_eq!(p.len(), 2, "the unanswered scrape is a gap");
        assert_eq!(p[0].kv_usage_pct, Some(20.0));
        assert_eq!(p[0].running, Some(2.0));
        assert_eq!(p[0].gpu_hit_pct, None, "no rate before a second scrape");
        assert_eq!(p[1].t_s, 10.0);
        assert_eq!(p[1].gpu_hit_pct, Some(25.0));
        assert_eq!(p[1].card_hit_pct, None, "no external counters");
        assert_eq!(p[1].waiting, Some(3.0));
    }
}
