//! The storage frames: fio's reporting groups and iostat's samples (devices and CPU).

use crate::fio::params;
use crate::fio::signature::Signature;
use crate::ingest::layout;
use crate::ingest::{Catalog, Item, Kind, Record};
use crate::parse::iostat::IostatSample;

use super::SuiteOf;
use crate::frames::{Frame, FrameBuilder};

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

/// One row per reporting group of every fio result (jobs summed as group_reporting).
pub(super) fn fio_groups(catalog: &Catalog, suite_of: SuiteOf) -> anyhow::Result<Option<Frame>> {
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
pub(super) fn iostat_devices(
    catalog: &Catalog,
    suite_of: SuiteOf,
) -> anyhow::Result<Option<Frame>> {
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
pub(super) fn iostat_cpu(catalog: &Catalog, suite_of: SuiteOf) -> anyhow::Result<Option<Frame>> {
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
