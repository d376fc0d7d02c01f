//! The SPDK suite's derived frame: one row per run in an array folder.

use crate::frames::{Frame, FrameBuilder};

use super::load::{ArrayDir, Run};

pub fn runs(arrays: &[ArrayDir]) -> anyhow::Result<Frame> {
    let rows: Vec<(&ArrayDir, &Run)> = arrays
        .iter()
        .flat_map(|a| a.runs.iter().map(move |r| (a, r)))
        .collect();
    FrameBuilder::new("spdk_runs")
        .str("array_dir", rows.iter().map(|r| r.0.dir.as_str()))
        .str("array", rows.iter().map(|r| r.0.array.as_str()))
        .count("drives", rows.iter().map(|r| u64::from(r.0.drives)))
        .bool("degraded", rows.iter().map(|r| r.1.degraded))
        .str("tool", rows.iter().map(|r| r.1.tool))
        .str("file", rows.iter().map(|r| r.1.file.as_str()))
        .str("rw", rows.iter().map(|r| r.1.sig.rw.as_str()))
        .f64(
            "bs_bytes",
            rows.iter().map(|r| r.1.sig.bs.map(|b| b as f64)),
        )
        .count("numjobs", rows.iter().map(|r| r.1.sig.numjobs))
        .count("iodepth", rows.iter().map(|r| r.1.sig.iodepth))
        .f64("iops", rows.iter().map(|r| Some(r.1.iops())))
        .f64("gb_s", rows.iter().map(|r| Some(r.1.gbps())))
        .f64("read_avg_lat_us", rows.iter().map(|r| r.1.read.avg_us))
        .f64("read_p999_us", rows.iter().map(|r| r.1.read.p999_us))
        .i64("error", rows.iter().map(|r| r.1.error))
        .count("failed_ios", rows.iter().map(|r| r.1.failed_ios))
        .count("io_bytes", rows.iter().map(|r| r.1.io_bytes))
        .f64(
            "runtime_s",
            rows.iter().map(|r| Some(r.1.runtime_ms as f64 / 1000.0)),
        )
        .bool(
            "interrupted",
            rows.iter().map(|r| r.1.interrupted.is_some()),
        )
        .bool("clean", rows.iter().map(|r| r.1.clean()))
        .build()
}
