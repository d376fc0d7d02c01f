//! The setup against the reference, as a table of its parts.

use std::fmt::Write;

use crate::output::{Paint, Styled};

use super::layout::{aligned_into, Fit};
use super::View;

/// The setup against the reference: every row in the detail; in the summary, the rows
/// that differ or are unknown, and how many match.
pub(super) fn conformance(out: &mut Styled, c: &crate::why::conformance::Conformance, view: View) {
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
