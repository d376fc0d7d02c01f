//! The criteria judged over the whole ladder: no failed requests at any level, and the
//! connector never switching itself off.

use super::base::base;
// The suite's imports, which the criteria used before the split.
use super::super::*;

pub(crate) fn failures_verdict(levels: &[Level]) -> Verdict {
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

pub(crate) fn turned_off_verdict(logs: &kv_common::ServerLogs) -> Verdict {
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
