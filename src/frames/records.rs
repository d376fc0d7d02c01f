//! The catalog's records as tidy frames, one per record kind, keyed by suite, array or
//! variant, run and level or job (the `input` column is added when inputs are joined).

use std::collections::BTreeMap;

use crate::fio::params;
use crate::fio::signature::Signature;
use crate::ingest::layout::{self, LadderPart};
use crate::ingest::{Catalog, Item, Kind, Record};
use crate::parse::iostat::IostatSample;

use super::{Frame, FrameBuilder};

/// The suite whose layout a file is in (`""` for none): the registry's answer, handed
/// in by the analysis (frames sit below the suites and do not ask them).
pub type SuiteOf<'a> = &'a dyn Fn(&Item) -> &'static str;

/// The array a file belongs to: its folder's name (`iostat/` is skipped), or the input's.
fn array_of(catalog: &Catalog, rel: &str) -> String {
    let mut dir = layout::dir_of(rel);
    if matches!(layout::name_of(dir), "iostat" | "degraded") {
        dir = layout::dir_of(dir);
    }
    if dir.is_empty() {
        catalog.root_name.clone()
    } else {
        layout::name_of(dir).to_string()
    }
}

/// Every frame the catalog gives; a frame that cannot be built is reported, not fatal.
pub fn frames(catalog: &Catalog, suite_of: SuiteOf) -> (Vec<Frame>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for built in [
        fio_groups(catalog, suite_of),
        iostat_devices(catalog, suite_of),
        iostat_cpu(catalog, suite_of),
        ladder_requests(catalog),
        prom_deltas(catalog),
        restore_attempts(catalog, suite_of),
        server_facts(catalog),
    ] {
        match built {
            Ok(Some(f)) => out.push(f),
            Ok(None) => {}
            Err(e) => problems.push(format!("{e:#}")),
        }
    }
    (out, problems)
}

/// One row per reporting group of every fio result (jobs summed as group_reporting).
fn fio_groups(catalog: &Catalog, suite_of: SuiteOf) -> anyhow::Result<Option<Frame>> {
    let mut rows = Vec::new();
    for item in catalog.of(Kind::Fio) {
        let Some(rec) = item.fio_record() else {
            continue;
        };
        for g in &rec.groups {
            rows.push((item, rec, g, Signature::from_options(&g.options)));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let f = FrameBuilder::new("fio_groups")
        .str("suite", rows.iter().map(|r| suite_of(r.0)))
        .str("array", rows.iter().map(|r| array_of(catalog, &r.0.rel)))
        .str("job", rows.iter().map(|r| r.0.stem()))
        .str("file", rows.iter().map(|r| r.0.rel.as_str()))
        .count("groupid", rows.iter().map(|r| r.2.groupid))
        .str("jobname", rows.iter().map(|r| r.2.jobname.as_str()))
        .count("jobs_summed", rows.iter().map(|r| r.2.entries as u64))
        .i64("error", rows.iter().map(|r| r.2.error))
        .bool(
            "interrupted",
            rows.iter()
                .map(|r| params::interrupted(&r.1.output).is_some()),
        )
        .str("rw", rows.iter().map(|r| r.3.rw.as_str()))
        .f64("bs_bytes", rows.iter().map(|r| r.3.bs.map(|b| b as f64)))
        .count("numjobs", rows.iter().map(|r| r.3.numjobs))
        .count("iodepth", rows.iter().map(|r| r.3.iodepth))
        .f64(
            "rwmixread",
            rows.iter().map(|r| r.3.rwmixread.map(|m| m as f64)),
        )
        .str(
            "ioengine",
            rows.iter()
                .map(|r| params::get(&r.2.options, "ioengine").unwrap_or("")),
        )
        .f64(
            "runtime_s",
            rows.iter()
                .map(|r| Some(r.2.read.runtime_ms.max(r.2.write.runtime_ms) as f64 / 1000.0)),
        )
        .count("read_io_bytes", rows.iter().map(|r| r.2.read.io_bytes))
        .count("write_io_bytes", rows.iter().map(|r| r.2.write.io_bytes))
        .f64(
            "read_bw_bytes",
            rows.iter().map(|r| Some(r.2.read.bw_bytes)),
        )
        .f64(
            "write_bw_bytes",
            rows.iter().map(|r| Some(r.2.write.bw_bytes)),
        )
        .f64("read_bw_rel_sd", rows.iter().map(|r| r.2.read.bw_rel_sd))
        .f64("write_bw_rel_sd", rows.iter().map(|r| r.2.write.bw_rel_sd))
        .f64("read_iops", rows.iter().map(|r| Some(r.2.read.iops)))
        .f64("write_iops", rows.iter().map(|r| Some(r.2.write.iops)))
        .f64("read_p99_ns", rows.iter().map(|r| r.2.read.p99_ns))
        .f64("write_p99_ns", rows.iter().map(|r| r.2.write.p99_ns))
        .f64(
            "read_mean_lat_ns",
            rows.iter().map(|r| r.2.read.mean_lat_ns),
        )
        .f64(
            "write_mean_lat_ns",
            rows.iter().map(|r| r.2.write.mean_lat_ns),
        )
        .f64("sys_cpu_pct", rows.iter().map(|r| Some(r.2.sys_cpu)))
        .f64("usr_cpu_pct", rows.iter().map(|r| Some(r.2.usr_cpu)))
        .str(
            "fio_version",
            rows.iter()
                .map(|r| r.1.output.fio_version.clone().unwrap_or_default()),
        )
        .build()?;
    Ok(Some(f))
}

fn iostat_logs(catalog: &Catalog) -> Vec<(&Item, &crate::parse::iostat::IostatLog)> {
    catalog
        .of(Kind::Iostat)
        .filter_map(|i| match &i.record {
            Ok(Record::Iostat(l)) => Some((i, l)),
            _ => None,
        })
        .collect()
}

/// One row per iostat sample and device.
fn iostat_devices(catalog: &Catalog, suite_of: SuiteOf) -> anyhow::Result<Option<Frame>> {
    let mut rows = Vec::new();
    for (item, log) in iostat_logs(catalog) {
        for s in &log.samples {
            for d in &s.devices {
                rows.push((item, s, d));
            }
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let keys: Vec<(&Item, &IostatSample)> = rows.iter().map(|r| (r.0, r.1)).collect();
    let f = sample_keys(
        FrameBuilder::new("iostat_devices"),
        catalog,
        &keys,
        suite_of,
    )
    .str("device", rows.iter().map(|r| &*r.2.device))
    .f64("r_s", rows.iter().map(|r| r.2.r_s()))
    .f64("w_s", rows.iter().map(|r| r.2.w_s()))
    .f64("r_mib_s", rows.iter().map(|r| r.2.r_mb_s()))
    .f64("w_mib_s", rows.iter().map(|r| r.2.w_mb_s()))
    .f64("r_await_ms", rows.iter().map(|r| r.2.r_await()))
    .f64("w_await_ms", rows.iter().map(|r| r.2.w_await()))
    .f64("await_ms", rows.iter().map(|r| r.2.await_ms()))
    .f64("util_pct", rows.iter().map(|r| r.2.util()))
    .build()?;
    Ok(Some(f))
}

/// The columns that key an iostat sample: suite, array, job, file, sample and time.
fn sample_keys(
    b: FrameBuilder,
    catalog: &Catalog,
    rows: &[(&Item, &IostatSample)],
    suite_of: SuiteOf,
) -> FrameBuilder {
    b.str("suite", rows.iter().map(|r| suite_of(r.0)))
        .str("array", rows.iter().map(|r| array_of(catalog, &r.0.rel)))
        .str("job", rows.iter().map(|r| r.0.stem()))
        .str("file", rows.iter().map(|r| r.0.rel.as_str()))
        .count("sample", rows.iter().map(|r| r.1.index as u64))
        .str(
            "time",
            rows.iter().map(|r| r.1.time.as_deref().unwrap_or("")),
        )
}

/// One row per iostat sample: the CPU side.
fn iostat_cpu(catalog: &Catalog, suite_of: SuiteOf) -> anyhow::Result<Option<Frame>> {
    let mut rows = Vec::new();
    for (item, log) in iostat_logs(catalog) {
        for s in &log.samples {
            rows.push((item, s));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let f = sample_keys(FrameBuilder::new("iostat_cpu"), catalog, &rows, suite_of)
        .f64("system_pct", rows.iter().map(|r| r.1.cpu_system))
        .f64("iowait_pct", rows.iter().map(|r| r.1.cpu_iowait))
        .build()?;
    Ok(Some(f))
}

/// A ladder file's variant, run and clients.
fn level_keys(rel: &str) -> Option<(String, String, u32, LadderPart)> {
    let (prefix, clients, part) = layout::ladder_file(rel)?;
    let (variant, run) = layout::split_run(prefix);
    Some((variant, run, clients, part))
}

/// One row per request the multi-turn client recorded.
fn ladder_requests(catalog: &Catalog) -> anyhow::Result<Option<Frame>> {
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
fn prom_deltas(catalog: &Catalog) -> anyhow::Result<Option<Frame>> {
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

/// One row per `ask` request of tests 1 and 3.
fn restore_attempts(catalog: &Catalog, suite_of: SuiteOf) -> anyhow::Result<Option<Frame>> {
    let mut rows = Vec::new();
    for item in catalog.of(Kind::Ask) {
        let Ok(Record::Ask(attempts)) = &item.record else {
            continue;
        };
        let suite = suite_of(item);
        for a in attempts {
            rows.push((item, suite, a));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let f = FrameBuilder::new("restore_attempts")
        .str("suite", rows.iter().map(|r| r.1))
        .str("variant", rows.iter().map(|r| r.0.stem()))
        .str("file", rows.iter().map(|r| r.0.rel.as_str()))
        .count("line", rows.iter().map(|r| r.2.line as u64))
        .f64("seconds", rows.iter().map(|r| r.2.seconds))
        .f64(
            "prompt_tokens",
            rows.iter().map(|r| r.2.prompt_tokens.map(|n| n as f64)),
        )
        .f64(
            "cached_tokens",
            rows.iter().map(|r| r.2.cached.map(|n| n as f64)),
        )
        .str(
            "failed",
            rows.iter().map(|r| r.2.failed.as_deref().unwrap_or("")),
        )
        .build()?;
    Ok(Some(f))
}

/// One row per vLLM server log: what it says about the server.
fn server_facts(catalog: &Catalog) -> anyhow::Result<Option<Frame>> {
    let logs: Vec<(&Item, &crate::parse::vllm_log::ServerLog)> = catalog
        .of(Kind::ServerLog)
        .filter_map(|i| match &i.record {
            Ok(Record::ServerLog(l)) => Some((i, l.as_ref())),
            _ => None,
        })
        .collect();
    if logs.is_empty() {
        return Ok(None);
    }
    let arg =
        |l: &crate::parse::vllm_log::ServerLog, k: &str| l.args.get(k).cloned().unwrap_or_default();
    let f = FrameBuilder::new("server_facts")
        .str(
            "variant",
            logs.iter().map(|r| layout::server_log_variant_at(&r.0.rel)),
        )
        .str("file", logs.iter().map(|r| r.0.rel.as_str()))
        .str(
            "vllm_version",
            logs.iter()
                .map(|r| r.1.vllm_version.clone().unwrap_or_default()),
        )
        .str(
            "model",
            logs.iter().map(|r| r.1.model.clone().unwrap_or_default()),
        )
        .str(
            "tensor_parallel_size",
            logs.iter().map(|r| arg(r.1, "tensor_parallel_size")),
        )
        .str(
            "max_model_len",
            logs.iter().map(|r| arg(r.1, "max_model_len")),
        )
        .f64(
            "kv_cache_tokens",
            logs.iter().map(|r| r.1.kv_cache_tokens.map(|n| n as f64)),
        )
        .f64("max_concurrency", logs.iter().map(|r| r.1.max_concurrency))
        .f64(
            "connector_tensors",
            logs.iter().map(|r| r.1.xkv_tensors.map(|n| n as f64)),
        )
        .count(
            "turned_off_lines",
            logs.iter().map(|r| r.1.turned_off.len() as u64),
        )
        .count(
            "engine_stat_lines",
            logs.iter().map(|r| r.1.engine_stats.len() as u64),
        )
        .build()?;
    Ok(Some(f))
}
