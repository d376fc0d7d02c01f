//! The KV suites' measurements: per ladder level and variant the client's throughput,
//! TTFT, generation rate and hit rates; per transcript the median restore and recompute
//! times. A level whose run failed measures a partial load and is left out; a failed
//! request measures nothing.

use std::collections::BTreeMap;

use crate::model::measurement::{
    range_over, Better, Measurement, Noise, ParamValue, Parameter, Scope, Unit,
};
use crate::parse::ask::Attempt;

use super::ladder::Level;
use super::{ServerLogs, PLAIN};

pub fn ladder(levels: &[Level], suite: &str) -> Vec<Measurement> {
    let mut out = Vec::new();
    for l in levels {
        if l.failures.unwrap_or(0) > 0 || l.died.as_deref().is_some_and(|d| !d.is_empty()) {
            continue;
        }
        let subject = format!("{} · {} clients", l.variant, l.clients);
        let file = format!("{}-L{}.json", l.prefix, l.clients);
        let metrics = [
            (
                "output throughput",
                l.output_tok_s,
                Unit::TokensPerSecond,
                Better::Higher,
            ),
            ("TTFT p50", l.ttft_p50_s, Unit::Seconds, Better::Lower),
            (
                "generation rate",
                l.gen_tok_s,
                Unit::TokensPerSecond,
                Better::Higher,
            ),
            ("GPU hit rate", l.gpu_hit_pct, Unit::Percent, Better::Higher),
            (
                "card hit rate",
                l.card_hit_pct,
                Unit::Percent,
                Better::Higher,
            ),
        ];
        out.extend(metrics.into_iter().filter_map(|(metric, v, unit, better)| {
            Measurement::of(suite, &subject, metric, v, unit, better, &file)
        }));
    }
    out
}

/// (variant, file, restored) -> the seconds of the answered requests.
type Groups = BTreeMap<(String, String, bool), Vec<f64>>;

/// The median restore time of each transcript (requests that hit the cache), and the
/// plain variant's median recompute time; the ADP transcript's first request writes the
/// prompt and is neither.
pub fn restores(
    transcripts: &BTreeMap<String, (String, Vec<Attempt>)>,
    suite: &str,
) -> Vec<Measurement> {
    let mut groups = Groups::new();
    for (variant, (file, attempts)) in transcripts {
        for a in attempts {
            if a.failed.as_deref().is_some_and(|f| !f.is_empty()) {
                continue;
            }
            let Some(secs) = a.seconds.filter(|s| s.is_finite()) else {
                continue;
            };
            let restored = a.cached.is_some_and(|c| c > 0);
            if !restored && variant != PLAIN {
                continue;
            }
            groups
                .entry((variant.clone(), file.clone(), restored))
                .or_default()
                .push(secs);
        }
    }
    let mut out = Vec::new();
    for ((variant, file, restored), mut times) in groups {
        // The procedure's repeat of a slow first run: the repeat is used in its place,
        // as the verdicts use it.
        if times.len() > super::restore::TIMED_RUNS && super::restore::slow_first(&times) {
            times.remove(0);
        }
        let Some(m) = super::stats::median(&times).filter(|m| *m > 0.0) else {
            continue;
        };
        let noise = (times.len() >= 2).then(|| Noise {
            relative: range_over(&times, m),
            source: format!("spread of {} repeated requests", times.len()),
            standard_error: None,
        });
        let metric = if restored {
            "restore time (median)"
        } else {
            "recompute time (median)"
        };
        out.extend(
            Measurement::of(
                suite,
                &variant,
                metric,
                Some(m),
                Unit::Seconds,
                Better::Lower,
                &file,
            )
            .map(|x| x.with_noise(noise)),
        );
    }
    out
}

/// Each server's logged non-default arguments, per variant.
pub fn server_parameters(logs: &ServerLogs) -> Vec<Parameter> {
    let mut out = Vec::new();
    for (variant, (file, log)) in &logs.by_variant {
        if log.args_line.is_none() {
            continue;
        }
        for (name, value) in &log.args {
            out.push(Parameter {
                subject: variant.clone(),
                name: name.clone(),
                value: ParamValue::Text(value.clone()),
                unit: None,
                scope: Scope::Server,
                file: file.clone(),
            });
        }
    }
    out
}
