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
    let metrics = [("output", OUTPUT, ro), ("gen", GEN, rg)];
    let runs = runs_interval(agg, n, &metrics).or_else(|| within_interval(agg, n, &metrics));
    let (status, note): (Status, Phrase) = if !failing.is_empty() {
        (
            Status::Fail,
            Phrase::words(format!(
                "a run of this level failed: {}; {fed}",
                failing.join("; ")
            )),
        )
    } else if !spread.is_empty() {
        (
            Status::Inconclusive,
            Phrase::words(format!("{}; {fed}", spread.join("; "))),
        )
    } else if let Some(runs) = runs {
        v.interval = Some(runs.interval.clone());
        let status = runs.status(min_ratio, false);
        let note = phrase!("{}; {}", Phrase::words(fed), runs.said(min_ratio, status));
        (status, note)
    } else {
        let status = if ro >= min_ratio && rg >= min_ratio {
            Status::Pass
        } else {
            Status::Fail
        };
        (
            status,
            Phrase::words(format!("{fed}; {}", agg.within_missing(&[ADP, PLAIN], n))),
        )
    };
    (v.status, v.note) = (status, note);
    v
}

/// How the advantage's three comparisons are judged.
const ADVANTAGE_BY: &str = "each comparison judged by its 95% interval over the runs (Student t on the log ratio, variance pooled over both variants) where both variants have two runs or more, else, with one run of each, by its 95% interval from within the two runs (batches of each run; weaker than repeats), else by the medians";

/// The 95% intervals of ADP over plain vLLM at a level, one per metric the criterion
/// needs, from the runs that feed the medians (the procedure's two runs per variant are
/// repeats; the variance is pooled over both variants, which run one workload on one
/// setup): the status follows the intervals, not the medians.
struct RunsInterval {
    /// The interval of the metric with the lower median ratio (the one the verdict shows).
    interval: crate::model::verdict::Interval,
    /// (name, ratio of the runs, low, high) per metric.
    each: Vec<(&'static str, crate::stats::ratio::Ratio)>,
}

impl RunsInterval {
    /// Pass when every metric's interval clears the threshold, fail when one lies wholly
    /// short of it, inconclusive when one straddles it.
    fn status(&self, threshold: f64, strict: bool) -> Status {
        use crate::stats::ratio::Against;
        let against: Vec<Option<Against>> = self
            .each
            .iter()
            .map(|(_, r)| r.against(threshold, strict))
            .collect();
        if against.iter().all(|a| *a == Some(Against::Above)) {
            Status::Pass
        } else if against.contains(&Some(Against::Below)) {
            Status::Fail
        } else {
            Status::Inconclusive
        }
    }

    fn said(&self, threshold: f64, status: Status) -> Phrase {
        use crate::stats::ratio::Settle;
        let mut parts: Vec<Phrase> = self
            .each
            .iter()
            .filter_map(|(metric, r)| {
                let (lo, hi, _, _) = r.interval?;
                Some(phrase!(
                    "{} {}x..{}x",
                    name(*metric),
                    fixed(lo, 3),
                    fixed(hi, 3)
                ))
            })
            .collect();
        parts.insert(
            0,
            phrase!("95% intervals ({})", name(self.interval.method.as_str())),
        );
        if status == Status::Inconclusive {
            let more = self
                .each
                .iter()
                .filter_map(|(_, r)| match r.runs_to_settle(threshold) {
                    Settle::Runs(k) => Some(k),
                    _ => None,
                })
                .max();
            parts.push(match more {
                Some(k) => phrase!(
                    "an interval straddles {}: about {} runs of each variant would settle it at the spread seen",
                    fixed(threshold, 2),
                    count(k)
                ),
                None if self.interval.runs == [1, 1] => phrase!(
                    "an interval straddles {}: {}",
                    fixed(threshold, 2),
                    crate::suites::kv_common::within::UNSETTLED
                ),
                None => phrase!("an interval straddles {}", fixed(threshold, 2)),
            });
        }
        Phrase::join(parts, "; ")
    }
}

fn runs_interval(
    agg: &Aggregate,
    n: u32,
    metrics: &[(&'static str, &str, f64)],
) -> Option<RunsInterval> {
    intervals(metrics, |m| {
        let (adp, plain) = (agg.values(ADP, n, m), agg.values(PLAIN, n, m));
        crate::stats::ratio::ratio_pooled(&plain, &adp)
    })
}

/// As [`runs_interval`] for a level where each variant ran once: the intervals from
/// within the two runs.
fn within_interval(
    agg: &Aggregate,
    n: u32,
    metrics: &[(&'static str, &str, f64)],
) -> Option<RunsInterval> {
    intervals(metrics, |m| agg.within_ratio(PLAIN, ADP, n, m))
}

fn intervals(
    metrics: &[(&'static str, &str, f64)],
    ratio: impl Fn(&str) -> Option<crate::stats::ratio::Ratio>,
) -> Option<RunsInterval> {
    let mut each = Vec::new();
    for (name, m, _) in metrics {
        let r = ratio(m)?;
        r.interval?;
        each.push((*name, r));
    }
    let lowest = metrics
        .iter()
        .zip(&each)
        .min_by(|a, b| a.0 .2.total_cmp(&b.0 .2))
        .map(|(_, (_, r))| r)?;
    let (low, high, _, method) = lowest.interval?;
    Some(RunsInterval {
        interval: crate::model::verdict::Interval {
            low,
            high,
            level: 0.95,
            method: method.name().to_string(),
            runs: vec![lowest.n_base, lowest.n_cand],
        },
        each,
    })
}

/// A level without medians for both variants: failed when a run of it failed (a failing
/// run is never averaged away, and never left unjudged), else not measured.
pub(super) fn no_medians(mut v: Verdict, agg: &Aggregate, n: u32) -> Verdict {
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    if failing.is_empty() {
        v.note = Phrase::words(format!(
            "needs the {n}-client level of both adp and gpu-only with records"
        ));
    } else {
        v.status = Status::Fail;
        v.note = Phrase::words(format!(
            "a run of this level failed: {}; {}",
            failing.join("; "),
            fed_by(agg, &[ADP, PLAIN], n)
        ));
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
    let Comparisons {
        mut missed,
        unsure,
        methods,
        judged,
    } = comparisons(agg, n, [ao > po, ag > pg, at < pt]);
    if card.is_empty() {
        missed.push("card hits not measured (no .prom snapshots)");
    } else if card.iter().any(|&c| c <= 0.0) {
        missed.push("no card hits in a run");
    }
    if !card.is_empty() {
        v.set_measured(Some(4.0 - (missed.len() + unsure.len()) as f64));
    }
    let (status, note) = advantage_status(
        agg,
        n,
        max_spread,
        &Comparisons {
            missed,
            unsure,
            methods,
            judged,
        },
        card.is_empty(),
    );
    (v.status, v.note) = (status, Phrase::words(note));
    v
}

/// The advantage's status and note: a failed run or runs that disagree first, then the
/// comparisons (`card_unmeasured`: no snapshots gave card hits).
fn advantage_status(
    agg: &Aggregate,
    n: u32,
    max_spread: f64,
    c: &Comparisons,
    card_unmeasured: bool,
) -> (Status, String) {
    let fed = format!("medians of {}", fed_by(agg, &[ADP, PLAIN], n));
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    let spread = too_spread(agg, &[ADP, PLAIN], n, max_spread, RATES_AND_TTFT);
    let (missed, unsure, methods) = (&c.missed, &c.unsure, &c.methods);
    if !failing.is_empty() {
        (
            Status::Fail,
            format!("a run of this level failed: {}; {fed}", failing.join("; ")),
        )
    } else if !spread.is_empty() {
        (
            Status::Inconclusive,
            format!("{}; {fed}", spread.join("; ")),
        )
    } else if !unsure.is_empty() && missed.iter().all(|m| m.starts_with("card hits")) {
        (
            Status::Inconclusive,
            format!(
                "the 95% interval ({}) of {} includes no difference; {fed}; here: {}",
                methods.join("; "),
                unsure.join(", "),
                c.judged.join(", ")
            ),
        )
    } else if missed.is_empty() {
        (
            Status::Pass,
            format!(
                "{fed}; {ADVANTAGE_BY}; here: {}{}",
                c.judged.join(", "),
                c.by()
            ),
        )
    } else if card_unmeasured && missed.len() == 1 {
        (Status::NotMeasured, format!("{}; {fed}", missed.join("; ")))
    } else {
        (
            Status::Fail,
            format!(
                "{}; {fed}; here: {}{}",
                missed.join("; "),
                c.judged.join(", "),
                c.by()
            ),
        )
    }
}

/// What the advantage's three comparisons found.
struct Comparisons {
    /// What was not met, said.
    missed: Vec<&'static str>,
    /// What an interval left open.
    unsure: Vec<&'static str>,
    /// The methods of the intervals that judged, each once.
    methods: Vec<&'static str>,
    /// How each comparison was judged: its interval (`output tok/s adp over gpu-only
    /// 1.10..1.25`), or by the medians.
    judged: Vec<String>,
}

impl Comparisons {
    /// The methods of the intervals that judged, named: ` (intervals: Student
    /// t-interval ...)`, or nothing where the medians judged every comparison.
    fn by(&self) -> String {
        if self.methods.is_empty() {
            String::new()
        } else {
            format!(" (intervals: {})", self.methods.join("; "))
        }
    }
}

/// The advantage's three comparisons (output and gen tok/s higher with ADP, TTFT p50
/// lower), each by its 95% interval over the runs where every variant has two or more
/// (ADP over plain for the rates, plain over ADP for TTFT: above 1 is met), else, with
/// one run of each, from within the runs, else by the medians (`medians_met`, in that
/// order).
fn comparisons(agg: &Aggregate, n: u32, medians_met: [bool; 3]) -> Comparisons {
    // Each of the three comparisons by its 95% interval over the runs where every
    // variant has two or more (ADP over plain for the rates, plain over ADP for TTFT:
    // above 1 is met), else by the medians.
    // Each comparison: (met, or None when its interval straddles 1; the interval's
    // method, where one judged it).
    let met = |adp_first: bool, m: &str, medians_met: bool| {
        let (adp, plain) = (agg.values(ADP, n, m), agg.values(PLAIN, n, m));
        let (base, cand) = if adp_first {
            ((PLAIN, &plain), (ADP, &adp))
        } else {
            ((ADP, &adp), (PLAIN, &plain))
        };
        let r = crate::stats::ratio::ratio_pooled(base.1, cand.1)
            .filter(|r| r.n_base >= 2 && r.n_cand >= 2)
            .or_else(|| agg.within_ratio(base.0, cand.0, n, m));
        let Some(r) = r else {
            return (Some(medians_met), None);
        };
        let judged = r.interval.map(|(lo, hi, _, method)| {
            let said = phrase!(
                "{} over {} {}x..{}x",
                name(cand.0),
                name(base.0),
                fixed(lo, 3),
                fixed(hi, 3)
            );
            (method.name(), said.to_string())
        });
        let met = match r.against(1.0, true) {
            Some(crate::stats::ratio::Against::Above) => Some(true),
            Some(crate::stats::ratio::Against::Below) => Some(false),
            _ => None,
        };
        (met, judged)
    };
    let mut missed = Vec::new();
    let mut unsure = Vec::new();
    let mut methods: Vec<&str> = Vec::new();
    let mut judged = Vec::new();
    for ((what, adp_first, m, not), medians_met) in [
        ("output tok/s", true, OUTPUT, "output tok/s not higher"),
        ("gen tok/s", true, GEN, "gen tok/s not higher"),
        ("TTFT p50", false, TTFT, "TTFT p50 not lower"),
    ]
    .into_iter()
    .zip(medians_met)
    {
        let (met, interval) = met(adp_first, m, medians_met);
        match interval {
            Some((method, said)) => {
                if !methods.contains(&method) {
                    methods.push(method);
                }
                judged.push(format!("{what} {said}"));
            }
            None => judged.push(format!("{what} by the medians (no interval)")),
        }
        match met {
            Some(true) => {}
            Some(false) => missed.push(not),
            None => unsure.push(what),
        }
    }
    Comparisons {
        missed,
        unsure,
        methods,
        judged,
    }
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
    v.note = Phrase::words(note.join("; "));
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
    v.measured = match log.turned_off.len() {
        0 => "never".into(),
        1 => "once".into(),
        n => phrase!("{} times", count(n)),
    };
    if log.turned_off.is_empty() {
        v.status = Status::Pass;
    } else {
        v.status = Status::Fail;
        let lines: Vec<String> = log.turned_off.iter().map(|l| l.to_string()).collect();
        v.note = Phrase::words(format!(
            "`{file}` line(s) {}: the connector switched itself off",
            lines.join(", ")
        ));
    }
    v
}
