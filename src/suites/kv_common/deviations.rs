//! What the KV tests actually ran, from the client's and the server's own logs, against
//! what the procedure runs: the ladder client's arguments and workload per level, and
//! the server's model and tensor parallelism.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::deviation::Deviation;
use crate::model::phrase::{printed, Phrase};
use crate::phrase;
use crate::suites::RanCommand;

use super::ladder::Level;
use super::reference::LadderRef;

mod prompt_length;
mod servers;

pub use prompt_length::prompt;
pub use servers::{kv_cache_sizes, restore, server_commands, KV_SIZE_SOURCE};

fn subject(l: &Level) -> String {
    format!("{}-{}-L{}", l.variant, l.run, l.clients)
}

/// The client argument `name` as logged, with the served model falling back to `model`.
pub fn arg<'a>(l: &'a Level, name: &str) -> Option<&'a str> {
    let get = |k: &str| {
        l.args
            .get(k)
            .map(String::as_str)
            .filter(|v| *v != "None" && !v.is_empty())
    };
    match name {
        "served_model_name" => get("served_model_name").or_else(|| get("model")),
        _ => get(name),
    }
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// The arguments a level of `n` clients must have: (name, value, source).
fn level_params(n: u32, r: &LadderRef) -> [(&'static str, u32, &str); 3] {
    let s = r.procedure.level_source.as_str();
    [
        ("num_clients", n, s),
        ("max_active_conversations", 2 * n, s),
        ("num_conversations", 3 * n, s),
    ]
}

/// Every deviation of the levels of `variants`; `ids(n)` names the verdicts a level of
/// `n` clients feeds.
pub fn ladder(
    levels: &[Level],
    variants: &[&str],
    r: &LadderRef,
    ids: impl Fn(u32) -> Vec<String>,
) -> Vec<Deviation> {
    let mut out = Vec::new();
    let ours: Vec<&Level> = levels
        .iter()
        .filter(|l| variants.contains(&l.variant.as_str()))
        .collect();
    for l in &ours {
        let with = |mut d: Deviation| {
            d = d.subject(subject(l));
            if let Some(f) = &l.log_file {
                d = d.file(f.clone());
            }
            for id in ids(l.clients) {
                d = d.verdict(id);
            }
            d
        };
        if l.args.is_empty() {
            out.push(with(
                Deviation::new("client arguments", "logged by the client", "unknown").effect(
                    "the level's log records neither the client's Namespace line nor its Parameters block: its load cannot be checked",
                    false,
                ).source(r.procedure.source.clone()),
            ));
        } else {
            out.extend(level_arguments(l, r).into_iter().map(with));
        }
        if l.stopped_early {
            out.push(with(
                Deviation::new("early stop", "never (--no-early-stop)", "stopped early")
                    .effect(
                        "the log shows `Sending termination signal to clients`: the level ended when its first client finished",
                        true,
                    )
                    .source("ladder(): --no-early-stop"),
            ));
        }
        if let Some(mut d) =
            super::server_ttft::disagreement(l.server_ttft.as_ref(), l.ttft_p50_s, l.requests)
        {
            d = d.subject(subject(l));
            for f in l.files.iter().filter(|f| {
                f.ends_with(".json") || f.ends_with(".pre.prom") || f.ends_with(".post.prom")
            }) {
                d = d.file(f.clone());
            }
            for id in ids(l.clients) {
                d = d.verdict(id);
            }
            out.push(d);
        }
    }
    out.extend(between_variants(&ours, variants, r, &ids));
    out
}

/// A level's logged client arguments against the procedure's: each that differs, and
/// those the log does not record.
fn level_arguments(l: &Level, r: &LadderRef) -> Vec<Deviation> {
    let mut out = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    for (name, want, source) in level_params(l.clients, r) {
        match arg(l, name) {
            Some(v) if !same(v, &want.to_string()) => out.push(
                Deviation::new(
                    name,
                    phrase!("{}", printed(want as f64, 0)),
                    Phrase::text(v),
                )
                .effect(r.procedure.level_effect.clone(), true)
                .source(source),
            ),
            Some(_) => {}
            None => missing.push(name),
        }
    }
    for p in &r.param {
        match arg(l, &p.name) {
            Some(v) if !same(v, &p.value) => out.push(
                Deviation::new(p.name.clone(), Phrase::text(&p.value), Phrase::text(v))
                    .effect(p.effect.clone(), p.changes)
                    .source(p.source.clone()),
            ),
            Some(_) => {}
            None => missing.push(&p.name),
        }
    }
    if !missing.is_empty() {
        out.push(
            Deviation::new(missing.join(", "), "the procedure's values", "unknown")
                .effect(
                    "the log does not record these arguments (stdout only, or an older client): they cannot be checked",
                    false,
                )
                .source(r.procedure.source.clone()),
        );
    }
    out
}

/// Arguments that differ between the variants at one level: their ratio would compare
/// unlike loads, whatever the procedure says.
fn between_variants(
    levels: &[&Level],
    variants: &[&str],
    r: &LadderRef,
    ids: &impl Fn(u32) -> Vec<String>,
) -> Vec<Deviation> {
    let mut out = Vec::new();
    let clients: BTreeSet<u32> = levels.iter().map(|l| l.clients).collect();
    let names: Vec<&str> = [
        "num_clients",
        "max_active_conversations",
        "num_conversations",
    ]
    .into_iter()
    .chain(r.param.iter().map(|p| p.name.as_str()))
    .collect();
    for n in clients {
        let at: Vec<&&Level> = levels.iter().filter(|l| l.clients == n).collect();
        for name in &names {
            let mut by: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
            for l in &at {
                if let Some(v) = arg(l, name) {
                    by.entry(l.variant.as_str())
                        .or_default()
                        .insert(v.trim().to_string());
                }
            }
            let present: Vec<&&str> = variants.iter().filter(|v| by.contains_key(**v)).collect();
            if present.len() < 2 {
                continue;
            }
            let first = &by[*present[0]];
            if let Some(other) = present[1..].iter().find(|v| &by[***v] != first) {
                let show = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(" / ");
                // Both values are what ran; the procedure asks only that they agree.
                let mut d = Deviation::new(
                    format!("{name} ({} vs {})", present[0], other),
                    "the same for both variants",
                    phrase!(
                        "{} {}, {} {}",
                        crate::model::phrase::name(*present[0]),
                        crate::model::phrase::name(show(first)),
                        crate::model::phrase::name(**other),
                        crate::model::phrase::name(show(&by[**other]))
                    ),
                )
                .effect(
                    format!(
                        "the two variants ran different loads at {n} clients: their ratio compares unlike with unlike"
                    ),
                    true,
                )
                .source("test 2: \"the same hardware, model and load\" for both variants");
                for l in &at {
                    d = d.subject(subject(l));
                    if let Some(f) = &l.log_file {
                        d = d.file(f.clone());
                    }
                }
                for id in ids(n) {
                    d = d.verdict(id);
                }
                out.push(d);
            }
        }
    }
    out
}

/// The client command each level ran, rebuilt from its logged arguments.
pub fn commands_ran(levels: &[Level], variants: &[&str]) -> Vec<RanCommand> {
    const FLAGS: &[&str] = &[
        "model",
        "served_model_name",
        "url",
        "input_file",
        "seed",
        "num_clients",
        "max_active_conversations",
        "limit_min_tokens",
        "limit_max_tokens",
        "request_timeout_sec",
        "stats_json_output",
    ];
    levels
        .iter()
        .filter(|l| variants.contains(&l.variant.as_str()))
        .filter(|l| l.args.contains_key("num_clients"))
        .map(|l| {
            let mut cmd = String::from("benchmark_serving_multi_turn.py");
            for k in FLAGS {
                if let Some(v) = l.args.get(*k).filter(|v| *v != "None") {
                    cmd.push_str(&format!(" --{} {v}", k.replace('_', "-")));
                }
            }
            if l.args.get("no_early_stop").is_some_and(|v| v == "True") {
                cmd.push_str(" --no-early-stop");
            }
            RanCommand {
                subject: subject(l),
                command: cmd,
                source: l.log_file.clone().unwrap_or_default(),
            }
        })
        .collect()
}
