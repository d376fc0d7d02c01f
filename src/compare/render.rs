//! A comparison in the terminal, and as compare.md, compare.pdf and plots.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::model::chart::{Chart, Kind, Series};
use crate::process::Runner;
use crate::render::report::PdfChoice;
use crate::render::terminal::aligned;
use crate::render::{pdf, svg, templates};
use crate::suites::{CompareChart, Suite};

use super::{Change, Comparison, Row};

pub use crate::render::num;

const COMPARE_MARKDOWN: &str = include_str!("../../templates/compare.md.j2");
const COMPARE_TYPST: &str = include_str!("../../templates/compare.typ.j2");
const COMPARE_HTML: &str = include_str!("../../templates/compare.html.j2");

/// The forms a comparison is written in.
#[derive(Clone, Copy)]
enum Form {
    Markdown,
    Typst,
    /// One file, the plots inline, every text escaped (the template's name makes
    /// minijinja escape for HTML).
    Html,
}

/// `compare.md`, `compare.typ` or `compare.html` from a comparison, in the reports'
/// template environment.
fn render_compare(c: &Comparison, form: Form) -> anyhow::Result<String> {
    use minijinja::{context, Value};
    let mut env = templates::environment();
    let (name, source) = match form {
        Form::Typst => ("compare.typ", COMPARE_TYPST),
        Form::Markdown => ("compare.md", COMPARE_MARKDOWN),
        Form::Html => ("compare.html", COMPARE_HTML),
    };
    env.add_template(name, source)?;
    let svgs: std::collections::BTreeMap<String, Value> = match form {
        Form::Html => c
            .charts
            .iter()
            .map(|ch| (ch.id.clone(), Value::from_safe_string(svg::render(ch))))
            .collect(),
        _ => Default::default(),
    };
    let ctx = context! {
        typst_version => crate::typst::TYPST_VERSION,
        summary_line => c.summary_line(),
        charts => c.charts.iter().map(|ch| (ch.id.clone(), ch.title.clone())).collect::<Vec<_>>(),
        svgs => Value::from_object(svgs),
        ..Value::from_serialize(c)
    };
    Ok(env.get_template(name)?.render(ctx)?)
}

fn pct(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| format!("{p:+.1}%"))
}

/// The 95% interval of a change, or what stands in for it: `+8.1..+44.2%`, `-` (no
/// interval: the threshold alone decided).
fn interval(r: &Row) -> String {
    match r.interval_pct {
        Some([lo, hi]) => format!(
            "{}..{}%",
            crate::model::phrase::pct_bound(lo),
            crate::model::phrase::pct_bound(hi)
        ),
        None => "-".into(),
    }
}

/// Where a row's interval comes from, in a word: runs, within (each run's own standard
/// error), or - (none).
fn evidence(r: &Row) -> &'static str {
    if r.interval_pct.is_none() {
        "-"
    } else if r.base.runs >= 2 || r.new.runs >= 2 {
        "runs"
    } else {
        "within"
    }
}

pub fn text(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} · compare", c.tool);
    let _ = writeln!(out, "base: {}", c.base.join(", "));
    let _ = writeln!(out, "new:  {}", c.new.join(", "));
    setup_lines(&mut out, c);
    let changed: Vec<_> = c.criteria.iter().filter(|x| x.changed).collect();
    let _ = writeln!(
        out,
        "\nCriteria ({} of {} differ between the sides)",
        changed.len(),
        c.criteria.len()
    );
    let rows: Vec<Vec<String>> = c
        .criteria
        .iter()
        .map(|x| {
            vec![
                if x.changed { "*".into() } else { String::new() },
                x.id.clone(),
                x.base.clone(),
                x.new.clone(),
            ]
        })
        .collect();
    out.push_str(&aligned(
        &["", "criterion", "base", "new"].map(String::from),
        &rows,
    ));
    measurement_tables(&mut out, c);
    unmatched_lines(&mut out, c);
    let _ = writeln!(
        out,
        "\nruns: base/new. 95% CI: the interval of the change; from: runs = between a side's runs (Welch's t on the log ratio when both sides have several, else the repeated side's spread for both), within = each run's own standard error (fio's bandwidth samples: weaker evidence), - = no interval (the threshold alone decides). better/WORSE: the whole interval is beyond the {}% threshold; no change: within it; inconclusive: it straddles it. under a table, the rows not judged no change whose runs say more: how many runs would settle it (unless a side's runs are more than tenfold apart: more runs would dilute the odd one, not explain it), a run at 0 of a rate, ranks that disagree with the interval.",
        c.threshold_pct
    );
    let _ = writeln!(out, "\n{}", c.summary_line());
    out
}

/// What differs between the two setups, a line each.
fn setup_lines(out: &mut String, c: &Comparison) {
    out.push_str("\nWhat differs between the two setups\n");
    if c.setup.is_empty() {
        out.push_str("  nothing the files record\n");
    }
    for d in &c.setup {
        let _ = writeln!(
            out,
            "  {}{}: {} -> {} ({})",
            if d.moves_numbers {
                "[moves numbers] "
            } else {
                ""
            },
            d.what,
            d.base,
            d.new,
            d.why
        );
    }
}

/// One table of measurements per suite.
fn measurement_tables(out: &mut String, c: &Comparison) {
    let mut suites: Vec<&str> = c.rows.iter().map(|r| r.suite.as_str()).collect();
    suites.dedup();
    for suite in suites {
        let _ = writeln!(out, "\nMeasurements: {suite}");
        let rows: Vec<Vec<String>> = c
            .rows
            .iter()
            .filter(|r| r.suite == suite)
            .map(|r| {
                vec![
                    r.subject.clone(),
                    format!("{} ({})", r.metric, r.unit),
                    num(r.base.value),
                    num(r.new.value),
                    format!("{}/{}", r.base.runs, r.new.runs),
                    pct(r.delta_pct),
                    interval(r),
                    evidence(r).to_string(),
                    r.change.label().to_string(),
                ]
            })
            .collect();
        out.push_str(&aligned(
            &[
                "subject", "metric", "base", "new", "runs", "change", "95% CI", "from", "verdict",
            ]
            .map(String::from),
            &rows,
        ));
        why_lines(out, c.rows.iter().filter(|r| r.suite == suite));
    }
}

/// The why of each row not judged "no change" whose runs say more than the table does
/// (the clauses after the change's own, [`Row::why`]): a WORSE from a run that moved
/// nothing, or from repeats far apart, says so under the table.
fn why_lines<'a>(out: &mut String, rows: impl Iterator<Item = &'a Row>) {
    let judged: Vec<&Row> = rows
        .filter(|r| r.change != Change::NoChange && r.why.contains("; "))
        .collect();
    if judged.is_empty() {
        return;
    }
    out.push_str("why, where the runs say more than the table:\n");
    for r in judged {
        let _ = writeln!(
            out,
            "  {} · {}: {}: {}",
            r.subject,
            r.metric,
            r.change.label(),
            r.why
        );
    }
}

/// Measurements present on one side only.
fn unmatched_lines(out: &mut String, c: &Comparison) {
    if !c.unmatched.is_empty() {
        let _ = writeln!(
            out,
            "\nUnmatched ({}): present on one side only",
            c.unmatched.len()
        );
        for u in &c.unmatched {
            let _ = writeln!(
                out,
                "  {}: {} · {} · {} = {} {}",
                u.side,
                u.suite,
                u.subject,
                u.metric,
                num(u.value),
                u.unit
            );
        }
    }
}

/// The charts each suite asks for ([`Suite::compare_charts`]), bars first, then curves.
pub fn charts(rows: &[Row], suites: &[&dyn Suite]) -> Vec<Chart> {
    let mut out = Vec::new();
    let specs: Vec<(&str, &CompareChart)> = suites
        .iter()
        .flat_map(|s| s.compare_charts().iter().map(move |c| (s.name(), c)))
        .collect();
    for (suite, spec) in &specs {
        if let CompareChart::Bars { metric, id, title } = spec {
            out.extend(bars(rows, suite, metric, id, title));
        }
    }
    for (suite, spec) in &specs {
        if let CompareChart::Curves {
            metric,
            id,
            title,
            x_label,
        } = spec
        {
            out.extend(curves(rows, suite, metric, id, title, x_label));
        }
    }
    out.into_iter().flat_map(Chart::split).collect()
}

fn bars(rows: &[Row], suite: &str, metric: &str, id: &str, title: &str) -> Option<Chart> {
    let sel: Vec<&Row> = rows
        .iter()
        .filter(|r| r.suite == suite && r.metric == metric)
        .collect();
    let first = sel.first()?;
    Some(Chart {
        id: id.into(),
        title: title.into(),
        kind: Kind::Bar,
        x_label: String::new(),
        y_label: first.unit.clone(),
        categories: sel.iter().map(|r| r.subject.clone()).collect(),
        series: vec![
            Series {
                name: "base".into(),
                values: sel.iter().map(|r| Some(r.base.value)).collect(),
                published: false,
                spread: Vec::new(),
            },
            Series {
                name: "new".into(),
                values: sel.iter().map(|r| Some(r.new.value)).collect(),
                published: false,
                spread: Vec::new(),
            },
        ],
        lines: Vec::new(),
    })
}

/// `metric` against the level its subject names (`<series> · <level> ...`): one chart per
/// series, both sides' curves on it.
fn curves(
    rows: &[Row],
    suite: &str,
    metric: &str,
    id: &str,
    title: &str,
    x_label: &str,
) -> Vec<Chart> {
    let sel: Vec<&Row> = rows
        .iter()
        .filter(|r| r.suite == suite && r.metric == metric)
        .collect();
    let split = |s: &str| -> Option<(String, u32)> {
        let (v, c) = s.split_once(" · ")?;
        Some((v.to_string(), c.split_whitespace().next()?.parse().ok()?))
    };
    let mut levels: Vec<u32> = sel
        .iter()
        .filter_map(|r| split(&r.subject).map(|x| x.1))
        .collect();
    levels.sort_unstable();
    levels.dedup();
    let mut variants: Vec<String> = sel
        .iter()
        .filter_map(|r| split(&r.subject).map(|x| x.0))
        .collect();
    variants.sort();
    variants.dedup();
    let mut out = Vec::new();
    for v in &variants {
        let series = ["base", "new"]
            .iter()
            .map(|side| Series {
                name: format!("{v} ({side})"),
                values: levels
                    .iter()
                    .map(|l| {
                        sel.iter()
                            .find(|r| split(&r.subject) == Some((v.clone(), *l)))
                            .map(|r| {
                                if *side == "base" {
                                    r.base.value
                                } else {
                                    r.new.value
                                }
                            })
                    })
                    .collect(),
                published: false,
                spread: Vec::new(),
            })
            .collect();
        out.push(Chart {
            id: id.replace("{series}", v),
            title: title.replace("{series}", v),
            kind: Kind::Line,
            x_label: x_label.into(),
            y_label: sel.first().map(|r| r.unit.clone()).unwrap_or_default(),
            categories: levels.iter().map(u32::to_string).collect(),
            series,
            lines: Vec::new(),
        });
    }
    out
}

/// compare.md, compare.html, the plots, and (unless skipped) compare.typ and compare.pdf
/// in `dir`.
pub fn write(
    c: &Comparison,
    dir: &Path,
    choice: &PdfChoice,
    runner: &dyn Runner,
) -> anyhow::Result<Vec<PathBuf>> {
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots)
        .with_context(|| format!("failed to create `{}`", plots.display()))?;
    let mut files = Vec::new();
    let put = |p: PathBuf, bytes: &[u8]| -> anyhow::Result<PathBuf> {
        std::fs::write(&p, bytes).with_context(|| format!("failed to write `{}`", p.display()))?;
        Ok(p)
    };
    for ch in &c.charts {
        files.push(put(
            plots.join(format!("{}.svg", ch.id)),
            svg::render(ch).as_bytes(),
        )?);
    }
    files.push(put(
        dir.join("compare.md"),
        render_compare(c, Form::Markdown)?.as_bytes(),
    )?);
    files.push(put(
        dir.join("compare.html"),
        render_compare(c, Form::Html)?.as_bytes(),
    )?);
    if choice.skip {
        return Ok(files);
    }
    files.push(put(
        dir.join("compare.typ"),
        render_compare(c, Form::Typst)?.as_bytes(),
    )?);
    let typst = match crate::typst::find(choice.typst) {
        Some(t) => t,
        None => crate::typst::install(runner)?,
    };
    files.push(pdf::compile_named(runner, &typst, dir, "compare")?);
    Ok(files)
}

/// The trend of `analyze --trend` as one HTML page: a row per criterion, a column per
/// input, and each row's values as an inline line.
pub fn trend_html(t: &super::trend::Trend) -> anyhow::Result<String> {
    use minijinja::{context, Value};
    let mut env = templates::environment();
    env.add_template("trend.html", include_str!("../../templates/trend.html.j2"))?;
    let lines: Vec<Value> = t
        .rows
        .iter()
        .map(|r| Value::from_safe_string(super::trend::sparkline_svg(&r.values)))
        .collect();
    let ctx = context! {
        tool => format!("reprobench {}", env!("CARGO_PKG_VERSION")),
        lines => lines,
        ..Value::from_serialize(t)
    };
    Ok(env.get_template("trend.html")?.render(ctx)?)
}
