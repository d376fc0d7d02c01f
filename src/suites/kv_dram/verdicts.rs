//! Test 3's criteria: matching generation rates under load, every restore served from cache.

use super::*;

pub(super) fn gen_verdict(agg: &Aggregate, n: u32, gap: f64, max_spread: f64) -> Verdict {
    let mut v = Verdict::new(
        format!("kv-dram.L{n}-gen"),
        format!("{n} clients: LMCache and the connector alone generate at matching rates"),
        phrase!("within {}", qty(gap * 100.0, 0, Unit::Percent)),
        "matching generation rates under load",
    )
    .with_numbers(
        None,
        Some(gap * 100.0),
        None,
        UnitOf::new(Unit::Percent, "difference"),
    );
    for var in [ADP, LMCACHE] {
        v.files.extend(
            agg.runs(var, n)
                .iter()
                .flat_map(|l| l.files.iter().filter(|f| f.ends_with(".json")).cloned()),
        );
    }
    let (Some(a), Some(l)) = (agg.metric(ADP, n, GEN).0, agg.metric(LMCACHE, n, GEN).0) else {
        let failing = failing_runs(agg, &[ADP, LMCACHE], n);
        if failing.is_empty() {
            v.note = Phrase::words(format!(
                "needs results/adp-*-L{n} and results/lmcache-*-L{n}"
            ));
        } else {
            v.status = Status::Fail;
            v.note = Phrase::words(format!(
                "a run of this level failed: {}; {}",
                failing.join("; "),
                fed_by(agg, &[ADP, LMCACHE], n)
            ));
        }
        return v;
    };
    let diff = l / a - 1.0;
    v.set_measured(Some(diff * 100.0));
    v.measured = phrase!(
        "lmcache {} vs adp {} tok/s ({}%)",
        fixed(l, 1),
        fixed(a, 1),
        signed(diff * 100.0, 1)
    );
    let fed = format!("medians of {}", fed_by(agg, &[ADP, LMCACHE], n));
    let gen = &[("gen tok/s", GEN)];
    let settled = settled_before_numbers(agg, &[ADP, LMCACHE], n, max_spread, gen, &fed);
    let (status, note): (Status, Phrase) = if let Some((status, note)) = settled {
        (status, Phrase::words(note))
    } else if let Some(judged) = gen_interval(agg, n, gap) {
        v.interval = Some(judged.interval);
        (
            judged.status,
            phrase!("{}; {}", Phrase::words(fed), judged.note),
        )
    } else {
        let status = if diff.abs() <= gap {
            Status::Pass
        } else {
            Status::Fail
        };
        (
            status,
            Phrase::words(format!("{fed}; {}", agg.within_missing(&[ADP, LMCACHE], n))),
        )
    };
    (v.status, v.note) = (status, note);
    v
}

/// A generation-rate criterion judged by its interval over the runs.
pub(super) struct Judged {
    interval: crate::model::verdict::Interval,
    status: Status,
    note: Phrase,
}

/// LMCache's generation rate over the connector's at a level, as the 95% interval over
/// the runs that feed the medians (Student t on the log ratio, variance pooled over both
/// variants), in the criterion's unit (percent difference): pass when all of it lies
/// within ±`gap`, fail when all of it lies outside, inconclusive when it straddles a
/// bound (with how many runs of each would settle it at the spread seen). With one run
/// of each variant, the interval from within the two runs
/// ([`crate::suites::kv_common::within`]). None when no interval can be had.
pub(super) fn gen_interval(agg: &Aggregate, n: u32, gap: f64) -> Option<Judged> {
    use crate::stats::ratio::Settle;
    // Over the runs; with one run of each variant, from within the two runs.
    let r =
        crate::stats::ratio::ratio_pooled(&agg.values(ADP, n, GEN), &agg.values(LMCACHE, n, GEN))
            .filter(|r| r.interval.is_some())
            .or_else(|| agg.within_ratio(ADP, LMCACHE, n, GEN))?;
    let (low, high, _, method) = r.interval?;
    let (lo_bound, hi_bound) = (1.0 - gap, 1.0 + gap);
    let status = if low >= lo_bound && high <= hi_bound {
        Status::Pass
    } else if low > hi_bound || high < lo_bound {
        Status::Fail
    } else {
        Status::Inconclusive
    };
    let mut note = phrase!(
        "95% interval of lmcache over adp ({}): {}% to {}%",
        phrase::name(method.name()),
        signed((low - 1.0) * 100.0, 1),
        signed((high - 1.0) * 100.0, 1)
    );
    if status == Status::Inconclusive {
        // The bound the interval crosses is the one to settle; crossing both, the one
        // nearer the estimate on the log scale the interval is taken on.
        let (over, under) = (high > hi_bound, low < lo_bound);
        let bound = match (over, under) {
            (true, false) => hi_bound,
            (false, true) => lo_bound,
            _ if (hi_bound / r.estimate).ln().abs() <= (r.estimate / lo_bound).ln().abs() => {
                hi_bound
            }
            _ => lo_bound,
        };
        let straddles = signed((bound - 1.0) * 100.0, 0);
        note = match r.runs_to_settle(bound) {
            Settle::Runs(k) => phrase!(
                "{}; it straddles {}%: about {} runs of each variant would settle it at the spread seen",
                note,
                straddles,
                count_of(k)
            ),
            _ if r.n_base == 1 && r.n_cand == 1 => phrase!(
                "{}; it straddles {}%: {}",
                note,
                straddles,
                crate::suites::kv_common::within::UNSETTLED
            ),
            _ => phrase!("{}; it straddles {}%", note, straddles),
        };
    }
    Some(Judged {
        interval: crate::model::verdict::Interval {
            low: (low - 1.0) * 100.0,
            high: (high - 1.0) * 100.0,
            level: 0.95,
            method: method.name().to_string(),
            runs: vec![r.n_base, r.n_cand],
            apart: false,
        },
        status,
        note,
    })
}

pub(super) fn hits_verdict(all: &[(String, (String, Vec<Attempt>))], share: f64) -> Verdict {
    let mut v = Verdict {
        files: all.iter().map(|(_, (f, _))| f.clone()).collect(),
        ..Verdict::new(
            "kv-dram.restores-hit",
            "Every restore (after reset or restart) is served from cache, >= 99% of prompt_tokens",
            phrase!(">= {}", qty(share * 100.0, 0, Unit::Percent)),
            Phrase::dash(),
        )
    }
    .with_numbers(
        None,
        Some(share * 100.0),
        None,
        UnitOf::new(Unit::Percent, "of restores hit"),
    );
    if all.is_empty() {
        v.note = "no dram/<variant>-warm.txt or -restart.txt transcripts".into();
        return v;
    }
    let mut misses = Vec::new();
    let mut failed = Vec::new();
    let mut count = 0;
    for (name, (file, attempts)) in all {
        for a in attempts.iter().skip(1) {
            count += 1;
            if let Some(why) = &a.failed {
                failed.push(format!("{name} `{file}` line {}: {why}", a.line));
                continue;
            }
            let ok = matches!((a.prompt_tokens, a.cached), (Some(p), Some(c)) if p > 0 && c as f64 >= share * p as f64);
            if !ok {
                misses.push(format!(
                    "{name} `{file}` line {}: {} of {} cached",
                    a.line,
                    a.cached.map_or("null".into(), |c| c.to_string()),
                    a.prompt_tokens.unwrap_or(0)
                ));
            }
        }
    }
    let hit = count - misses.len() - failed.len();
    v.set_measured((count > 0).then(|| hit as f64 * 100.0 / count as f64));
    v.measured = phrase!(
        "{} of {} restores hit{}",
        count_of(hit),
        count_of(count),
        if failed.is_empty() {
            Phrase::default()
        } else {
            phrase!(", {} failed", count_of(failed.len()))
        }
    );
    v.status = if count == 0 {
        Status::NotMeasured
    } else if !misses.is_empty() {
        Status::Fail
    } else if !failed.is_empty() {
        Status::Inconclusive
    } else {
        Status::Pass
    };
    let mut note = misses;
    if !failed.is_empty() {
        note.push(format!(
            "failed requests measure nothing: {}",
            failed.join("; ")
        ));
    }
    v.note = Phrase::words(note.join("; "));
    v
}
