//! `report.md`, rendered from `templates/report.md.j2` with the analysis as its context.

use minijinja::{Environment, Value};

use crate::analysis::Analysis;

pub const TEMPLATE: &str = include_str!("../../templates/report.md.j2");

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
        _ => s,
    }
}

pub fn render(a: &Analysis) -> anyhow::Result<String> {
    let mut env = Environment::new();
    env.add_filter("cell", cell);
    env.add_filter("status", status);
    env.add_template("report.md", TEMPLATE)?;
    let tmpl = env.get_template("report.md")?;
    let text = tmpl.render(Value::from_serialize(a))?;
    Ok(text)
}
