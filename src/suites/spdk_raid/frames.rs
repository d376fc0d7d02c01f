//! The SPDK suite's derived frame: one row per run in an array folder.

use crate::frames::{Frame, FrameBuilder};
use crate::schema::frames::{FILE, INPUT};
use crate::schema::{c, Table, Type};

use super::load::{ArrayDir, Run};

/// The `spdk_runs` frame: its rows and columns, as `--export` checks and describes them.
pub static RUNS: Table = Table {
    name: "spdk_runs",
    rows: "SPDK run (fio with spdk_bdev, or bdevperf) in an array folder (spdk-raid)",
    parts: &[&[
        INPUT,
        c("array_dir", Type::Str, "", "the array's folder"),
        c(
            "array",
            Type::Str,
            "",
            "raw, raid5f, xinnor or the folder's name",
        ),
        c("drives", Type::I64, "", "member drives"),
        c("degraded", Type::Bool, "", "run with a member removed"),
        c("tool", Type::Str, "", "fio or bdevperf"),
        FILE,
        c("rw", Type::Str, "", "workload"),
        c("bs_bytes", Type::F64, "B", "block size"),
        c("numjobs", Type::I64, "", "jobs"),
        c("iodepth", Type::I64, "", "queue depth per job"),
        c("iops", Type::F64, "IO/s", "read + write IOPS"),
        c(
            "gb_s",
            Type::F64,
            "GB/s",
            "read + write bandwidth (10^9 bytes)",
        ),
        c("read_avg_lat_us", Type::F64, "µs", "mean read latency"),
        c(
            "read_p999_us",
            Type::F64,
            "µs",
            "99.9th percentile read latency",
        ),
        c("error", Type::I64, "errno", "job error"),
        c("failed_ios", Type::I64, "", "failed I/Os"),
        c("io_bytes", Type::I64, "B", "bytes moved"),
        c("runtime_s", Type::F64, "s", "by the tool's account"),
        c("interrupted", Type::Bool, "", "the run was cut short"),
        c(
            "clean",
            Type::Bool,
            "",
            "no error, no failed I/O, data moved, not cut short",
        ),
    ]],
};

pub fn runs(arrays: &[ArrayDir]) -> anyhow::Result<Frame> {
    let rows: Vec<(&ArrayDir, &Run)> = arrays
        .iter()
        .flat_map(|a| a.runs.iter().map(move |r| (a, r)))
        .collect();
    FrameBuilder::of(&RUNS)
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
