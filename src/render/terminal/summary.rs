//! One suite in a screen: the verdicts, why those that did not pass did not, the
//! deviations that change the comparison, the published figures and what to check next.

use std::fmt::Write;

use crate::model::verdict::Status;
use crate::output::Styled;
use crate::render::few;
use crate::suites::SuiteReport;

use super::layout::clip;
use super::verdicts::{paint_of, verdict_table};

/// The first clause of a reason (up to `; `), in at most `max` characters cut at a word.
pub fn short_reason(note: &str, max: usize) -> String {
    let first = note.split("; ").next().unwrap_or(note).trim();
    if first.chars().count() <= max {
        return first.to_string();
    }
    let cut: String = first.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(' ') {
        Some(at) if at > max / 2 => cut[..at].trim_end_matches([',', ':', ';']).to_string(),
        _ => cut,
    };
    format!("{cut}…")
}

/// One suite in a screen: the verdicts (failures first), a short reason for each that did
/// not pass (one line for a reason several share), the deviations that changed the
/// comparison, what to check next (each once), and what the detail holds besides.
pub(super) fn suite_summary(out: &mut Styled, s: &SuiteReport, width: Option<usize>) {
    let mut order: Vec<usize> = (0..s.verdicts.len()).collect();
    order.sort_by_key(|&i| s.verdicts[i].status.urgency());
    verdict_table(out, s, &order, width);
    let line_room = width.unwrap_or(120);
    why_lines(out, s, &order, line_room);
    let changing: Vec<_> = s
        .deviations
        .iter()
        .filter(|d| d.changes_comparison)
        .collect();
    if !changing.is_empty() {
        out.push_plain("\nDeviations that change the comparison\n");
        for d in &changing {
            let line = format!("{}: {} [{}]", d.short(), d.effect, few(&d.subjects));
            let _ = writeln!(out, "  {}", clip(&line, line_room.saturating_sub(2)));
        }
    }
    published_line(out, s);
    check_next_lines(out, s, &order, line_room);
    let mut more = Vec::new();
    let mut count = |n: usize, one: &str, many: &str| {
        if n > 0 {
            more.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    };
    count(
        s.deviations.len() - changing.len(),
        "other deviation",
        "other deviations",
    );
    count(s.limits.len(), "physical limit", "physical limits");
    count(s.observations.len(), "observation", "observations");
    count(s.preformatted.len() + s.tables.len(), "table", "tables");
    count(s.notes.len(), "note", "notes");
    if !more.is_empty() {
        let _ = writeln!(
            out,
            "\nAlso: {} (--detail, the report, --format json)",
            more.join(", ")
        );
    }
}

/// The published figures held against the measurements, counted by outcome, and what
/// each was held with (`Published figures (±10% band): 5 reproduced, each on one point
/// with no interval`): a point alone says nothing of how much the runs vary.
fn published_line(out: &mut Styled, s: &SuiteReport) {
    use crate::model::verdict::Reproduced;
    let held: Vec<&crate::model::verdict::Reproduction> = s
        .verdicts
        .iter()
        .filter_map(|v| v.reproduction.as_ref())
        .collect();
    let Some(first) = held.first() else {
        return;
    };
    let tally = |items: Vec<&str>| -> String {
        let mut counted: Vec<(&str, usize)> = Vec::new();
        for i in items {
            match counted.iter_mut().find(|(x, _)| *x == i) {
                Some(c) => c.1 += 1,
                None => counted.push((i, 1)),
            }
        }
        counted
            .iter()
            .map(|(x, n)| format!("{n} {x}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let outcomes = tally(
        held.iter()
            .map(|r| match r.status {
                Reproduced::Reproduced => "reproduced",
                Reproduced::NotReproduced => "not reproduced",
                Reproduced::Inconclusive => "inconclusive",
                Reproduced::NotComparable => "not comparable",
            })
            .collect(),
    );
    let judged: Vec<String> = held
        .iter()
        .filter(|r| r.status != Reproduced::NotComparable)
        .map(|r| match r.basis.as_str() {
            "one point, no interval" => "on one point with no interval".to_string(),
            other => format!("on a {other}"),
        })
        .collect();
    let judged: Vec<&str> = judged.iter().map(String::as_str).collect();
    let mut line = format!(
        "Published figures (±{:.0}% band): {outcomes}",
        first.tolerance * 100.0
    );
    match judged.first() {
        Some(one) if judged.iter().all(|b| b == one) && judged.len() == held.len() => {
            line.push_str(&format!(", each {one}"));
        }
        Some(_) => line.push_str(&format!("; {}", tally(judged))),
        None => {}
    }
    // Not cut to the terminal's width: it is one line, and every part of it counts.
    let _ = writeln!(out, "\n{line}");
}

/// Reasons of the verdicts that did not pass, grouped by status and short reason.
fn why_lines(out: &mut Styled, s: &SuiteReport, order: &[usize], line_room: usize) {
    let mut reasons: Vec<(Status, String, Vec<&str>)> = Vec::new();
    for &i in order {
        let v = &s.verdicts[i];
        if v.status == Status::Pass || v.note.is_empty() {
            continue;
        }
        // The status is said in front of the line: a reason that starts with it does not
        // say it again.
        let whole = v.note.to_string();
        let note = whole
            .strip_prefix(v.status.label())
            .map_or(whole.as_str(), str::trim_start);
        let short = short_reason(note, 100);
        match reasons
            .iter_mut()
            .find(|(st, r, _)| *st == v.status && *r == short)
        {
            Some((_, _, ids)) => ids.push(&v.id),
            None => reasons.push((v.status, short, vec![&v.id])),
        }
    }
    if !reasons.is_empty() {
        out.push_plain("\nWhy\n");
        for (status, reason, ids) in &reasons {
            out.push_plain("  ");
            out.painted(status.label(), paint_of(*status));
            let rest = format!(" {}: {reason}", short_ids(ids));
            let room = line_room.saturating_sub(2 + status.label().len()).max(40);
            let _ = writeln!(out, "{}", clip(&rest, room));
        }
    }
}

/// What to check next, each text once, for the verdicts that did not pass.
fn check_next_lines(out: &mut Styled, s: &SuiteReport, order: &[usize], line_room: usize) {
    let mut next: Vec<(&str, Vec<&str>)> = Vec::new();
    for &i in order {
        let v = &s.verdicts[i];
        if v.status == Status::Pass {
            continue;
        }
        for n in &v.check_next {
            match next.iter_mut().find(|(t, _)| *t == n.text) {
                Some((_, ids)) => ids.push(&v.id),
                None => next.push((&n.text, vec![&v.id])),
            }
        }
    }
    if !next.is_empty() {
        out.push_plain("\nCheck next\n");
        for (text, _) in next.iter().take(5) {
            let _ = writeln!(out, "  - {}", clip(text, line_room.saturating_sub(4)));
        }
        if next.len() > 5 {
            let _ = writeln!(out, "  - … {} more (--detail)", next.len() - 5);
        }
    }
}

/// `toy.L1-parity, L2-parity`: the suite's prefix said once.
pub(super) fn short_ids(ids: &[&str]) -> String {
    let prefix = ids
        .first()
        .and_then(|f| f.split_once('.'))
        .map(|(p, _)| format!("{p}."));
    match prefix {
        Some(p) if ids.iter().all(|i| i.starts_with(&p)) && ids.len() > 1 => format!(
            "{}{}",
            p,
            ids.iter()
                .map(|i| &i[p.len()..])
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => ids.join(", "),
    }
}
