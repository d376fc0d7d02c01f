//! The storage suite's measurements: per array and job shape, bandwidth, IOPS and the p99
//! latency of the direction that moved more, from each clean fio reporting group (the
//! preconditioning pass, failed jobs and interrupted runs measure nothing comparable).

use crate::fio::params;
use crate::model::measurement::{
    job_shape, Better, Measurement, Noise, ParamValue, Parameter, Scope, Unit,
};

use super::load::RunGroup;

pub fn measurements(groups: &[RunGroup], suite: &str) -> Vec<Measurement> {
    let mut out = Vec::new();
    for rg in groups {
        let (run, g, sig) = (rg.run, rg.group, &rg.signature);
        if g.error != 0 || params::interrupted(run.output).is_some() || run.stem == "precondition" {
            continue;
        }
        let Some(bs) = sig.bs else {
            continue;
        };
        let subject = format!(
            "{} · {}",
            run.array,
            job_shape(&sig.rw, bs, sig.numjobs, sig.iodepth, sig.rwmixread)
        );
        let finite = |v: f64| Some(v).filter(|v| v.is_finite());
        let (rb, wb) = (
            finite(g.read.bw_bytes).unwrap_or(0.0),
            finite(g.write.bw_bytes).unwrap_or(0.0),
        );
        let writes = wb > rb;
        let dir = if writes { &g.write } else { &g.read };
        let (sd, se, p99) = (dir.bw_rel_sd, dir.bw_rel_se, dir.p99_ns);
        let noise = sd.filter(|s| s.is_finite()).map(|s| Noise {
            relative: s,
            source: "fio's bandwidth stddev (bw_dev / bw_mean)".into(),
            standard_error: se.filter(|e| e.is_finite()),
        });
        let m = |metric: &str, value: Option<f64>, unit, better| {
            Measurement::of(suite, &subject, metric, value, unit, better, &run.file)
        };
        let iops = finite(g.read.iops).unwrap_or(0.0) + finite(g.write.iops).unwrap_or(0.0);
        let p99_metric = if writes {
            "p99 write latency"
        } else {
            "p99 read latency"
        };
        out.extend(
            [
                m(
                    "bandwidth",
                    Some((rb + wb) / 1e6),
                    Unit::MegabytesPerSecond,
                    Better::Higher,
                )
                .map(|x| x.with_noise(noise.clone())),
                m("IOPS", Some(iops), Unit::Iops, Better::Higher)
                    .map(|x| x.with_noise(noise.clone())),
                m(
                    p99_metric,
                    p99.filter(|n| n.is_finite()).map(|n| n / 1000.0),
                    Unit::Microseconds,
                    Better::Lower,
                ),
            ]
            .into_iter()
            .flatten(),
        );
    }
    out
}

/// How long each reporting group ran, by fio's own account (the longer direction).
pub fn parameters(groups: &[RunGroup]) -> Vec<Parameter> {
    groups
        .iter()
        .map(|rg| Parameter {
            subject: rg.label.clone(),
            name: "runtime".into(),
            value: ParamValue::Number(
                rg.group.read.runtime_ms.max(rg.group.write.runtime_ms) as f64 / 1000.0,
            ),
            unit: Some(Unit::Seconds),
            scope: Scope::Run,
            file: rg.run.file.clone(),
        })
        .collect()
}
