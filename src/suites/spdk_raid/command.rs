//! `reprobench spdk config|jobs`: the article's SPDK config and fio job files, written
//! for the SPDK suite's procedure (its arguments are in `cli.rs`, which imports no suite).

use anyhow::Context;

use super::inputs::config::{self, Members, Spec};
use super::inputs::jobs::{self, Target};
use super::inputs::Raid;
use crate::cli::{SpdkCommand, SpdkConfigArgs, SpdkJobsArgs};
use crate::error::UNUSABLE;

pub fn run(cmd: &SpdkCommand) -> anyhow::Result<i32> {
    match cmd {
        SpdkCommand::Config(a) => config_cmd(a),
        SpdkCommand::Jobs(a) => jobs_cmd(a),
    }
}

fn refuse(why: &str) -> anyhow::Result<i32> {
    crate::errln!("error: {why}");
    Ok(UNUSABLE)
}

fn config_cmd(a: &SpdkConfigArgs) -> anyhow::Result<i32> {
    let raid = match Raid::parse(&a.array.raid) {
        Ok(r) => r,
        Err(why) => return refuse(&why),
    };
    let members = if a.bdevs.is_empty() {
        Members::Pcie(a.pcie.clone())
    } else {
        Members::Bdevs(a.bdevs.clone())
    };
    let spec = Spec {
        members,
        raid,
        name: a.array.name.clone(),
        strip_kb: a.array.strip_kb,
    };
    let text = match config::render(&spec) {
        Ok(t) => t,
        Err(why) => return refuse(&why),
    };
    match &a.output {
        Some(p) => {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("failed to create `{}`", dir.display()))?;
            }
            std::fs::write(p, text)
                .with_context(|| format!("failed to write `{}`", p.display()))?;
            crate::errln!(
                "wrote {} ({} drives, {})",
                p.display(),
                spec.drives(),
                spec.raid
            );
        }
        None => crate::out!("{text}"),
    }
    Ok(0)
}

fn jobs_cmd(a: &SpdkJobsArgs) -> anyhow::Result<i32> {
    let raid = match Raid::parse(&a.array.raid) {
        Ok(r) => r,
        Err(why) => return refuse(&why),
    };
    let filename = a.filename.clone().unwrap_or_else(|| match raid {
        Raid::None => (0..a.drives)
            .map(|i| format!("nvme{i}n1"))
            .collect::<Vec<_>>()
            .join(":"),
        _ => a.array.name.clone(),
    });
    let target = Target {
        raid,
        drives: a.drives,
        strip_kb: a.array.strip_kb,
        spdk_conf: a.spdk_conf.clone(),
        filename,
    };
    let (list, refused) = match &a.rw {
        Some(rw) => {
            let job = match jobs::single(
                rw,
                a.bs.as_deref().unwrap_or(""),
                a.numjobs,
                a.iodepth,
                a.rwmixread,
                a.runtime,
            ) {
                Ok(j) => j,
                Err(why) => return refuse(&why),
            };
            if let Err(why) = jobs::check(&job, &target) {
                return refuse(&why);
            }
            (vec![job], Vec::new())
        }
        None => jobs::article_suite(&target, a.runtime, a.seq_runtime),
    };
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("failed to create `{}`", a.output.display()))?;
    for job in &list {
        let text = match jobs::render(job, &target) {
            Ok(t) => t,
            Err(why) => return refuse(&why),
        };
        let path = a.output.join(format!("{}.fio", job.name()));
        std::fs::write(&path, text)
            .with_context(|| format!("failed to write `{}`", path.display()))?;
        crate::outln!("wrote {}", path.display());
    }
    for why in refused {
        crate::outln!("left out: {why}");
    }
    Ok(0)
}
