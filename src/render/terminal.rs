//! The terminal view: verdicts first, then the tables, then what was skipped.

use std::fmt::Write;

use crate::analysis::Analysis;
use crate::render::few;
use crate::suites::Table;

/// Lays out rows under a header with columns padded to their widest cell.
pub fn aligned(columns: &[String], rows: &[Vec<String>]) -> String {
    let n = columns.len();
    let mut width: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(n) {
            width[i] = width[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate().take(n) {
            if i + 1 == n {
                s.push_str(c);
            } else {
                let pad = width[i] - c.chars().count();
                s.push_str(c);
                s.push_str(&" ".repeat(pad + 2));
            }
        }
        s.trim_end().to_string()
    };
    out.push_str(&line(columns));
    out.push('\n');
    for row in rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}

fn table(t: &Table) -> String {
    let mut out = format!("{}\n", t.title);
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(ToString::to_string).collect())
        .collect();
    out.push_str(&aligned(&t.columns, &rows));
    for n in &t.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    out
}

pub fn render(a: &Analysis) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} · {}", a.tool, a.input);
    for s in &a.suites {
        let _ = writeln!(out, "\n== {} ({}) ==", s.title, s.name);
        let _ = writeln!(
            out,
            "procedure: {}; {} files read\n",
            s.procedure,
            s.files_read.len()
        );
        let columns: Vec<String> = ["status", "criterion", "measured", "threshold", "published"]
            .map(String::from)
            .to_vec();
        let rows: Vec<Vec<String>> = s
            .verdicts
            .iter()
            .map(|v| {
                vec![
                    v.status.label().to_string(),
                    v.criterion.clone(),
                    v.measured.to_string(),
                    v.threshold.to_string(),
                    v.published.to_string(),
                ]
            })
            .collect();
        out.push_str(&aligned(&columns, &rows));
        for v in s.verdicts.iter().filter(|v| !v.note.is_empty()) {
            let _ = writeln!(out, "  {} {}: {}", v.status.label(), v.id, v.note);
        }
        for v in s.verdicts.iter().filter(|v| !v.check_next.is_empty()) {
            let _ = writeln!(out, "  check next for {}:", v.id);
            for n in &v.check_next {
                let _ = writeln!(out, "    - {} ({})", n.text, n.source);
            }
        }
        if !s.deviations.is_empty() {
            out.push_str("\nDeviations from the procedure\n");
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
            out.push_str("\nPhysical limits\n");
            for l in &s.limits {
                let _ = writeln!(out, "  {}: {} · bound: {}", l.subject, l.measured, l.bound);
                if !l.reading.is_empty() {
                    let _ = writeln!(out, "    {}", l.reading);
                }
            }
        }
        if !s.observations.is_empty() {
            out.push_str("\nObservations (no pass mark)\n");
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
            out.push('\n');
            out.push_str(&table(t));
        }
        for n in &s.notes {
            let _ = writeln!(out, "\nnote: {n}");
        }
    }
    for c in &a.conformance {
        let _ = writeln!(out, "\n== {} ==", c.title);
        let columns: Vec<String> = ["part", "reference", "yours", "status", "from"]
            .map(String::from)
            .to_vec();
        let rows: Vec<Vec<String>> = c
            .rows
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
        out.push_str(&aligned(&columns, &rows));
        for r in c.rows.iter().filter(|r| !r.predicts.is_empty()) {
            let _ = writeln!(out, "  {} {}: {}", r.status.label(), r.part, r.predicts);
        }
    }
    if !a.skipped.is_empty() {
        let _ = writeln!(out, "\nSkipped ({})", a.skipped.len());
        for s in &a.skipped {
            let _ = writeln!(out, "  {}", s.one_line());
        }
    }
    let m = &a.summary;
    let _ = writeln!(out, "\n{}", m.line());
    out
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
}
