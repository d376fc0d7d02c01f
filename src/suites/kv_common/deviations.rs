//! What the KV tests actually ran, from the client's and the server's own logs, against
//! what the procedure runs: the ladder client's arguments and workload per level, and
//! the server's model and tensor parallelism.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase::{count, name as named, printed, Phrase};
use crate::phrase;
use crate::suites::RanCommand;

use super::ladder::Level;
use super::reference::{KvReference, LadderRef, ModelRef};
use super::ServerLogs;
use crate::parse::ask::Attempt;

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
                let mut d = Deviation::new(
                    format!("{name} ({} vs {})", present[0], other),
                    Phrase::text(show(first)),
                    Phrase::text(show(&by[**other])),
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

/// The chunk size in a logged `kv_transfer_config`, if it names one.
fn chunk_size(config: &str) -> Option<u64> {
    let at = config.find("chunk_size")? + "chunk_size".len();
    let rest = config[at..].trim_start_matches(['"', '\'', ':', ' ', '=']);
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Test 1's servers and prompt against the procedure's for `model`: tensor parallelism,
/// max-model-len, the connector's chunk_size, the prompt's length, and the two variants
/// against each other. `time` is the verdict they feed.
pub fn restore(
    logs: &ServerLogs,
    transcripts: &[(&str, &str, &[Attempt])],
    model: Option<&ModelRef>,
    reference: &KvReference,
    time: &str,
    cached: &str,
) -> Vec<Deviation> {
    let r = &reference.restore;
    let mut out = Vec::new();
    let mut seen: BTreeMap<&str, Vec<(String, String, String)>> = BTreeMap::new();
    for (variant, (file, log)) in &logs.by_variant {
        if !["adp", "gpu-only"].contains(&variant.as_str()) {
            continue;
        }
        let with = |d: Deviation| d.subject(format!("{variant} vLLM")).file(file.clone());
        if log.args_line.is_none() {
            out.push(with(
                Deviation::new("server arguments", "logged at start", "unknown")
                    .effect(
                        "the log has no `non-default args` line: model, tensor parallelism and max-model-len are unknown",
                        false,
                    )
                    .source(r.source.clone()),
            ));
            continue;
        }
        let arg = |k: &str| log.args.get(k).map(String::as_str).filter(|v| *v != "None");
        // Absent from `non-default args` means vLLM's default.
        let tp = arg("tensor_parallel_size").unwrap_or("1");
        let served = arg("served_model_name")
            .or(arg("model"))
            .unwrap_or("unknown");
        let len = arg("max_model_len").unwrap_or("the model's default");
        for (k, v) in [
            ("tensor_parallel_size", tp),
            ("model", served),
            ("max_model_len", len),
        ] {
            seen.entry(k)
                .or_default()
                .push((variant.clone(), v.to_string(), file.clone()));
        }
        if let Some(m) = model {
            out.extend(
                model_deviations(variant, &arg, m, r, time)
                    .into_iter()
                    .map(with),
            );
        }
    }
    out.extend(variants_differ(&seen, time));
    // The procedure's prompt is LINES=14580, about 196,500 tokens on its main model: an
    // unpublished model's prompt is set against that one (the other rows compare a
    // model's own published setup, so they need its row).
    let prompt_model = model.or_else(|| reference.model(&r.default_model));
    out.extend(prompt(
        transcripts,
        prompt_model,
        reference,
        &[time],
        &[cached],
    ));
    out
}

/// A server argument that differs between the variants (test 1 compares servers that
/// differ only in the connector).
fn variants_differ(
    seen: &BTreeMap<&str, Vec<(String, String, String)>>,
    time: &str,
) -> Vec<Deviation> {
    let mut out = Vec::new();
    for (k, values) in seen {
        let distinct: BTreeSet<&str> = values.iter().map(|(_, v, _)| v.as_str()).collect();
        if distinct.len() > 1 {
            let mut d = Deviation::new(
                format!("{k} (adp vs gpu-only)"),
                "the same in both variants",
                Phrase::join(
                    values
                        .iter()
                        .map(|(var, v, _)| phrase!("{} {}", named(var), named(v))),
                    ", ",
                ),
            )
            .effect(
                "the variants differ in more than the connector: restore vs recompute compares unlike servers",
                true,
            )
            .source("test 1: \"only the connector and its gateway differ between the two\"")
            .verdict(time);
            for (var, _, f) in values {
                d = d.subject(format!("{var} vLLM")).file(f.clone());
            }
            out.push(d);
        }
    }
    out
}

/// The server arguments of one variant's log against the published model's setup:
/// tensor parallelism, context limit and (ADP) the connector's chunk size.
fn model_deviations<'a>(
    variant: &str,
    arg: &dyn Fn(&str) -> Option<&'a str>,
    m: &ModelRef,
    r: &super::reference::RestoreRef,
    time: &str,
) -> Vec<Deviation> {
    let tp = arg("tensor_parallel_size").unwrap_or("1");
    let len = arg("max_model_len").unwrap_or("the model's default");
    let mut out = Vec::new();
    if tp != m.tensor_parallel_size.to_string() {
        out.push(
            Deviation::new(
                "tensor_parallel_size",
                phrase!("{}", printed(m.tensor_parallel_size as f64, 0)),
                Phrase::text(tp),
            )
                .effect(
                    format!(
                        "another tensor parallelism: prefill and restore spread over other GPUs and links, so the times are not comparable to the published {}'s",
                        m.title
                    ),
                    true,
                )
                .source(r.tp_source.clone())
                .verdict(time)
        );
    }
    if len != m.max_model_len.to_string() {
        out.push(
            Deviation::new(
                "max_model_len",
                phrase!("{}", printed(m.max_model_len as f64, 0)),
                Phrase::text(len),
            )
            .unit(Unit::Tokens)
            .effect(
                "another context limit: prompts longer than it fail; the times do not change",
                false,
            )
            .source(m.source.clone()),
        );
    }
    if variant == "adp" {
        let logged = arg("kv_transfer_config").and_then(chunk_size);
        let want = m
            .chunk_size
            .map(|c| phrase!("{}", count(c)))
            .or(m
                .chunk_multiple
                .map(|c| phrase!("a multiple of {}", count(c))))
            .unwrap_or_else(|| "the connector's default".into());
        let ok = match (logged, m.chunk_size, m.chunk_multiple) {
            (Some(c), Some(w), _) => c == w,
            (Some(c), None, Some(k)) => c % k == 0,
            (None, None, _) => true,
            (Some(_), None, None) => false,
            (None, Some(_), _) => false,
        };
        if !ok {
            out.push(
                Deviation::new(
                    "chunk_size",
                    want,
                    logged.map_or("not in the logged kv-transfer-config".into(), |c| {
                        phrase!("{}", count(c))
                    }),
                )
                .unit(Unit::Tokens)
                .effect(
                    "hits are rounded down to whole chunks: another size changes how many prompt tokens can be cached",
                    false,
                )
                .source(m.source.clone())
            );
        }
    }
    out
}

/// The prompt of the `ask` transcripts against the model's published one, and the same in
/// every transcript. `timed` are the criteria on times (they grow with the prompt, so
/// another length changes them); `shares` the criteria on the cached share, which does
/// not depend on the length except through whole-chunk rounding: a prompt under 100
/// chunks can lose more than 1% to it, and only then does its length feed them.
pub fn prompt(
    transcripts: &[(&str, &str, &[Attempt])],
    model: Option<&ModelRef>,
    reference: &KvReference,
    timed: &[&str],
    shares: &[&str],
) -> Vec<Deviation> {
    let r = &reference.restore;
    let mut out = Vec::new();
    let mut lengths: Vec<(&str, &str, u64)> = Vec::new();
    for (variant, file, attempts) in transcripts {
        if let Some(p) = attempts
            .iter()
            .filter(|a| a.failed.is_none())
            .filter_map(|a| a.prompt_tokens)
            .max()
        {
            lengths.push((variant, file, p));
        }
    }
    // The connector's chunk (LMCache's default, 256, when the model has none).
    let chunk = model.and_then(|m| m.chunk_size).unwrap_or(256);
    // A short prompt can only lower the cached share (whole-chunk rounding): where every
    // restore still reached 99%, the length changed nothing the share criterion judges.
    let lowest_share = transcripts
        .iter()
        .flat_map(|(_, _, a)| a.iter())
        .filter(|a| a.failed.is_none() && a.cached.is_some_and(|c| c > 0))
        .filter_map(|a| Some(a.cached? as f64 / a.prompt_tokens.filter(|p| *p > 0)? as f64))
        .fold(f64::INFINITY, f64::min);
    let rounds_below = |p: u64| p < chunk * 100 && lowest_share < 0.99;
    if let Some(m) = model {
        for (variant, file, p) in &lengths {
            let gap = (*p as f64 - m.prompt_tokens as f64).abs() / m.prompt_tokens as f64;
            if gap > r.max_prompt_gap {
                let mut d = Deviation::new(
                    "prompt length",
                    phrase!("~{}", count(m.prompt_tokens)),
                    phrase!("{}", count(*p)),
                )
                .unit(Unit::Tokens)
                    .subject(format!("{variant} requests"))
                    .file(file.to_string())
                    .effect(
                        format!(
                            "restore and recompute times grow with the prompt: the published {:.2} s vs {:.2} s are for ~{} tokens, and a short prompt meets the 5 s floor whatever the card does{}",
                            m.restore_s,
                            m.recompute_s,
                            m.prompt_tokens,
                            if rounds_below(*p) {
                                format!("; hits are whole chunks of {chunk} tokens, so a prompt under {} tokens cannot reach 99% cached either", chunk * 100)
                            } else {
                                String::new()
                            }
                        ),
                        true,
                    )
                    .source(format!(
                        "{}: prompt ~{} tokens",
                        m.title,
                        crate::model::units::grouped(&m.prompt_tokens.to_string())
                    ));
                for v in timed {
                    d = d.verdict(*v);
                }
                if rounds_below(*p) {
                    for v in shares {
                        d = d.verdict(*v);
                    }
                }
                out.push(d);
            }
        }
    }
    out.extend(prompts_differ(&lengths, timed));
    out
}

/// The variants' prompts of different lengths. new_prompt makes a fresh prompt per
/// variant with a unique run tag, so the lengths may differ by a token or two (as with
/// the real engine: 5,925 vs 5,926); more than 1% apart they are different prompts.
fn prompts_differ(lengths: &[(&str, &str, u64)], timed: &[&str]) -> Option<Deviation> {
    let distinct: BTreeSet<u64> = lengths.iter().map(|(_, _, p)| *p).collect();
    let (lo, hi) = (
        distinct.iter().next().copied().unwrap_or(0),
        distinct.iter().next_back().copied().unwrap_or(0),
    );
    if distinct.len() > 1 && (hi - lo) as f64 > 0.01 * hi as f64 {
        let mut d = Deviation::new(
            "prompt length (between variants)",
            "the same prompt",
            Phrase::join(
                lengths
                    .iter()
                    .map(|(v, _, p)| phrase!("{} {}", named(*v), count(*p))),
                ", ",
            ),
        )
        .unit(Unit::Tokens)
        .effect(
            "the variants timed different prompts: their ratio compares unlike with unlike",
            true,
        )
        .source("test 1: new_prompt once per variant, LINES the same");
        for (v, f, _) in lengths {
            d = d.subject(format!("{v} requests")).file(f.to_string());
        }
        for v in timed {
            d = d.verdict(*v);
        }
        return Some(d);
    }
    None
}

/// The servers' start commands, rebuilt from their logged non-default arguments.
pub fn server_commands(logs: &ServerLogs) -> Vec<RanCommand> {
    logs.by_variant
        .iter()
        .filter(|(_, (_, l))| l.args_line.is_some())
        .map(|(variant, (file, l))| {
            let mut cmd = String::from("vllm serve");
            for (k, v) in &l.args {
                let v = if v.contains(' ') || v.contains('{') {
                    format!("'{v}'")
                } else {
                    v.clone()
                };
                cmd.push_str(&format!(" --{}={v}", k.replace('_', "-")));
            }
            RanCommand {
                subject: format!("{variant} vLLM server"),
                command: cmd,
                source: format!("{file}:{}", l.args_line.unwrap_or(0)),
            }
        })
        .collect()
}

/// Where the procedure states the condition: "It must match in both variants, or the
/// test will measure a difference in GPU memory rather than the card."
pub const KV_SIZE_SOURCE: &str =
    "procedure, before test 1: \"check the GPU KV cache size vLLM logs at startup. It must match in both variants\"";

/// The procedure's condition of comparison on the GPU KV cache, for every verdict that
/// compares two variants (`ids`): a deviation when both variants' logs give a size and
/// the sizes differ. Unknown sizes are not a deviation here (test 1's criterion says what
/// it needs); equal sizes are none.
pub fn kv_cache_sizes(logs: &ServerLogs, variants: [&str; 2], ids: &[String]) -> Option<Deviation> {
    let size = |v: &str| {
        logs.by_variant
            .get(v)
            .and_then(|(f, l)| Some((f.clone(), l.kv_cache_tokens?)))
    };
    let ((fa, a), (fb, b)) = (size(variants[0])?, size(variants[1])?);
    if a == b {
        return None;
    }
    let mut d = Deviation::new(
        "GPU KV cache size",
        "the same in both variants",
        phrase!("{} {} · {} {} tokens", named(variants[0]), count(a), named(variants[1]), count(b)),
    )
    .subject(format!("{} vs {}", variants[0], variants[1]))
    .file(fa)
    .file(fb)
    .effect(
        "unequal GPU KV cache: a comparison of the variants measures a difference in GPU memory rather than the card",
        true,
    )
    .source(KV_SIZE_SOURCE);
    for id in ids {
        d = d.verdict(id.clone());
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_chunk_size_in_either_spelling() {
        assert_eq!(
            chunk_size(r#"{"kv_connector":"X","kv_connector_extra_config":{"chunk_size":128}}"#),
            Some(128)
        );
        assert_eq!(
            chunk_size("KVTransferConfig(kv_connector_extra_config={'chunk_size': 512})"),
            Some(512)
        );
        assert_eq!(chunk_size("KVTransferConfig(kv_connector='X')"), None);
    }
}
