//! The terminal view: verdicts first, then the tables, then what was skipped.

use std::fmt::Write;

use crate::analysis::Analysis;
use crate::model::verdict::Status;
use crate::output::{Paint, Styled};
use crate::render::few;
use crate::suites::{SuiteReport, Table};

/// How much of an analysis the terminal shows, and in how many columns.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// Every section (`--detail`); else the summary.
    pub detail: bool,
    /// The terminal's width: tables are cut to fit it; none when piped.
    pub width: Option<usize>,
}

impl View {
    /// Everything, nothing cut: what a file or a pipe gets with `--detail`.
    pub const FULL: View = View {
        detail: true,
        width: None,
    };
}

/// Lays out rows under a header with columns padded to their widest cell.
pub fn aligned(columns: &[String], rows: &[Vec<String>]) -> String {
    let mut out = Styled::default();
    aligned_into(&mut out, columns, rows, Fit::default(), |_, _| None);
    out.into_text()
}

/// How a table is cut to the terminal's width: the columns in `give_way` narrow first,
/// in that order, each down to its floor; then the widest of the rest.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fit<'a> {
    pub width: Option<usize>,
    pub give_way: &'a [(usize, usize)],
}

impl Fit<'_> {
    pub fn to(width: Option<usize>) -> Fit<'static> {
        Fit {
            width,
            give_way: &[],
        }
    }
}

/// [`aligned`] into styled text: `paint(row, column)` colours a cell (a status word the
/// program wrote), and with a width the columns are cut (ending in `…`) as `fit` says
/// until every line fits it.
pub fn aligned_into(
    out: &mut Styled,
    columns: &[String],
    rows: &[Vec<String>],
    fit_to: Fit,
    paint: impl Fn(usize, usize) -> Option<Paint>,
) {
    let n = columns.len();
    let mut widths: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(n) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    if let Some(w) = fit_to.width {
        fit(&mut widths, w, fit_to.give_way);
    }
    let line = |out: &mut Styled, cells: &[String], row: Option<usize>| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate().take(n) {
            let cell = clip(c, widths[i]);
            let pad = widths[i] - cell.chars().count();
            match row.and_then(|r| paint(r, i)) {
                Some(p) => {
                    out.push_plain(&s);
                    s.clear();
                    out.painted(&cell, p);
                }
                None => s.push_str(&cell),
            }
            if i + 1 < n {
                s.push_str(&" ".repeat(pad + 2));
            }
        }
        out.push_plain(s.trim_end());
        out.push_plain("\n");
    };
    line(out, columns, None);
    for (r, row) in rows.iter().enumerate() {
        line(out, row, Some(r));
    }
}

/// Narrows columns until they and their two-space gaps fit `width`: first those in
/// `give_way`, in order, each to its floor; then the widest, one character at a time. No
/// column goes under 8 characters (a table of more narrow columns than fit stays wider
/// than the terminal).
fn fit(widths: &mut [usize], width: usize, give_way: &[(usize, usize)]) {
    const NARROWEST: usize = 8;
    let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    for &(col, floor) in give_way {
        let over = total(widths).saturating_sub(width);
        if let Some(w) = widths.get_mut(col) {
            *w -= over.min(w.saturating_sub(floor.max(NARROWEST)));
        }
    }
    while total(widths) > width {
        let Some(widest) = (0..widths.len())
            .filter(|&i| widths[i] > NARROWEST)
            .max_by_key(|&i| (widths[i], std::cmp::Reverse(i)))
        else {
            break;
        };
        widths[widest] -= 1;
    }
}

/// `text` in at most `width` characters: cut, with `…` as its last.
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

fn table(out: &mut Styled, t: &Table, width: Option<usize>) {
    let width = Fit::to(width);
    let _ = writeln!(out, "{}", t.title);
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(ToString::to_string).collect())
        .collect();
    aligned_into(out, &t.columns, &rows, width, |_, _| None);
    for n in &t.notes {
        let _ = writeln!(out, "  note: {n}");
    }
}

/// How a status word is coloured.
fn paint_of(status: Status) -> Paint {
    match status {
        Status::Pass => Paint::Good,
        Status::Fail => Paint::Bad,
        Status::NotMeasured | Status::Inconclusive | Status::NotComparable => Paint::Warn,
    }
}

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

/// The full view, plain, as a string (`--detail` into a file).
pub fn render(a: &Analysis) -> String {
    render_view(a, View::FULL).into_text()
}

/// The analysis as the terminal shows it: a summary per suite, or every section.
pub fn render_view(a: &Analysis, view: View) -> Styled {
    let mut out = Styled::default();
    let _ = writeln!(out, "{} · {}", a.tool, a.input);
    for s in &a.suites {
        let _ = writeln!(out, "\n== {} ({}) ==", s.title, s.name);
        let _ = writeln!(
            out,
            "procedure: {}; {} files read\n",
            s.procedure,
            s.files_read.len()
        );
        if view.detail {
            suite_detail(&mut out, s, view.width);
        } else {
            suite_summary(&mut out, s, view.width);
        }
    }
    for c in &a.conformance {
        conformance(&mut out, c, view);
    }
    if !a.skipped.is_empty() {
        let _ = writeln!(out, "\nSkipped ({})", a.skipped.len());
        let shown = if view.detail { a.skipped.len() } else { 3 };
        for s in a.skipped.iter().take(shown) {
            let line = s.one_line();
            let _ = writeln!(
                out,
                "  {}",
                match view.width {
                    Some(w) if !view.detail => clip(&line, w.saturating_sub(2)),
                    _ => line,
                }
            );
        }
        if a.skipped.len() > shown {
            let _ = writeln!(
                out,
                "  … and {} more (--detail lists them)",
                a.skipped.len() - shown
            );
        }
    }
    let m = &a.summary;
    let _ = writeln!(out, "\n{}", m.line());
    out
}

fn verdict_table(out: &mut Styled, s: &SuiteReport, order: &[usize], width: Option<usize>) {
    let columns: Vec<String> = ["status", "criterion", "measured", "threshold", "published"]
        .map(String::from)
        .to_vec();
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|&i| {
            let v = &s.verdicts[i];
            vec![
                v.status.label().to_string(),
                v.criterion.clone(),
                v.measured.to_string(),
                v.threshold.to_string(),
                v.published.to_string(),
            ]
        })
        .collect();
    // What a reader needs most stays whole longest: the status, then what was measured,
    // then the criterion; the published figure and the threshold give way first.
    let fit = Fit {
        width,
        give_way: &[(4, 14), (3, 12), (1, 36)],
    };
    aligned_into(out, &columns, &rows, fit, |r, c| {
        (c == 0).then(|| paint_of(s.verdicts[order[r]].status))
    });
}

/// One suite in a screen: the verdicts (failures first), a short reason for each that did
/// not pass (one line for a reason several share), the deviations that changed the
/// comparison, what to check next (each once), and what the detail holds besides.
fn suite_summary(out: &mut Styled, s: &SuiteReport, width: Option<usize>) {
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
fn short_ids(ids: &[&str]) -> String {
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

fn suite_detail(out: &mut Styled, s: &SuiteReport, width: Option<usize>) {
    let order: Vec<usize> = (0..s.verdicts.len()).collect();
    verdict_table(out, s, &order, width);
    for v in s.verdicts.iter().filter(|v| !v.note.is_empty()) {
        out.push_plain("  ");
        out.painted(v.status.label(), paint_of(v.status));
        let _ = writeln!(out, " {}: {}", v.id, v.note);
    }
    for v in s.verdicts.iter().filter(|v| !v.check_next.is_empty()) {
        let _ = writeln!(out, "  check next for {}:", v.id);
        for n in &v.check_next {
            let _ = writeln!(out, "    - {} ({})", n.text, n.source);
        }
    }
    let held: Vec<(&str, &str)> = s
        .verdicts
        .iter()
        .filter_map(|v| {
            v.reproduction
                .as_ref()
                .map(|r| (v.id.as_str(), r.label.as_str()))
        })
        .collect();
    if !held.is_empty() {
        out.push_plain("\nPublished figures\n");
        for (id, label) in held {
            let _ = writeln!(out, "  {id}: {label}");
        }
    }
    if !s.deviations.is_empty() {
        out.push_plain("\nDeviations from the procedure\n");
        for d in &s.deviations {
            let _ = writeln!(
                out,
                "  {}{}: {} [{}]",
                if d.changes_comparison {
                    "changes the comparison: "
                } else {
                    ""
                },
                d.short(),
                d.effect,
                few(&d.subjects)
            );
        }
    }
    if !s.limits.is_empty() {
        out.push_plain("\nPhysical limits\n");
        let limits: Vec<&crate::model::limit::Limit> = s.limits.iter().collect();
        let (rows, shared) = crate::render::limits::said_once(&limits);
        for l in &rows {
            let _ = writeln!(out, "  {}: {} · bound: {}", l.subject, l.measured, l.bound);
            if !l.own.is_empty() {
                let _ = writeln!(out, "    {}", l.own);
            }
        }
        // The formula is the report's; a text several limits share, once.
        for sh in shared.iter().filter(|sh| sh.what != "how") {
            let _ = writeln!(out, "  {} [{}]", sh.said, sh.applies_to);
        }
    }
    if !s.observations.is_empty() {
        out.push_plain("\nObservations (no pass mark)\n");
        for o in &s.observations {
            let _ = writeln!(out, "  {}: {}", o.what, o.measured);
            if !o.published.is("-") {
                let _ = writeln!(out, "    published: {}", o.published);
            }
            if !o.note.is_empty() {
                let _ = writeln!(out, "    note: {}", o.note);
            }
        }
    }
    for p in &s.preformatted {
        let _ = writeln!(out, "\n{}\n{}", p.title, p.text);
        for n in &p.notes {
            let _ = writeln!(out, "  note: {n}");
        }
    }
    for t in &s.tables {
        out.push_plain("\n");
        table(out, t, width);
    }
    for n in &s.notes {
        let _ = writeln!(out, "\nnote: {n}");
    }
}

/// The setup against the reference: every row in the detail; in the summary, the rows
/// that differ or are unknown, and how many match.
fn conformance(out: &mut Styled, c: &crate::why::conformance::Conformance, view: View) {
    use crate::why::conformance::Conform;
    let rows: Vec<&crate::why::conformance::ConformanceRow> = c
        .rows
        .iter()
        .filter(|r| view.detail || r.status != Conform::Match)
        .collect();
    let _ = writeln!(out, "\n== {} ==", c.title);
    let matching = c.rows.len() - rows.len();
    if rows.is_empty() {
        let _ = writeln!(out, "every part of {} matches", c.rows.len());
        return;
    }
    let columns: Vec<String> = ["part", "reference", "yours", "status", "from"]
        .map(String::from)
        .to_vec();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.part.clone(),
                r.reference.clone(),
                r.yours.clone(),
                r.status.label().to_string(),
                if r.source.is_empty() {
                    "-".to_string()
                } else {
                    r.source.clone()
                },
            ]
        })
        .collect();
    let fit = Fit {
        width: view.width,
        give_way: &[(4, 16), (1, 16)],
    };
    aligned_into(out, &columns, &cells, fit, |r, col| {
        (col == 3 && rows[r].status == Conform::Differs).then_some(Paint::Warn)
    });
    if view.detail {
        for r in c.rows.iter().filter(|r| !r.predicts.is_empty()) {
            let _ = writeln!(out, "  {} {}: {}", r.status.label(), r.part, r.predicts);
        }
    } else if matching > 0 {
        let _ = writeln!(out, "  ({matching} more match the reference: --detail)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let text = aligned(
            &["a".into(), "bb".into()],
            &[vec!["xxx".into(), "y".into()]],
        );
        assert_eq!(text, "a    bb\nxxx  y\n");
    }

    #[test]
    fn a_table_wider_than_the_terminal_is_cut_to_fit_its_widest_columns() {
        let columns: Vec<String> = vec!["status".into(), "criterion".into(), "measured".into()];
        let rows = vec![vec![
            "pass".to_string(),
            "a criterion sentence much longer than the terminal is wide, by far".to_string(),
            "6.41x (6934 vs 1082 MB/s)".to_string(),
        ]];
        let mut out = Styled::default();
        aligned_into(&mut out, &columns, &rows, Fit::to(Some(60)), |_, _| None);
        for line in out.text().lines() {
            assert!(line.chars().count() <= 60, "{line:?}");
        }
        assert!(out.text().contains('…'), "{}", out.text());
        // The narrow column is left whole; the widest one gave way.
        assert!(out.text().contains("pass"));
        // Piped (no width): nothing is cut.
        let plain = aligned(&columns, &rows);
        assert!(plain.contains("by far") && !plain.contains('…'));
    }

    #[test]
    fn a_short_reason_is_the_first_clause_cut_at_a_word() {
        assert_eq!(short_reason("one; two", 100), "one");
        let long = "word ".repeat(40);
        let s = short_reason(&long, 30);
        assert!(s.chars().count() <= 30 && s.ends_with('…'), "{s}");
        assert!(!s.contains("wor…"), "{s}");
    }

    #[test]
    fn ids_sharing_a_suite_say_it_once() {
        assert_eq!(
            short_ids(&["toy.L1-parity", "toy.L2-parity"]),
            "toy.L1-parity, L2-parity"
        );
        assert_eq!(short_ids(&["a.x", "b.y"]), "a.x, b.y");
    }
}
