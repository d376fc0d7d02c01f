//! Tables laid out in columns padded to their widest cell, cut to the terminal's width.

use std::fmt::Write;

use crate::output::{Paint, Styled};
use crate::suites::Table;

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
pub(super) fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

pub(super) fn table(out: &mut Styled, t: &Table, width: Option<usize>) {
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
