//! The criteria judged over the whole ladder: no failed requests at any level, and the
//! connector never switching itself off.

use super::base::base;
use crate::model::units::grouped;
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
            (Some(f), None) => bad.push(format!(
                "{name}: {} failed requests",
                grouped(&f.to_string())
            )),
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
        // The first few lines, where it began; a log that repeats it on every step would
        // otherwise make a note of thousands of numbers.
        const SHOWN: usize = 5;
        let n = log.turned_off.len();
        let first: Vec<String> = log
            .turned_off
            .iter()
            .take(SHOWN)
            .map(|l| l.to_string())
            .collect();
        let lines = if n > SHOWN {
            format!(
                "lines {} and {} more",
                first.join(", "),
                crate::model::units::grouped(&(n - SHOWN).to_string())
            )
        } else if n > 1 {
            format!("lines {}", first.join(", "))
        } else {
            format!("line {}", first.join(", "))
        };
        v.note = Phrase::words(format!(
            "`{file}` {lines}: the connector switched itself off"
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logs_with(turned_off: Vec<usize>) -> crate::parse::vllm_log::ServerLog {
        crate::parse::vllm_log::ServerLog {
            turned_off,
            ..Default::default()
        }
    }

    #[test]
    fn a_connector_switched_off_names_where_it_began_not_every_line() {
        let log = logs_with((1..=1200).map(|k| 10 + 3 * k).collect());
        let mut logs = kv_common::ServerLogs::default();
        logs.by_variant
            .insert(ADP.to_string(), ("logs/adp-vllm.log".into(), &log));
        let v = turned_off_verdict(&logs);
        assert_eq!(v.status, Status::Fail);
        assert_eq!(v.measured.to_string(), "1,200 times");
        assert_eq!(
            v.note.to_string(),
            "`logs/adp-vllm.log` lines 13, 16, 19, 22, 25 and 1,195 more: the connector switched itself off"
        );
        let one = logs_with(vec![6]);
        logs.by_variant
            .insert(ADP.to_string(), ("logs/adp-vllm.log".into(), &one));
        assert_eq!(
            turned_off_verdict(&logs).note.to_string(),
            "`logs/adp-vllm.log` line 6: the connector switched itself off"
        );
    }
}
