//! The cached-share criterion: after every restart, cached is at least 99% of
//! prompt_tokens.

use super::named::verdict;
// The suite's imports, which the criteria used before the split.
use super::super::*;

pub(crate) fn cached_verdict(
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
