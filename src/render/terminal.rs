//! The terminal view: verdicts first, then the tables, then what was skipped.

mod conformance;
mod detail;
mod layout;
mod summary;
#[cfg(test)]
mod tests;
mod verdicts;

use std::fmt::Write;

use crate::analysis::Analysis;
use crate::output::Styled;

use conformance::conformance;
use detail::suite_detail;
use layout::clip;
pub use layout::{aligned, aligned_into, Fit};
pub use summary::short_reason;
use summary::suite_summary;

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
        let read = s.files_read.len();
        let _ = writeln!(
            out,
            "procedure: {}; {read} file{} read\n",
            s.procedure,
            if read == 1 { "" } else { "s" }
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
