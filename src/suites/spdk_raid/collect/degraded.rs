//! The degraded runs of an array: bdevperf's random reads and full-stripe reads and
//! writes with one member removed, and how they differ from the article's test.

use std::sync::Arc;

use crate::parse::bdevperf;
use crate::suites::spdk_raid::inputs::{stripe_bytes, Raid};

use crate::collect::outcome::Outcome;
use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::lines;
use crate::collect::steps::{Check, Origin, Step, Write};

use super::Plan;

/// How the degraded runs differ from the article's account of its degraded test.
fn degraded_differences(p: &Plan) -> Vec<String> {
    let mut out = vec![
        "the article reports only that operations stopped: reprobench runs random reads and full-stripe reads and writes with the member gone, to see whether they do".to_string(),
    ];
    if p.degraded_method != "detach-controller" {
        out.push(format!(
            "--degraded-method {}: the member is removed that way, where the article detaches its controller",
            p.degraded_method
        ));
    }
    out
}

/// The degraded runs of one array: random reads and full-stripe reads and writes.
pub(super) fn degraded(
    p: &Plan,
    s: &Scripts,
    raid: &Raid,
    n: u32,
    dir: &std::path::Path,
    conf: &std::path::Path,
    writes: &[Write],
) -> Vec<Step> {
    let mut out = Vec::new();
    let member = "nvme1n1";
    let stripe = stripe_bytes(raid, n, p.strip_kb).unwrap_or(u64::from(p.strip_kb) * 1024);
    let name = dir
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    for (job, w, qd, size) in [
        ("randread-8k-j1-d32".to_string(), "randread", 32, 8192),
        (
            format!("read-{}k-j1-d16", stripe / 1024),
            "read",
            16,
            stripe,
        ),
        (
            format!("write-{}k-j1-d16", stripe / 1024),
            "write",
            16,
            stripe,
        ),
    ] {
        let json = dir.join("degraded").join(format!("{job}.json"));
        let check = Check::Custom(Arc::new({
            let json = json.clone();
            move |exit| match bdevperf::parse_path(&json) {
                Ok(_) => Outcome::Ok,
                Err(e) => Outcome::Failed(match exit {
                    Err(x) => format!("{x}; {}", e.reason),
                    Ok(_) => e.to_string(),
                }),
            }
        }));
        let mut step = Step::new(
            format!("{name}: degraded {job} ({member} removed)"),
            Origin::procedure(lines::SPDK_DEGRADED, lines::DETACH),
            s.call("spdk-degraded.sh")
                .arg(p.spdk_dir.as_os_str())
                .arg(conf.as_os_str())
                .arg(member)
                .arg(dir.join("degraded").as_os_str())
                .arg(&job)
                .arg(w)
                .arg(qd.to_string())
                .arg(size.to_string())
                .arg(p.degraded_runtime_s.to_string())
                .arg(&p.degraded_method),
            check,
        )
        .differs(degraded_differences(p))
        .estimate(u64::from(p.degraded_runtime_s) + 10);
        for wr in writes {
            step = step.writes(wr.clone());
        }
        out.push(step);
    }
    out
}
