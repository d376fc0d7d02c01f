//! The storage suite's records as frames: one row per fio group, per iostat sample and
//! device, per verdict.

use crate::frames::{Frame, FrameBuilder};

use super::load::{Loaded, RunGroup};

pub fn frames(loaded: &Loaded, groups: &[RunGroup]) -> anyhow::Result<Vec<Frame>> {
    let runs = FrameBuilder::new("storage_runs")
        .str("file", groups.iter().map(|g| g.run.file.as_str()))
        .str("array", groups.iter().map(|g| g.run.array.as_str()))
        .str("job", groups.iter().map(|g| g.group.jobname.as_str()))
        .u64("groupid", groups.iter().map(|g| g.group.groupid))
        .u64("jobs_summed", groups.iter().map(|g| g.group.entries as u64))
        .i64("error", groups.iter().map(|g| g.group.error))
        .str("rw", groups.iter().map(|g| g.signature.rw.as_str()))
        .f64(
            "bs_bytes",
            groups.iter().map(|g| g.signature.bs.map(|b| b as f64)),
        )
        .u64("numjobs", groups.iter().map(|g| g.signature.numjobs))
        .u64("iodepth", groups.iter().map(|g| g.signature.iodepth))
        .f64(
            "rwmixread",
            groups
                .iter()
                .map(|g| g.signature.rwmixread.map(|m| m as f64)),
        )
        .f64(
            "read_bw_bytes",
            groups.iter().map(|g| Some(g.group.read.bw_bytes)),
        )
        .f64(
            "write_bw_bytes",
            groups.iter().map(|g| Some(g.group.write.bw_bytes)),
        )
        .f64("read_iops", groups.iter().map(|g| Some(g.group.read.iops)))
        .f64(
            "write_iops",
            groups.iter().map(|g| Some(g.group.write.iops)),
        )
        .f64("read_p99_ns", groups.iter().map(|g| g.group.read.p99_ns))
        .f64("write_p99_ns", groups.iter().map(|g| g.group.write.p99_ns))
        .f64(
            "read_mean_lat_ns",
            groups.iter().map(|g| g.group.read.mean_lat_ns),
        )
        .f64(
            "write_mean_lat_ns",
            groups.iter().map(|g| g.group.write.mean_lat_ns),
        )
        .f64("sys_cpu", groups.iter().map(|g| Some(g.group.sys_cpu)))
        .f64("usr_cpu", groups.iter().map(|g| Some(g.group.usr_cpu)))
        .str(
            "fio_version",
            groups
                .iter()
                .map(|g| g.run.output.fio_version.clone().unwrap_or_default()),
        )
        .build()?;

    let mut file = Vec::new();
    let mut sample = Vec::new();
    let mut device = Vec::new();
    let mut cols: [Vec<Option<f64>>; 7] = Default::default();
    let mut cpu_file = Vec::new();
    let mut cpu_sample = Vec::new();
    let mut cpu_system = Vec::new();
    let mut cpu_iowait = Vec::new();
    for f in loaded.iostat.values() {
        for s in &f.log.samples {
            cpu_file.push(f.file.clone());
            cpu_sample.push(s.index as u64);
            cpu_system.push(s.cpu_system);
            cpu_iowait.push(s.cpu_iowait);
            for d in &s.devices {
                file.push(f.file.clone());
                sample.push(s.index as u64);
                device.push(d.device.clone());
                for (c, v) in cols.iter_mut().zip([
                    d.r_s, d.w_s, d.r_mb_s, d.w_mb_s, d.r_await, d.w_await, d.util,
                ]) {
                    c.push(v);
                }
            }
        }
    }
    let [r_s, w_s, r_mb, w_mb, r_await, w_await, util] = cols;
    let iostat = FrameBuilder::new("storage_iostat")
        .str("file", &file)
        .u64("sample", sample)
        .str("device", &device)
        .f64("r_s", r_s)
        .f64("w_s", w_s)
        .f64("r_mb_s", r_mb)
        .f64("w_mb_s", w_mb)
        .f64("r_await_ms", r_await)
        .f64("w_await_ms", w_await)
        .f64("util_pct", util)
        .build()?;
    let cpu = FrameBuilder::new("storage_iostat_cpu")
        .str("file", &cpu_file)
        .u64("sample", cpu_sample)
        .f64("system_pct", cpu_system)
        .f64("iowait_pct", cpu_iowait)
        .build()?;
    Ok(vec![runs, iostat, cpu])
}
