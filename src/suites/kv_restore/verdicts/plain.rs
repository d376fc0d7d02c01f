//! The plain-recompute criterion: without ADP every request recomputes (cached is 0).

use super::named::verdict;
// The suite's imports, which the criteria used before the split.
use super::super::*;

pub(crate) fn plain_cold_verdict(plain: Option<&(String, Vec<Attempt>)>) -> Verdict {
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
