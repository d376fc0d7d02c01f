//! The restore-time criterion: the slowest restore against one-fifth of recompute time
//! (or the floor), judged against the limit's 95% interval.

use super::named::verdict;
// The suite's imports, which the criteria used before the split.
use super::super::*;

pub(crate) fn time_verdict(
    recompute: Option<&Measured>,
    restore: Option<&Measured>,
    reference: &KvReference,
    published: Option<&crate::suites::kv_common::reference::ModelRef>,
) -> Verdict {
    let r = &reference.restore;
    let mut v = verdict(
        "time",
        "Restore time is at most one-fifth of recompute time (or 5 s, whichever is larger)",
    );
    v.threshold = phrase!(
        "<= max(recompute / {}, {})",
        fixed(r.restore_vs_recompute, 0),
        qty(r.restore_floor_s, 0, Unit::Seconds)
    );
    v = v.with_numbers(
        None,
        None,
        published.map(|m| m.restore_s),
        UnitOf::new(Unit::Seconds, "(slowest restore)"),
    );
    if let Some(m) = published {
        v.published = phrase!(
            "{}: {} vs {}",
            name(&m.title),
            qty(m.restore_s, 2, Unit::Seconds),
            qty(m.recompute_s, 2, Unit::Seconds)
        );
    }
    v.files.extend(recompute.map(|m| m.file.clone()));
    v.files.extend(restore.map(|m| m.file.clone()));
    let failed: Vec<String> = [recompute, restore]
        .into_iter()
        .flatten()
        .flat_map(|m| m.failed.iter().map(move |f| format!("`{}` {f}", m.file)))
        .collect();
    // Every restore must be fast: the slowest one is judged (the median is shown too).
    let slowest = restore.and_then(|m| m.used.iter().copied().reduce(f64::max));
    let (Some(rc), Some(rs)) = (recompute.and_then(|m| m.median), slowest) else {
        v.note = "needs timed recomputes (restore/gpu-only.txt) and timed restores after the cold request (restore/adp.txt)".into();
        return v;
    };
    let limit = (rc / r.restore_vs_recompute).max(r.restore_floor_s);
    v.set_measured(Some(rs));
    v.threshold_value = Some(limit);
    let typical = restore.and_then(|m| m.median).unwrap_or(rs);
    // The limit comes from the recomputes, so it is uncertain as they vary; the slowest
    // restore is an observed maximum, judged against the limit's interval.
    let band = recompute.and_then(|m| LimitBand::of(&m.used, rc, r));
    v.measured = phrase!(
        "slowest restore {} (median {}) vs recompute {} (limit {})",
        qty(rs, 2, Unit::Seconds),
        qty(typical, 2, Unit::Seconds),
        qty(rc, 2, Unit::Seconds),
        qty(limit, 2, Unit::Seconds)
    );
    v.threshold_interval = band.as_ref().map(|b| b.interval.clone());
    let turns = slow_firsts(recompute, restore, r, limit, rs);
    v.status = time_status(&mut v, &turns, band.as_ref(), rs, limit, &failed);
    // A slow first restore the files repeat is judged by its repeat: a failure then says
    // so, and no advice to repeat it applies.
    if let (Status::Fail, Some((first, again))) =
        (v.status, restore.and_then(|m| m.repeated_slow_first))
    {
        v.note = phrase!(
            "restore 1 ({} s) was slower than the next and was repeated, as the procedure says: the repeat ({} s) is judged; {}",
            fixed(first, 2),
            fixed(again, 2),
            v.note.clone()
        );
    }
    say_why_unbanded(&mut v, recompute, band.is_none());
    v
}

/// The restore-time status, and its note where it is not a plain pass or fail: a slow
/// first run that decides it unrepeated (`turns`), the slowest restore inside the
/// limit's interval, or failed requests that may have been the slow ones.
fn time_status(
    v: &mut Verdict,
    turns: &[Phrase],
    band: Option<&LimitBand>,
    rs: f64,
    limit: f64,
    failed: &[String],
) -> Status {
    if !turns.is_empty() {
        let mut why = phrase!(
            "{}; the procedure repeats a slow first run after a fresh start once and uses the repeat, and the files hold no answered repeat",
            Phrase::join(turns.to_vec(), "; ")
        );
        if !failed.is_empty() {
            why = phrase!(
                "{}; failed requests left out of the times: {}",
                why,
                name(failed.join("; "))
            );
        }
        v.note = why;
        Status::Inconclusive
    } else if let Some(b) = band.filter(|b| rs > b.interval.low && rs <= b.interval.high) {
        // Inside the limit's interval: the recomputes' spread cannot tell which side of
        // the limit the slowest restore is on.
        v.note = b.straddled(rs);
        if !failed.is_empty() {
            v.note = phrase!(
                "{}; failed requests left out of the times: {}",
                v.note.clone(),
                name(failed.join("; "))
            );
        }
        Status::Inconclusive
    } else if rs > limit {
        v.note = phrase!(
            "the slowest restore judged ({} s) is over the limit ({} s)",
            fixed(rs, 2),
            fixed(limit, 2)
        );
        Status::Fail
    } else if !failed.is_empty() {
        // A failed restore may have been the slow one: the criterion cannot pass.
        v.note = phrase!(
            "failed requests left out of the times, so every restore cannot be judged: {}",
            name(failed.join("; "))
        );
        Status::Inconclusive
    } else {
        Status::Pass
    }
}

/// A slow first run the files do not repeat decides nothing alone: when the outcome turns
/// on it (a first restore over the limit, the others under; or a first recompute that
/// lifts the limit over the slowest restore), only its repeat can tell. What to repeat,
/// and why, for each.
fn slow_firsts(
    recompute: Option<&Measured>,
    restore: Option<&Measured>,
    r: &crate::suites::kv_common::reference::RestoreRef,
    limit: f64,
    rs: f64,
) -> Vec<Phrase> {
    let restore_turns = restore.and_then(|m| {
        let first = m.unrepeated_slow_first?;
        let rest = m.used.iter().skip(1).copied().reduce(f64::max)?;
        (first > limit && rest <= limit).then(|| {
            phrase!(
                "repeat restore 1: it took {} s, over the limit, and the others at most {} s",
                fixed(first, 2),
                fixed(rest, 2)
            )
        })
    });
    let recompute_turns = recompute.and_then(|m| {
        let first = m.unrepeated_slow_first?;
        let without = crate::stats::median(&m.used[1..])?;
        let lower = (without / r.restore_vs_recompute).max(r.restore_floor_s);
        (rs <= limit && rs > lower).then(|| {
            phrase!(
                "repeat recompute 1: it took {} s and lifts the limit to {} s; without it the limit is {} s and the slowest restore ({} s) is over it",
                fixed(first, 2),
                fixed(limit, 2),
                fixed(lower, 2),
                fixed(rs, 2)
            )
        })
    });
    [restore_turns, recompute_turns]
        .into_iter()
        .flatten()
        .collect()
}

/// Judged on the point limit though there were recomputes to give it an interval (`no_band`):
/// say why there is none.
fn say_why_unbanded(v: &mut Verdict, recompute: Option<&Measured>, no_band: bool) {
    let unbanded = recompute.filter(|m| no_band && m.used.len() >= 2);
    if let (Some(m), Status::Pass | Status::Fail) = (unbanded, v.status) {
        if let Some(t) = m.used.iter().find(|t| !t.is_finite() || **t <= 0.0) {
            let why = phrase!(
                "the limit has no interval: a timed recompute of {} s is not a time to scale by; the point limit judges",
                fixed(*t, 2)
            );
            v.note = Phrase::joined([v.note.clone(), why], "; ");
        }
    }
}

/// The 95% interval of test 1's limit: the recomputes' band (see [`crate::stats::band`])
/// divided as the limit is, with its floor. Its relative half-width is applied to the
/// recomputes' median the limit used. None with fewer than two timed recomputes.
struct LimitBand {
    /// The recomputes' band, for how many more would settle the verdict.
    recomputes: crate::stats::band::Band,
    ratio: f64,
    floor: f64,
    interval: crate::model::verdict::Interval,
}

impl LimitBand {
    fn of(
        used: &[f64],
        median: f64,
        r: &crate::suites::kv_common::reference::RestoreRef,
    ) -> Option<LimitBand> {
        let band = crate::stats::band::around_median(used)?;
        let (ratio, floor) = (r.restore_vs_recompute, r.restore_floor_s);
        let low = (median * band.low / band.center / ratio).max(floor);
        let high = (median * band.high / band.center / ratio).max(floor);
        Some(LimitBand {
            recomputes: band,
            ratio,
            floor,
            interval: crate::model::verdict::Interval {
                low,
                high,
                level: 0.95,
                method: format!(
                    "{}, divided by {} (at least {} s); the slowest restore is an observed maximum",
                    crate::stats::band::METHOD,
                    ratio,
                    floor
                ),
                runs: vec![band.n],
                apart: false,
            },
        })
    }

    /// Why a slowest restore of `rs` seconds inside the interval decides nothing, and
    /// about how many timed recomputes would.
    fn straddled(&self, rs: f64) -> Phrase {
        let mut why = phrase!(
            "the slowest restore ({} s) lies inside the limit's 95% interval ({} to {} s, from {} timed recomputes)",
            fixed(rs, 2),
            fixed(self.interval.low, 2),
            fixed(self.interval.high, 2),
            count(self.recomputes.n)
        );
        // The recompute time at which the limit equals the slowest restore (over the
        // floor: a restore under the floor never falls inside the interval).
        let at = rs * self.ratio;
        if rs > self.floor {
            if let Some(n) = self.recomputes.runs_to_exclude(at) {
                why = phrase!(
                    "{}; about {} timed recomputes would settle it at the spread seen (the band narrows as t(0.975, n-1)/sqrt(n))",
                    why,
                    count(n)
                );
            }
        }
        why
    }
}
