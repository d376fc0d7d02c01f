//! The criteria read from the server logs: the KV cache size in both variants, and the
//! connector's registration.

use super::named::verdict;
// The suite's imports, which the criteria used before the split.
use super::super::*;

pub(crate) fn kv_size_verdict(logs: &ServerLogs) -> Verdict {
    let mut v = verdict(
        "kv-cache-size",
        "The GPU KV cache size is the same in both variants",
    );
    v.threshold = "equal".into();
    v.published = "about 545,000 tokens on the reference setup (545,536)".into();
    v = v.with_numbers(
        None,
        Some(0.0),
        Some(0.0),
        UnitOf::new(Unit::Tokens, "(adp minus gpu-only)"),
    );
    let get = |variant: &str| {
        logs.by_variant
            .get(variant)
            .map(|(f, l)| (f.clone(), l.kv_cache_tokens))
    };
    let (a, p) = (get(ADP), get(PLAIN));
    v.files.extend(a.iter().map(|(f, _)| f.clone()));
    v.files.extend(p.iter().map(|(f, _)| f.clone()));
    match (a, p) {
        (Some((_, Some(x))), Some((_, Some(y)))) => {
            v.set_measured(Some(x as f64 - y as f64));
            // Which memory the engine says it is (the CPU backend logs `CPU KV cache`).
            let device = |variant: &str| {
                logs.by_variant
                    .get(variant)
                    .and_then(|(_, l)| l.kv_cache_device.clone())
            };
            let where_ = match (device(ADP), device(PLAIN)) {
                (Some(a), Some(p)) if a == p => phrase!(" ({} KV cache)", name(a)),
                (Some(a), Some(p)) => {
                    phrase!(" (adp: {}, gpu-only: {} KV cache)", name(a), name(p))
                }
                _ => Phrase::default(),
            };
            v.measured = phrase!("adp {} · gpu-only {} tokens{}", count(x), count(y), where_);
            v.status = if x == y { Status::Pass } else { Status::Fail };
            if x != y {
                v.note =
                    "unequal GPU KV cache: the test would measure GPU memory, not the card".into();
            }
        }
        (a, p) => {
            v.note = Phrase::words(format!(
                "needs the `GPU KV cache size` line in both logs/adp-vllm.log and logs/gpu-only-vllm.log (adp: {}, gpu-only: {})",
                describe(&a),
                describe(&p)
            ));
        }
    }
    v
}

pub(super) fn describe(x: &Option<(String, Option<u64>)>) -> &'static str {
    match x {
        None => "no log",
        Some((_, None)) => "no size line",
        Some((_, Some(_))) => "found",
    }
}

pub(crate) fn connector_verdict(logs: &ServerLogs) -> Verdict {
    let mut v = verdict(
        "connector",
        "The ADP variant logs that the connector registered",
    );
    v.threshold = "XKV: <N> cache tensors registered for exchange".into();
    v = v.with_numbers(None, Some(1.0), None, UnitOf::count("registration lines"));
    let Some((file, log)) = logs.by_variant.get(ADP) else {
        v.note = "no ADP server log (logs/adp-vllm.log)".into();
        return v;
    };
    v.files.push(file.clone());
    match &log.xkv_line {
        Some(line) => {
            v.set_measured(Some(1.0));
            v.measured = phrase!("{} tensors", count(log.xkv_tensors.unwrap_or(0)));
            v.status = Status::Pass;
            v.note = Phrase::words(line.clone());
        }
        None => match log.connectors.first() {
            // Another KV connector (vLLM's ExampleConnector in the real-engine tests):
            // restores are real, but not the card's.
            Some((line, name)) => {
                v.set_measured(Some(1.0));
                v.measured = phrase!("{} created", crate::model::phrase::name(name));
                v.status = Status::NotComparable;
                v.note = Phrase::words(format!(
                    "not comparable (would have been pass): `{file}` line {line} creates the KV connector `{name}`, not the product's FusIOnXConnector: its restores are real, but not the card's"
                ));
            }
            None => {
                v.set_measured(Some(0.0));
                v.measured = "not logged".into();
                v.status = Status::Fail;
                v.note =
                    "the connector did not register: restores cannot come from the card".into();
            }
        },
    }
    v
}
