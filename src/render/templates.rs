//! The report templates (`templates/report.md.j2`, `templates/report.typ.j2`), rendered
//! by minijinja from the one analysis model.

use minijinja::{context, Environment, Value};

use crate::analysis::Analysis;
use crate::typst::TYPST_VERSION;

pub const MARKDOWN: &str = include_str!("../../templates/report.md.j2");
pub const TYPST: &str = include_str!("../../templates/report.typ.j2");
pub const HTML: &str = include_str!("../../templates/report.html.j2");

/// Escapes what would break a Markdown table cell.
fn cell(s: String) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn status(s: String) -> String {
    match s.as_str() {
        "pass" => "✅ pass".into(),
        "fail" => "❌ **FAIL**".into(),
        "not-measured" => "⚪ not measured".into(),
        "inconclusive" => "⚠️ inconclusive".into(),
        "not-comparable" => "🟣 not comparable".into(),
        _ => s,
    }
}

/// A Typst string literal: everything inside is text, nothing is markup.
pub fn typst_str(s: String) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The environment every template renders in: its filters (`cell`, `status`, `t`, `few`,
/// `status_word`).
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.add_filter("cell", cell);
    env.add_filter("status", status);
    env.add_filter("t", typst_str);
    env.add_filter("few", |v: Vec<String>| crate::render::few(&v));
    env.add_filter("status_word", |s: String| {
        crate::model::verdict::Status::from_name(&s).map_or(s, |st| st.label().to_string())
    });
    env
}

fn render(name: &str, source: &'static str, a: &Analysis) -> anyhow::Result<String> {
    render_with(name, source, a, Value::from(()))
}

fn render_with(
    name: &str,
    source: &'static str,
    a: &Analysis,
    svgs: Value,
) -> anyhow::Result<String> {
    let mut env = environment();
    env.add_template(name, source)?;
    let deviations: Vec<&crate::model::deviation::Deviation> =
        a.suites.iter().flat_map(|s| &s.deviations).collect();
    let check_next: Vec<&crate::model::verdict::Verdict> =
        a.verdicts().filter(|v| !v.check_next.is_empty()).collect();
    let limits: Vec<&crate::model::limit::Limit> =
        a.suites.iter().flat_map(|s| &s.limits).collect();
    let ctx = context! {
        typst_version => TYPST_VERSION,
        summary_line => a.summary.line(),
        deviations => deviations,
        check_next => check_next,
        limits => limits,
        svgs => svgs,
        ..Value::from_serialize(a)
    };
    Ok(env.get_template(name)?.render(ctx)?)
}

pub fn render_markdown(a: &Analysis) -> anyhow::Result<String> {
    render("report.md", MARKDOWN, a)
}

pub fn render_typst(a: &Analysis) -> anyhow::Result<String> {
    render("report.typ", TYPST, a)
}

/// `report.html`: one file, the plots inline (their points name their values on hover),
/// every text escaped (the template's name makes minijinja escape for HTML).
pub fn render_html(a: &Analysis) -> anyhow::Result<String> {
    let svgs: std::collections::BTreeMap<String, Value> = a
        .suites
        .iter()
        .flat_map(|s| &s.charts)
        .map(|c| {
            (
                c.id.clone(),
                Value::from_safe_string(crate::render::svg::render(c)),
            )
        })
        .collect();
    render_with("report.html", HTML, a, Value::from_object(svgs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typst_strings_escape_everything() {
        assert_eq!(
            typst_str("a \"b\" \\ #c *d*\n".into()),
            r#""a \"b\" \\ #c *d*\n""#
        );
    }
}
