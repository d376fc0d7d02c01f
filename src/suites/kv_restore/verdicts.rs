//! Test 1's criteria, one verdict each: cached share, restore time, plain recompute, KV
//! cache size, connector.

use super::*;

pub(super) fn verdict(id: &str, criterion: &str) -> Verdict {
    Verdict::new(format!("kv-restore.{id}"), criterion, "-", "-")
}

pub(super) fn cached_verdict(
    adp: Option<&(String, Vec<Attempt>)>,
    reference: &KvReference,
) -> Verdict {
    let share = reference.restore.min_cached_share;
    let mut v = verdict(
        "cached",
        "After every restart, cached is at least 99% of prompt_tokens",
    );
    v.threshold = phrase!(
        ">= {} of prompt_tokens",
        qty(share * 100.0, 0, Unit::Percent)
    );
    v.published = "196,480 of 196,531 tokens (whole 128-token chunks)".into();
    v = v.with_numbers(
        None,
        Some(share * 100.0),
        Some(196_480.0 * 100.0 / 196_531.0),
        UnitOf::new(Unit::Percent, "of prompt_tokens (lowest restore)"),
    );
    let Some((file, attempts)) = adp else {
        v.note = "no readable ADP transcript: restore/adp.txt is missing, or could not be read (the skipped files say where)".into();
        return v;
    };
    v.files.push(file.clone());
    let restores: Vec<&Attempt> = attempts.iter().skip(1).collect();
    if restores.is_empty() {
        v.note = Phrase::words(format!(
            "`{file}` has only the cold request; the restores after restarts are missing"
        ));
        return v;
    }
    let c = Cached::of(&restores, share);
    let measured_n = restores.len() - c.failed.len() - c.unreported.len();
    v.set_measured(c.worst.map(|w| w * 100.0));
    v.measured = c.worst.map_or(Phrase::dash(), |w| {
        phrase!(
            "lowest {} ({} of {} restores measured)",
            qty(w * 100.0, 2, Unit::Percent),
            count(measured_n),
            count(restores.len())
        )
    });
    v.note = Phrase::words(c.note());
    v.status = c.status();
    v
}

/// What the restores' `cached` counts say: the lowest share, and the restores that
/// missed, failed or did not report.
struct Cached {
    worst: Option<f64>,
    misses: Vec<String>,
    failed: Vec<String>,
    unreported: Vec<String>,
}

impl Cached {
    fn of(restores: &[&Attempt], share: f64) -> Cached {
        let mut c = Cached {
            worst: None,
            misses: Vec::new(),
            failed: Vec::new(),
            unreported: Vec::new(),
        };
        for a in restores {
            if let Some(why) = &a.failed {
                c.failed.push(format!("line {}: {why}", a.line));
                continue;
            }
            match (a.prompt_tokens, a.cached) {
                (Some(p), Some(n)) if p > 0 => {
                    let s = n as f64 / p as f64;
                    c.worst = Some(c.worst.map_or(s, |w: f64| w.min(s)));
                    if s < share {
                        c.misses.push(format!("line {}: {n} of {p} cached", a.line));
                    }
                }
                (Some(_), None) => c.unreported.push(format!("line {}", a.line)),
                _ => c.failed.push(format!("line {}: no prompt tokens", a.line)),
            }
        }
        c
    }

    fn note(&self) -> String {
        let mut note = Vec::new();
        if !self.misses.is_empty() {
            note.push(format!(
                "restores that missed the cache: {}",
                self.misses.join("; ")
            ));
        }
        if !self.failed.is_empty() {
            note.push(format!(
                "failed requests measure nothing: {}",
                self.failed.join("; ")
            ));
        }
        if !self.unreported.is_empty() {
            note.push(format!(
                "cached is null at {}: the server does not report cached tokens (start vLLM with --enable-prompt-tokens-details)",
                self.unreported.join(", ")
            ));
        }
        note.join("; ")
    }

    /// Pass needs every restore measured and hitting; one real miss is a failure; failed
    /// or unreported requests leave the rest unknown.
    fn status(&self) -> Status {
        if !self.misses.is_empty() {
            Status::Fail
        } else if !self.failed.is_empty() {
            Status::Inconclusive
        } else if !self.unreported.is_empty() {
            Status::NotMeasured
        } else {
            Status::Pass
        }
    }
}

pub(super) fn time_verdict(
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

pub(super) fn plain_cold_verdict(plain: Option<&(String, Vec<Attempt>)>) -> Verdict {
    let mut v = verdict(
        "plain-recomputes",
        "Without ADP every request recomputes: cached is 0",
    );
    v.threshold = "cached = 0".into();
    v.published = "cached is 0".into();
    v = v.with_numbers(
        None,
        Some(0.0),
        Some(0.0),
        UnitOf::count("requests with cached > 0"),
    );
    let Some((file, attempts)) = plain else {
        v.note = "no plain-vLLM transcript (restore/gpu-only.txt)".into();
        return v;
    };
    v.files.push(file.clone());
    let failed: Vec<String> = attempts
        .iter()
        .filter_map(|a| a.failed.as_ref().map(|f| format!("line {}: {f}", a.line)))
        .collect();
    let unreported: Vec<String> = attempts
        .iter()
        .filter(|a| a.failed.is_none() && a.cached.is_none())
        .map(|a| format!("line {}", a.line))
        .collect();
    let hits: Vec<String> = attempts
        .iter()
        .filter(|a| a.cached.is_some_and(|c| c > 0))
        .map(|a| format!("line {}: {} cached", a.line, a.cached.unwrap_or(0)))
        .collect();
    let zero = attempts.iter().filter(|a| a.cached == Some(0)).count();
    let answered = attempts.iter().filter(|a| a.cached.is_some()).count();
    // Only requests that answered say anything about cached tokens.
    if answered > 0 {
        v.set_measured(Some(hits.len() as f64));
        let failures = if answered < attempts.len() {
            phrase!(
                " ({} of {} failed)",
                count(failed.len()),
                count(attempts.len())
            )
        } else {
            Phrase::default()
        };
        v.measured = phrase!(
            "{} of {} answered requests with cached = 0{}",
            count(zero),
            count(answered),
            failures
        );
    } else {
        v.measured = phrase!(
            "- ({} of {} requests failed)",
            count(failed.len()),
            count(attempts.len())
        );
    }
    let (status, note) = plain_status(&hits, &failed, &unreported);
    (v.status, v.note) = (status, Phrase::words(note));
    v
}

/// Plain vLLM's status and note: a hit fails it; failed requests leave it open; requests
/// without `cached` leave it unmeasured.
fn plain_status(hits: &[String], failed: &[String], unreported: &[String]) -> (Status, String) {
    if !hits.is_empty() {
        (
            Status::Fail,
            format!(
                "the restart did not clear GPU memory (or another cache answered): {}",
                hits.join("; ")
            ),
        )
    } else if !failed.is_empty() {
        (
            Status::Inconclusive,
            format!("failed requests measure nothing: {}", failed.join("; ")),
        )
    } else if !unreported.is_empty() {
        (
            Status::NotMeasured,
            format!(
                "cached is null at {}: the server does not report cached tokens, so \"cached is 0\" cannot be checked (start vLLM with --enable-prompt-tokens-details)",
                unreported.join(", ")
            ),
        )
    } else {
        (Status::Pass, String::new())
    }
}

pub(super) fn kv_size_verdict(logs: &ServerLogs) -> Verdict {
    let mut v = verdict(
        "kv-cache-size",
        "The GPU KV cache size is the same in both variants",
    );
    v.threshold = "equal".into();
    v.published = "about 545,000 tokens on the reference setup (545,536)".into();
    v = v.with_numbers(
        None,
        Some(0.0),
        Some(0.0),
        UnitOf::new(Unit::Tokens, "(adp minus gpu-only)"),
    );
    let get = |variant: &str| {
        logs.by_variant
            .get(variant)
            .map(|(f, l)| (f.clone(), l.kv_cache_tokens))
    };
    let (a, p) = (get(ADP), get(PLAIN));
    v.files.extend(a.iter().map(|(f, _)| f.clone()));
    v.files.extend(p.iter().map(|(f, _)| f.clone()));
    match (a, p) {
        (Some((_, Some(x))), Some((_, Some(y)))) => {
            v.set_measured(Some(x as f64 - y as f64));
            // Which memory the engine says it is (the CPU backend logs `CPU KV cache`).
            let device = |variant: &str| {
                logs.by_variant
                    .get(variant)
                    .and_then(|(_, l)| l.kv_cache_device.clone())
            };
            let where_ = match (device(ADP), device(PLAIN)) {
                (Some(a), Some(p)) if a == p => phrase!(" ({} KV cache)", name(a)),
                (Some(a), Some(p)) => {
                    phrase!(" (adp: {}, gpu-only: {} KV cache)", name(a), name(p))
                }
                _ => Phrase::default(),
            };
            v.measured = phrase!("adp {} · gpu-only {} tokens{}", count(x), count(y), where_);
            v.status = if x == y { Status::Pass } else { Status::Fail };
            if x != y {
                v.note =
                    "unequal GPU KV cache: the test would measure GPU memory, not the card".into();
            }
        }
        (a, p) => {
            v.note = Phrase::words(format!(
                "needs the `GPU KV cache size` line in both logs/adp-vllm.log and logs/gpu-only-vllm.log (adp: {}, gpu-only: {})",
                describe(&a),
                describe(&p)
            ));
        }
    }
    v
}

pub(super) fn describe(x: &Option<(String, Option<u64>)>) -> &'static str {
    match x {
        None => "no log",
        Some((_, None)) => "no size line",
        Some((_, Some(_))) => "found",
    }
}

pub(super) fn connector_verdict(logs: &ServerLogs) -> Verdict {
    let mut v = verdict(
        "connector",
        "The ADP variant logs that the connector registered",
    );
    v.threshold = "XKV: <N> cache tensors registered for exchange".into();
    v = v.with_numbers(None, Some(1.0), None, UnitOf::count("registration lines"));
    let Some((file, log)) = logs.by_variant.get(ADP) else {
        v.note = "no ADP server log (logs/adp-vllm.log)".into();
        return v;
    };
    v.files.push(file.clone());
    match &log.xkv_line {
        Some(line) => {
            v.set_measured(Some(1.0));
            v.measured = phrase!("{} tensors", count(log.xkv_tensors.unwrap_or(0)));
            v.status = Status::Pass;
            v.note = Phrase::words(line.clone());
        }
        None => match log.connectors.first() {
            // Another KV connector (vLLM's ExampleConnector in the real-engine tests):
            // restores are real, but not the card's.
            Some((line, name)) => {
                v.set_measured(Some(1.0));
                v.measured = phrase!("{} created", crate::model::phrase::name(name));
                v.status = Status::NotComparable;
                v.note = Phrase::words(format!(
                    "not comparable (would have been pass): `{file}` line {line} creates the KV connector `{name}`, not the product's FusIOnXConnector: its restores are real, but not the card's"
                ));
            }
            None => {
                v.set_measured(Some(0.0));
                v.measured = "not logged".into();
                v.status = Status::Fail;
                v.note =
                    "the connector did not register: restores cannot come from the card".into();
            }
        },
    }
    v
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
