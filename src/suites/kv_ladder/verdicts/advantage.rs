//! The advantage criterion past the GPU cache: with ADP higher output and gen tok/s,
//! lower TTFT p50, card hits > 0, each comparison by its interval where there is one.

use super::base::{base, no_medians};
// The suite's imports, which the criteria used before the split.
use super::super::*;

/// How the advantage's three comparisons are judged.
const ADVANTAGE_BY: &str = "each comparison judged by its 95% interval over the runs (Student t on the log ratio, variance pooled over both variants) where both variants have two runs or more, else, with one run of each, by its 95% interval from within the two runs (batches of each run; weaker than repeats), else by the medians";

pub(crate) fn advantage_verdict(agg: &Aggregate, n: u32, max_spread: f64) -> Verdict {
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
    let variants = &[ADP, PLAIN];
    let settled = settled_before_numbers(agg, variants, n, max_spread, RATES_AND_TTFT, &fed);
    let (missed, unsure, methods) = (&c.missed, &c.unsure, &c.methods);
    if let Some(settled) = settled {
        settled
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
