//! The KV ladder's frames: the client's request records and the Prometheus deltas of
//! each level.

use std::collections::BTreeMap;

use crate::ingest::layout::{self, LadderPart};
use crate::ingest::{Catalog, Item, Kind, Record};

use crate::frames::{Frame, FrameBuilder};

/// A ladder file's variant, run and clients.
fn level_keys(rel: &str) -> Option<(String, String, u32, LadderPart)> {
    let (prefix, clients, part) = layout::ladder_file(rel)?;
    let (variant, run) = layout::split_run(prefix);
    Some((variant, run, clients, part))
}

/// One row per request the multi-turn client recorded.
pub(super) fn ladder_requests(catalog: &Catalog) -> anyhow::Result<Option<Frame>> {
    let mut rows = Vec::new();
    for item in catalog.of(Kind::ClientRecords) {
        let Ok(Record::ClientRecords(records)) = &item.record else {
            continue;
        };
        let (variant, run, clients) = match level_keys(&item.rel) {
            Some((v, r, c, _)) => (v, r, Some(c)),
            None => (String::new(), String::new(), None),
        };
        for (i, r) in records.iter().enumerate() {
            rows.push((item, variant.clone(), run.clone(), clients, i, r));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let f = FrameBuilder::new("ladder_requests")
        .str("variant", rows.iter().map(|r| r.1.as_str()))
        .str("run", rows.iter().map(|r| r.2.as_str()))
        .f64("clients", rows.iter().map(|r| r.3.map(f64::from)))
        .str("file", rows.iter().map(|r| r.0.rel.as_str()))
        .count("request", rows.iter().map(|r| r.4 as u64))
        .f64("ttft_ms", rows.iter().map(|r| Some(r.5.ttft_ms)))
        .f64("tpot_ms", rows.iter().map(|r| Some(r.5.tpot_ms)))
        .f64("latency_ms", rows.iter().map(|r| Some(r.5.latency_ms)))
        .f64(
            "start_time_ms",
            rows.iter().map(|r| Some(r.5.start_time_ms)),
        )
        .count("output_tokens", rows.iter().map(|r| r.5.output_num_tokens))
        .f64(
            "input_tokens",
            rows.iter().map(|r| r.5.input_num_tokens.map(|n| n as f64)),
        )
        .f64(
            "client_id",
            rows.iter().map(|r| r.5.client_id.map(|n| n as f64)),
        )
        .str(
            "conversation_id",
            rows.iter()
                .map(|r| r.5.conversation_id.as_deref().unwrap_or("")),
        )
        .build()?;
    Ok(Some(f))
}

/// Every Prometheus sample of a level's `.pre.prom` and `.post.prom`, with its delta.
pub(super) fn prom_deltas(catalog: &Catalog) -> anyhow::Result<Option<Frame>> {
    type Key = (String, String, u32);
    let mut pairs: BTreeMap<Key, [Option<&Item>; 2]> = BTreeMap::new();
    for item in catalog.of(Kind::Prometheus) {
        if let Some((v, r, c, part)) = level_keys(&item.rel) {
            let slot = match part {
                LadderPart::Pre => 0,
                LadderPart::Post => 1,
                _ => continue,
            };
            pairs.entry((v, r, c)).or_default()[slot] = Some(item);
        }
    }
    fn snap(i: Option<&Item>) -> Option<&crate::parse::prom::Snapshot> {
        match i.map(|i| &i.record) {
            Some(Ok(Record::Prometheus(s))) => Some(s),
            _ => None,
        }
    }
    let labels = |l: &[(String, String)]| {
        l.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    /// (level, metric, labels, pre, post)
    type Row<'k> = (&'k Key, String, String, Option<f64>, Option<f64>);
    let mut rows: Vec<Row> = Vec::new();
    for (key, [pre, post]) in &pairs {
        let (a, b) = (snap(*pre), snap(*post));
        let mut seen: BTreeMap<(String, String), (Option<f64>, Option<f64>)> = BTreeMap::new();
        for s in a.iter().flat_map(|s| s.samples()) {
            seen.entry((s.name.to_string(), labels(&s.labels())))
                .or_default()
                .0 = Some(s.value);
        }
        for s in b.iter().flat_map(|s| s.samples()) {
            seen.entry((s.name.to_string(), labels(&s.labels())))
                .or_default()
                .1 = Some(s.value);
        }
        for ((name, l), (x, y)) in seen {
            rows.push((key, name, l, x, y));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let f = FrameBuilder::new("prom_deltas")
        .str("variant", rows.iter().map(|r| r.0 .0.as_str()))
        .str("run", rows.iter().map(|r| r.0 .1.as_str()))
        .count("clients", rows.iter().map(|r| u64::from(r.0 .2)))
        .str("metric", rows.iter().map(|r| r.1.as_str()))
        .str("labels", rows.iter().map(|r| r.2.as_str()))
        .f64("pre", rows.iter().map(|r| r.3))
        .f64("post", rows.iter().map(|r| r.4))
        .f64(
            "delta",
            rows.iter().map(|r| match (r.3, r.4) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            }),
        )
        .build()?;
    Ok(Some(f))
}
