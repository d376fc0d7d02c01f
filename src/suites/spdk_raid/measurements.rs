//! The SPDK suite's measurements: per array folder (and its degraded runs) and job shape,
//! IOPS, bandwidth and the read latencies of each clean run.

use crate::model::measurement::{job_shape, Better, Measurement, Unit};

use super::load::ArrayDir;

pub fn measurements(arrays: &[ArrayDir], suite: &str) -> Vec<Measurement> {
    let mut out = Vec::new();
    for a in arrays {
        for r in a.runs.iter().filter(|r| r.clean()) {
            let Some(bs) = r.sig.bs else {
                continue;
            };
            let degraded = if r.degraded { " degraded" } else { "" };
            let subject = format!(
                "{}{degraded} · {}",
                a.dir,
                job_shape(&r.sig.rw, bs, r.sig.numjobs, r.sig.iodepth, None)
            );
            let metrics = [
                ("IOPS", Some(r.iops()), Unit::Iops, Better::Higher),
                (
                    "bandwidth",
                    Some(r.gbps()),
                    Unit::GigabytesPerSecond,
                    Better::Higher,
                ),
                (
                    "mean read latency",
                    r.read.avg_us,
                    Unit::Microseconds,
                    Better::Lower,
                ),
                (
                    "p99.9 read latency",
                    r.read.p999_us,
                    Unit::Microseconds,
                    Better::Lower,
                ),
            ];
            out.extend(metrics.into_iter().filter_map(|(metric, v, unit, better)| {
                let v = v.filter(|x| *x > 0.0);
                Measurement::of(suite, &subject, metric, v, unit, better, &r.file)
            }));
        }
    }
    out
}
