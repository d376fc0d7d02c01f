//! The prompt's length in the `ask` transcripts against the model's published one, and
//! between the variants.

use std::collections::BTreeSet;

use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase::{count, name as named, Phrase};
use crate::phrase;

use crate::parse::ask::Attempt;
use crate::suites::kv_common::reference::{KvReference, ModelRef};

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
                        phrase!(
                            "restore and recompute times grow with the prompt: the published {} s vs {} s are for ~{} tokens, and a short prompt meets the 5 s floor whatever the card does{}",
                            crate::model::phrase::fixed(m.restore_s, 2),
                            crate::model::phrase::fixed(m.recompute_s, 2),
                            count(m.prompt_tokens),
                            named(if rounds_below(*p) {
                                format!("; hits are whole chunks of {chunk} tokens, so a prompt under {} tokens cannot reach 99% cached either", chunk * 100)
                            } else {
                                String::new()
                            })
                        )
                        .to_string(),
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
