//! One suite in full (`--detail`): every verdict with its note and what to check next,
//! the published figures, deviations, physical limits, observations, tables and notes.

use std::fmt::Write;

use crate::output::Styled;
use crate::render::few;
use crate::suites::SuiteReport;

use super::layout::table;
use super::verdicts::{paint_of, verdict_table};

pub(super) fn suite_detail(out: &mut Styled, s: &SuiteReport, width: Option<usize>) {
    let order: Vec<usize> = (0..s.verdicts.len()).collect();
    verdict_table(out, s, &order, width);
    verdict_lines(out, s);
    published_figures(out, s);
    deviation_lines(out, s);
    limit_lines(out, s);
    observation_lines(out, s);
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

/// Each verdict's note, then what to check next for each verdict that names some.
fn verdict_lines(out: &mut Styled, s: &SuiteReport) {
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
}

/// The published figures held against the measurements, one line each.
fn published_figures(out: &mut Styled, s: &SuiteReport) {
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
}

/// Every deviation from the procedure, those that change the comparison said so.
fn deviation_lines(out: &mut Styled, s: &SuiteReport) {
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
}

/// The physical limits, each with its bound, and the texts several share once.
fn limit_lines(out: &mut Styled, s: &SuiteReport) {
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
}

/// The observations (no pass mark), with their published figure and note where given.
fn observation_lines(out: &mut Styled, s: &SuiteReport) {
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
}
