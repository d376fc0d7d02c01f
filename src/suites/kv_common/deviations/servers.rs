//! Test 1's servers from their logs against the procedure's: the model, tensor
//! parallelism, context limit and chunk size, the variants against each other, the GPU
//! KV cache sizes; and the start commands rebuilt from the logged arguments.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase::{count, name as named, printed, Phrase};
use crate::phrase;
use crate::suites::RanCommand;

use super::prompt_length::prompt;
use crate::parse::ask::Attempt;
use crate::suites::kv_common::reference::{KvReference, ModelRef, RestoreRef};
use crate::suites::kv_common::ServerLogs;

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
    r: &RestoreRef,
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
