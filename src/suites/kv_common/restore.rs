//! Timing an `ask` transcript the procedure's way: failed requests left out, a slow
//! first run treated as warm-up. Tests 1 and 3 both time restores this way.

use crate::parse::ask::Attempt;
use crate::suites::kv_common::stats::median;

/// The timed attempts of one variant after `skip` leading ones (ADP's cold write), with
/// the procedure's warm-up rule: a first run after a fresh start more than 10% slower
/// than the second is replaced by it.
pub struct Measured {
    pub file: String,
    pub used: Vec<f64>,
    pub median: Option<f64>,
    pub warmup_note: Option<String>,
    /// Requests that failed, by line, with why: they are left out of the times.
    pub failed: Vec<String>,
}

/// How much slower a first run must be to count as warm-up (kernels compiling), not noise.
const WARMUP_SLOWER: f64 = 1.10;

pub fn measured(file: &str, attempts: &[Attempt], skip: usize) -> Measured {
    // A failed request returns at once: its time is not a restore or a recompute.
    let times: Vec<f64> = attempts
        .iter()
        .skip(skip)
        .filter(|a| a.failed.is_none())
        .filter_map(|a| a.seconds)
        .collect();
    let failed: Vec<String> = attempts
        .iter()
        .skip(skip)
        .filter_map(|a| a.failed.as_ref().map(|f| format!("line {}: {f}", a.line)))
        .collect();
    let mut used = times.clone();
    let mut warmup_note = None;
    if times.len() >= 2 && times[0] > WARMUP_SLOWER * times[1] {
        used.remove(0);
        warmup_note = Some(format!(
            "`{file}`: the first timed run ({:.2} s) was slower than the second ({:.2} s); as the procedure says, it is treated as warm-up and the later runs are used",
            times[0], times[1]
        ));
    }
    Measured {
        file: file.to_string(),
        median: median(&used),
        used,
        warmup_note,
        failed,
    }
}
