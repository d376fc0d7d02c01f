//! Timing an `ask` transcript the procedure's way: failed requests left out, a slow
//! first run treated as warm-up. Tests 1 and 3 both time restores this way.

use crate::parse::ask::Attempt;
use crate::suites::kv_common::stats::median;

/// The timed attempts of one variant after `skip` leading ones (ADP's cold write), with
/// the procedure's repeat rule: "if the first run after a fresh start is slower while
/// kernels compile and tune, repeat it once and use the second measurement". A slow
/// first run (more than 10% slower than the next) is replaced only when the files hold
/// the repeat (one timed run more than the procedure's `planned`); without it, every run
/// counts and the slow one is named (`unrepeated_slow_first`), for the verdict to say
/// "repeat it" where it decides the outcome.
pub struct Measured {
    pub file: String,
    pub used: Vec<f64>,
    pub median: Option<f64>,
    pub warmup_note: Option<String>,
    /// A slow first run the files do not repeat: its time (it is among `used`).
    pub unrepeated_slow_first: Option<f64>,
    /// A slow first run the files do repeat: its time and the repeat's (the repeat is
    /// among `used`, the first is not).
    pub repeated_slow_first: Option<(f64, f64)>,
    /// Requests that failed, by line, with why: they are left out of the times.
    pub failed: Vec<String>,
}

/// The timed runs each variant's loop makes in tests 1 and 3 (`for i in 1 2 3`, "repeat
/// three times"): one more is the repeat of a slow first run.
pub const TIMED_RUNS: usize = 3;

/// How much slower a first run must be to count as warm-up (kernels compiling), not noise.
const WARMUP_SLOWER: f64 = 1.10;

/// The procedure's warm-up rule on a variant's timed runs, in order: the first is more
/// than 10% slower than the next. The collector asks it to repeat the first; the
/// analysis asks it to use the repeat (or to say the slow first was not repeated).
pub fn slow_first(times: &[f64]) -> bool {
    times.len() >= 2 && times[0] > WARMUP_SLOWER * times[1]
}

/// The timed runs' seconds after `skip` leading attempts, failed requests left out.
pub fn timed(attempts: &[Attempt], skip: usize) -> Vec<f64> {
    attempts
        .iter()
        .skip(skip)
        .filter(|a| a.failed.is_none())
        .filter_map(|a| a.seconds)
        .collect()
}

pub fn measured(file: &str, attempts: &[Attempt], skip: usize, planned: usize) -> Measured {
    // A failed request returns at once: its time is not a restore or a recompute.
    let times = timed(attempts, skip);
    let failed: Vec<String> = attempts
        .iter()
        .skip(skip)
        .filter_map(|a| a.failed.as_ref().map(|f| format!("line {}: {f}", a.line)))
        .collect();
    let mut used = times.clone();
    let mut warmup_note = None;
    let mut unrepeated_slow_first = None;
    let mut repeated_slow_first = None;
    // The repeat is a request more than the procedure's loop makes; it stands for the
    // slow first only when it was answered (a failed repeat measured nothing).
    let made = attempts.len().saturating_sub(skip);
    let repeat_answered = made > planned
        && attempts
            .last()
            .is_some_and(|a| a.failed.is_none() && a.seconds.is_some());
    if slow_first(&times) {
        if repeat_answered {
            used.remove(0);
            repeated_slow_first = times.last().map(|r| (times[0], *r));
            warmup_note = Some(
                crate::phrase!(
                    "`{}`: the first timed run ({} s) was slower than the next ({} s) and was repeated ({} timed requests, the procedure's {} and more): as the procedure says, the repeat is used",
                    crate::model::phrase::name(file),
                    crate::model::phrase::fixed(times[0], 2),
                    crate::model::phrase::fixed(times[1], 2),
                    crate::model::phrase::count(made),
                    crate::model::phrase::count(planned)
                )
                .to_string(),
            );
        } else {
            unrepeated_slow_first = Some(times[0]);
            let repeat = if made > planned {
                format!("its repeat ({made} timed requests, the procedure's {planned} and one more) failed and measured nothing")
            } else {
                format!("was not repeated ({made} timed requests, the procedure's {planned})")
            };
            warmup_note = Some(
                crate::phrase!(
                    "`{}`: the first timed run ({} s) was slower than the next ({} s) and {}: it counts as measured; the procedure repeats a slow first run after a fresh start once and uses the repeat",
                    crate::model::phrase::name(file),
                    crate::model::phrase::fixed(times[0], 2),
                    crate::model::phrase::fixed(times[1], 2),
                    crate::model::phrase::name(repeat)
                )
                .to_string(),
            );
        }
    }
    Measured {
        file: file.to_string(),
        median: median(&used),
        used,
        warmup_note,
        unrepeated_slow_first,
        repeated_slow_first,
        failed,
    }
}
