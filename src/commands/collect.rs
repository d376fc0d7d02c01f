//! `reprobench collect`: the procedures' runs through the shell collectors.

use crate::cli::{CollectCommand, CollectKvLadderArgs, CollectStorageArgs};
use crate::collect::kv_ladder;
use crate::collect::storage::{collect, headline, Plan};
use crate::process::System;

use super::UNUSABLE;

pub fn run(cmd: &CollectCommand) -> anyhow::Result<i32> {
    match cmd {
        CollectCommand::Storage(a) => storage(a),
        CollectCommand::KvLadder(a) => ladder(a),
    }
}

fn ladder(a: &CollectKvLadderArgs) -> anyhow::Result<i32> {
    let plan = kv_ladder::Plan {
        workdir: a.workdir.clone(),
        url: a.url.clone(),
        model: a.model.clone(),
        served_name: a.served_model_name.clone(),
        variant: a.variant.clone(),
        run: a.run.clone(),
        levels: a.levels.clone(),
        pause_s: a.pause,
        dry_run: a.dry_run,
    };
    kv_ladder::collect(&plan, &System)
}

fn storage(a: &CollectStorageArgs) -> anyhow::Result<i32> {
    let mut runs = headline(&a.size, a.runtime);
    if !a.only.is_empty() {
        let unknown: Vec<&String> = a
            .only
            .iter()
            .filter(|o| !runs.iter().any(|r| &r.name == *o))
            .collect();
        if !unknown.is_empty() {
            let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
            eprintln!(
                "error: no run named {unknown:?}; runs: {}",
                names.join(", ")
            );
            return Ok(UNUSABLE);
        }
        runs.retain(|r| a.only.contains(&r.name));
    }
    let plan = Plan {
        array: a.array.clone(),
        dev: a.dev.clone(),
        out: a.out.join(&a.array),
        runs,
        dry_run: a.dry_run,
        confirmed: a.confirm_device.clone(),
        time_based: a.time_based,
    };
    collect(&plan, &System)
}
