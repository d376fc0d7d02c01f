//! Test 2's criteria: parity at 1-4 clients, the advantage past the GPU cache, failures,
//! the connector staying on.

use super::*;

pub(super) fn base(id: String, criterion: String) -> Verdict {
    Verdict::new(
        id,
        criterion,
        "-",
        "pass criteria only (synthetic workload)",
    )
}

pub(super) fn parity_verdict(agg: &Aggregate, n: u32, min_ratio: f64, max_spread: f64) -> Verdict {
    let mut v = base(
        format!("kv-ladder.L{n}-parity"),
        format!("{n} client(s): ADP within 10% of plain vLLM in output tok/s and gen tok/s"),
    );
    v.threshold = phrase!(">= {} in both", qty(min_ratio, 2, Unit::Ratio));
    v = v.with_numbers(
        None,
        Some(min_ratio),
        None,
        UnitOf::new(Unit::Ratio, "(the lower of output and gen)"),
    );
    v.files = agg.files(&[ADP, PLAIN], n);
    let (ao, _) = agg.metric(ADP, n, OUTPUT);
    let (po, _) = agg.metric(PLAIN, n, OUTPUT);
    let (ag, _) = agg.metric(ADP, n, GEN);
    let (pg, _) = agg.metric(PLAIN, n, GEN);
    let (Some(ao), Some(po), Some(ag), Some(pg)) = (ao, po, ag, pg) else {
        return no_medians(v, agg, n);
    };
    let (ro, rg) = (ao / po, ag / pg);
    v.set_measured(Some(ro.min(rg)));
    v.measured = phrase!(
        "output {} ({} vs {}), gen {} ({} vs {})",
        qty(ro, 2, Unit::Ratio),
        fixed(ao, 1),
        fixed(po, 1),
        qty(rg, 2, Unit::Ratio),
        fixed(ag, 1),
        fixed(pg, 1)
    );
    let fed = format!("medians of {}", fed_by(agg, &[ADP, PLAIN], n));
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    let spread = too_spread(agg, &[ADP, PLAIN], n, max_spread, RATES);
    (v.status, v.note) = if !failing.is_empty() {
        (
            Status::Fail,
            format!("a run of this level failed: {}; {fed}", failing.join("; ")),
        )
    } else if !spread.is_empty() {
        (
            Status::Inconclusive,
            format!("{}; {fed}", spread.join("; ")),
        )
    } else if ro >= min_ratio && rg >= min_ratio {
        (Status::Pass, fed)
    } else {
        (Status::Fail, fed)
    };
    v
}

/// A level without medians for both variants: failed when a run of it failed (a failing
/// run is never averaged away, and never left unjudged), else not measured.
pub(super) fn no_medians(mut v: Verdict, agg: &Aggregate, n: u32) -> Verdict {
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    if failing.is_empty() {
        v.note = format!("needs the {n}-client level of both adp and gpu-only with records");
    } else {
        v.status = Status::Fail;
        v.note = format!(
            "a run of this level failed: {}; {}",
            failing.join("; "),
            fed_by(agg, &[ADP, PLAIN], n)
        );
    }
    v
}

pub(super) fn advantage_verdict(agg: &Aggregate, n: u32, max_spread: f64) -> Verdict {
    let mut v = base(
        format!("kv-ladder.L{n}-advantage"),
        format!("{n} clients: with ADP higher output and gen tok/s, lower TTFT p50, card hits > 0"),
    );
    v.threshold = "all four".into();
    v = v.with_numbers(None, Some(4.0), None, UnitOf::count("of 4 conditions met"));
    v.files = agg.files(&[ADP, PLAIN], n);
    // The card hits come from the ADP runs' snapshots.
    v.files.extend(
        agg.runs(ADP, n)
            .iter()
            .flat_map(|l| l.files.iter().filter(|f| f.ends_with(".prom")).cloned()),
    );
    let m = |var, f| agg.metric(var, n, f).0;
    let (Some(ao), Some(po), Some(ag), Some(pg), Some(at), Some(pt)) = (
        m(ADP, OUTPUT),
        m(PLAIN, OUTPUT),
        m(ADP, GEN),
        m(PLAIN, GEN),
        m(ADP, TTFT),
        m(PLAIN, TTFT),
    ) else {
        return no_medians(v, agg, n);
    };
    let card: Vec<f64> = agg
        .runs(ADP, n)
        .iter()
        .filter_map(|l| l.card_hits)
        .collect();
    v.measured = phrase!(
        "output {}, gen {}, TTFT {} vs {} s, card hits {}",
        qty(ao / po, 2, Unit::Ratio),
        qty(ag / pg, 2, Unit::Ratio),
        fixed(at, 2),
        fixed(pt, 2),
        if card.is_empty() {
            Phrase::dash()
        } else {
            phrase!("{}", qty(median(&card).unwrap_or(0.0), 0, Unit::Tokens))
        }
    );
    let mut missed = Vec::new();
    if ao <= po {
        missed.push("output tok/s not higher");
    }
    if ag <= pg {
        missed.push("gen tok/s not higher");
    }
    if at >= pt {
        missed.push("TTFT p50 not lower");
    }
    if card.is_empty() {
        missed.push("card hits not measured (no .prom snapshots)");
    } else if card.iter().any(|&c| c <= 0.0) {
        missed.push("no card hits in a run");
    }
    if !card.is_empty() {
        v.set_measured(Some(4.0 - missed.len() as f64));
    }
    let fed = format!("medians of {}", fed_by(agg, &[ADP, PLAIN], n));
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    let spread = too_spread(agg, &[ADP, PLAIN], n, max_spread, RATES_AND_TTFT);
    (v.status, v.note) = if !failing.is_empty() {
        (
            Status::Fail,
            format!("a run of this level failed: {}; {fed}", failing.join("; ")),
        )
    } else if !spread.is_empty() {
        (
            Status::Inconclusive,
            format!("{}; {fed}", spread.join("; ")),
        )
    } else if missed.is_empty() {
        (Status::Pass, fed)
    } else if card.is_empty() && missed.len() == 1 {
        (Status::NotMeasured, format!("{}; {fed}", missed.join("; ")))
    } else {
        (Status::Fail, format!("{}; {fed}", missed.join("; ")))
    };
    v
}

pub(super) fn failures_verdict(levels: &[Level]) -> Verdict {
    let mut v = base(
        "kv-ladder.failures".into(),
        "Both variants: every level finishes with num_failures=0".into(),
    );
    v.threshold = "0 at every level".into();
    v.published = "num_failures=0".into();
    v = v.with_numbers(
        None,
        Some(0.0),
        Some(0.0),
        UnitOf::count("levels with failures"),
    );
    let mut bad = Vec::new();
    let mut unknown = Vec::new();
    let mut checked = 0;
    for l in levels
        .iter()
        .filter(|l| l.variant == ADP || l.variant == PLAIN)
    {
        let name = format!("{}-L{}", l.prefix, l.clients);
        let died = l.died.as_ref();
        match (l.failures, died) {
            (_, Some(d)) => bad.push(format!("{name}: the client died: {d}")),
            (Some(0), None) => checked += 1,
            (Some(f), None) => bad.push(format!("{name}: {f} failed requests")),
            (None, None) => unknown.push(name.clone()),
        }
        // Every log it counted, clean ones included.
        v.files
            .extend(l.files.iter().filter(|f| f.ends_with(".log")).cloned());
    }
    if checked + bad.len() > 0 {
        v.set_measured(Some(bad.len() as f64));
    }
    v.measured = phrase!(
        "{} clean, {} with failures, {} unknown",
        count(checked),
        count(bad.len()),
        count(unknown.len())
    );
    v.status = if !bad.is_empty() {
        Status::Fail
    } else if !unknown.is_empty() || checked == 0 {
        Status::NotMeasured
    } else {
        Status::Pass
    };
    let mut note = bad;
    if !unknown.is_empty() {
        note.push(format!(
            "no `Client N is done` counts for {} (capture stderr too: `2>&1 | tee`)",
            unknown.join(", ")
        ));
    }
    v.note = note.join("; ");
    v
}

pub(super) fn turned_off_verdict(logs: &kv_common::ServerLogs) -> Verdict {
    let mut v = base(
        "kv-ladder.connector-on".into(),
        "The ADP vLLM log never prints `External KV cache turned off on this rank`".into(),
    );
    v.threshold = "never".into();
    v.published = "never".into();
    v = v.with_numbers(None, Some(0.0), Some(0.0), UnitOf::count("lines"));
    let Some((file, log)) = logs.by_variant.get(ADP) else {
        v.note = "no ADP server log (logs/adp-vllm.log)".into();
        return v;
    };
    v.files.push(file.clone());
    v.set_measured(Some(log.turned_off.len() as f64));
    v.measured = phrase!("{} times", count(log.turned_off.len()));
    if log.turned_off.is_empty() {
        v.status = Status::Pass;
    } else {
        v.status = Status::Fail;
        let lines: Vec<String> = log.turned_off.iter().map(|l| l.to_string()).collect();
        v.note = format!(
            "`{file}` line(s) {}: the connector switched itself off",
            lines.join(", ")
        );
    }
    v
}
