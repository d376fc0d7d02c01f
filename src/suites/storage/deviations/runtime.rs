//! The run's length: the configured runtime, fio's own account of it, and whether the
//! job's series reached steady state.

use crate::fio::params::{self, parse_seconds};
use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase::{count, fixed, qty, Phrase};
use crate::phrase;

use crate::suites::storage::load::RunGroup;
use crate::suites::storage::reference::{Procedure, Reference};
use crate::suites::storage::steady::{self, Steady};

/// The configured runtime, and fio's own account of how long the job ran.
pub(super) fn runtime(
    g: &RunGroup,
    reference: &Reference,
    headline: bool,
    steady: Option<&(Steady, String)>,
) -> Option<Deviation> {
    let p = &reference.procedure;
    let configured = params::get(&g.group.options, "runtime");
    let actual_ms = g.group.read.runtime_ms.max(g.group.write.runtime_ms);
    let actual_s = actual_ms as f64 / 1000.0;
    let short = actual_s < p.runtime_floor_s;
    // Where the job has a per-second series, a short run is judged by it: steady over
    // its window, the numbers stand; too few samples or not steady, they are not
    // comparable. Without a series, most SSDs do not reach steady state that fast.
    // A series longer than the job (idle seconds aside) is not this job's: it says
    // nothing about it.
    let steady = steady.filter(|(s, _)| s.active as f64 <= actual_s.ceil() + 2.0);
    let steady_enough = steady.is_some_and(|(s, _)| s.outcome == steady::Outcome::Reached);
    let changes = short && headline && !steady_enough;
    let evidence = steady.map(|(s, f)| (s.describe(&reference.steady_state), f.clone()));
    let effect = |why: &str| {
        if short && headline {
            let ran = phrase!(
                "{}: fio ran {} s, under the procedure's {} s",
                crate::model::phrase::name(why),
                fixed(actual_s, 1),
                count(p.runtime_s)
            )
            .to_string();
            judged_by_series(&ran, evidence.as_ref(), steady_enough)
        } else if short {
            phrase!(
                "{}: fio ran {} s",
                crate::model::phrase::name(why),
                fixed(actual_s, 1)
            )
            .to_string()
        } else {
            phrase!(
                "{}; fio ran {} s, as long as the procedure's runs",
                crate::model::phrase::name(why),
                fixed(actual_s, 1)
            )
            .to_string()
        }
    };
    let differs = configured
        .and_then(parse_seconds)
        .is_none_or(|secs| (secs - p.runtime_s as f64).abs() > 1e-9);
    if differs {
        let d = other_runtime(p, configured, effect, changes);
        return Some(with_series(d, steady, short && headline));
    }
    (short && headline).then(|| {
        let d = fios_account(p, actual_s, evidence, steady_enough, changes);
        with_series(d, steady, true)
    })
}

/// A configured runtime other than the procedure's (or none): the deviation, its effect
/// worded by `effect`.
fn other_runtime(
    p: &Procedure,
    configured: Option<&str>,
    effect: impl Fn(&str) -> String,
    changes: bool,
) -> Deviation {
    let ran = Phrase::text(configured.map_or("not set".to_string(), trim_s));
    let why = if configured.is_some() {
        "another --runtime"
    } else {
        "no --runtime: the run lasts until its --size is done"
    };
    Deviation::new("runtime", phrase!("{}", count(p.runtime_s)), ran)
        .unit(Unit::Seconds)
        .effect(effect(why), changes)
        .source(p.size_source.clone())
}

/// The procedure's runtime configured, but fio's own account says the job stopped short.
fn fios_account(
    p: &Procedure,
    actual_s: f64,
    evidence: Option<(String, String)>,
    steady_enough: bool,
    changes: bool,
) -> Deviation {
    Deviation::new(
        "runtime (fio's account)",
        phrase!("{}", count(p.runtime_s)),
        phrase!("{}", fixed(actual_s, 1)),
    )
    .unit(Unit::Seconds)
    .effect(
        judged_by_series(
            &phrase!(
                "the job stopped after {} s (its --size was reached?)",
                fixed(actual_s, 1)
            )
            .to_string(),
            evidence.as_ref(),
            steady_enough,
        ),
        changes,
    )
    .source(p.size_source.clone())
}

/// What a short run's series says of it: `ran` and the evidence.
fn judged_by_series(ran: &str, evidence: Option<&(String, String)>, steady: bool) -> String {
    match evidence {
        Some((seen, file)) if steady => {
            format!("{ran}, but `{file}` shows it {seen}: the numbers stand")
        }
        Some((seen, file)) => format!(
            "{ran}, and `{file}` shows {seen}: the numbers are not comparable to the published ones"
        ),
        None => format!(
            "{ran}; no steady state on most SSDs, so the numbers are not comparable to the published ones"
        ),
    }
}

/// Names the iostat series a runtime deviation was judged by.
fn with_series(d: Deviation, steady: Option<&(Steady, String)>, judged: bool) -> Deviation {
    match steady {
        // A series from fio's own logs names each job's log.
        Some((_, files)) if judged => files.split(';').fold(d, |d, f| d.evidence(f)),
        _ => d,
    }
}

/// A headline job of the procedure's length whose series is not steady: listed (the
/// procedure does not judge steady state; the published runs are 60 s after a
/// precondition too).
pub(super) fn not_steady(
    g: &RunGroup,
    reference: &Reference,
    steady: Option<&(Steady, String)>,
) -> Option<Deviation> {
    let (s, file) = steady?;
    let actual_s = g.group.read.runtime_ms.max(g.group.write.runtime_ms) as f64 / 1000.0;
    if s.outcome != steady::Outcome::NotReached || actual_s < reference.procedure.runtime_floor_s {
        return None;
    }
    Some(
        Deviation::new(
            "steady state",
            "reached (60 s after a precondition)",
            phrase!(
                "not reached: range {}, line {}",
                qty(s.range.unwrap_or(f64::NAN) * 100.0, 0, Unit::Percent),
                qty(s.excursion.unwrap_or(f64::NAN) * 100.0, 0, Unit::Percent)
            ),
        )
        .effect(
            format!(
                "`{file}` shows the job {}: its number may still be moving; a longer precondition or runtime settles it",
                s.describe(&reference.steady_state)
            ),
            false,
        )
        .source(reference.steady_state.source.clone()),
    )
    .map(|d| file.split(';').fold(d, |d, f| d.evidence(f)))
}

fn trim_s(raw: &str) -> String {
    raw.trim().trim_end_matches('s').to_string()
}
