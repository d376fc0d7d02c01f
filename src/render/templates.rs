//! The report templates (`templates/report.md.j2`, `templates/report.typ.j2`), rendered
//! by minijinja from the one analysis model.

use minijinja::{context, Environment, Value};

use crate::analysis::Analysis;
use crate::typst::TYPST_VERSION;

pub const MARKDOWN: &str = include_str!("../../templates/report.md.j2");
pub const TYPST: &str = include_str!("../../templates/report.typ.j2");
pub const HTML: &str = include_str!("../../templates/report.html.j2");
/// What every HTML page shares: its style, and the script that sorts its tables.
const HTML_PARTS: [(&str, &str); 2] = [
    (
        "html-style.html",
        include_str!("../../templates/html-style.html.j2"),
    ),
    (
        "html-sort.html",
        include_str!("../../templates/html-sort.html.j2"),
    ),
];

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

/// The spans of `text` between paired backticks (`` `logs/adp-vllm.log` ``): (is code,
/// text). A backtick without its pair stays as written.
fn code_spans(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        if open > 0 {
            out.push((false, &rest[..open]));
        }
        out.push((true, &rest[open + 1..open + 1 + len]));
        rest = &rest[open + len + 2..];
    }
    if !rest.is_empty() {
        out.push((false, rest));
    }
    out
}

/// HTML: the text escaped, what it quotes between backticks as `<code>`.
pub fn html_code(text: String) -> Value {
    let escape = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#x27;")
    };
    let mut out = String::with_capacity(text.len() + 16);
    for (code, t) in code_spans(&text) {
        if code {
            out.push_str("<code>");
            out.push_str(&escape(t));
            out.push_str("</code>");
        } else {
            out.push_str(&escape(t));
        }
    }
    Value::from_safe_string(out)
}

/// Typst: a content block of the text as strings, what it quotes between backticks as
/// `raw` (usable after `#` in markup and as an argument).
pub fn typst_code(text: String) -> String {
    let mut out = String::from("[");
    for (code, t) in code_spans(&text) {
        if code {
            out.push_str("#raw(");
            out.push_str(&typst_str(t.to_string()));
            out.push(')');
        } else {
            out.push('#');
            out.push_str(&typst_str(t.to_string()));
        }
    }
    out.push(']');
    out
}

/// An interval's two ends in the verdict's unit: `0.945x to 1.032x`, `-2.166% to
/// 5.905%`, `9.530 s to 9.555 s` (`low | span(high, unit)`; the unit's first word).
fn span(low: f64, high: f64, unit: String) -> String {
    use crate::model::phrase::RATIO_SHOWN;
    let symbol = unit.split_whitespace().next().unwrap_or("");
    let end = |x: f64| match symbol {
        // A ratio's bound beyond what is shown as a number says only that it is.
        "x" if !(RATIO_SHOWN.0..=RATIO_SHOWN.1).contains(&x) => {
            crate::model::phrase::ratio_bound(x).to_string()
        }
        "x" => format!("{x:.3}x"),
        "%" => format!("{x:.3}{symbol}"),
        "" => format!("{x:.3}"),
        _ => format!("{x:.3} {symbol}"),
    };
    format!("{} to {}", end(low), end(high))
}

/// The environment every template renders in: its filters (`cell`, `status`, `t`, `few`,
/// `span`, `status_word`; `code` and `tc` show text quoted between backticks as code in HTML and
/// Typst), and the parts the HTML pages include.
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    for (name, source) in HTML_PARTS {
        // Built in and rendered by the tests: a part that does not parse is a build
        // defect, and an HTML page that includes it fails to render with its name.
        if let Err(e) = env.add_template(name, source) {
            crate::errln!("error: the built-in template `{name}`: {e}");
        }
    }
    env.add_filter("cell", cell);
    env.add_filter("status", status);
    env.add_filter("t", typst_str);
    env.add_filter("code", html_code);
    env.add_filter("tc", typst_code);
    env.add_filter("few", |v: Vec<String>| crate::render::few(&v));
    env.add_filter("span", span);
    env.add_filter("pct_bound", crate::model::phrase::pct_bound);
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
    let all_limits: Vec<&crate::model::limit::Limit> =
        a.suites.iter().flat_map(|s| &s.limits).collect();
    let (limits, limits_shared) = crate::render::limits::said_once(&all_limits);
    // The first page: each suite's verdicts, failures first; the deviations that changed
    // the comparison; each suite's first chart (its headline), two or three to a row.
    let exec: Vec<Value> = a
        .suites
        .iter()
        .map(|s| {
            let mut verdicts: Vec<&crate::model::verdict::Verdict> = s.verdicts.iter().collect();
            verdicts.sort_by_key(|v| v.status.urgency());
            context! { title => s.title, verdicts => verdicts }
        })
        .collect();
    let changing: Vec<&crate::model::deviation::Deviation> = deviations
        .iter()
        .copied()
        .filter(|d| d.changes_comparison)
        .collect();
    let headline: Vec<&str> = a
        .suites
        .iter()
        .filter_map(|s| s.charts.first().map(|c| c.id.as_str()))
        .collect();
    let ctx = context! {
        exec => exec,
        changing => changing,
        headline_columns => headline.len().clamp(2, 3),
        headline => headline,
        typst_version => TYPST_VERSION,
        summary_line => a.summary.line(),
        deviations => deviations,
        check_next => check_next,
        limits => limits,
        limits_shared => limits_shared,
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
    fn an_interval_of_a_ratio_reads_as_beyond_past_a_hundredfold() {
        assert_eq!(span(0.945, 1.032, "x".into()), "0.945x to 1.032x");
        assert_eq!(
            span(1.8e-13, 3.5e11, "x (ratio)".into()),
            "below 0.01x to above 100x"
        );
        assert_eq!(span(-2.1664, 5.905, "%".into()), "-2.166% to 5.905%");
    }

    #[test]
    fn quoted_code_is_code_in_html_and_typst_and_nothing_else_is() {
        let text = "line 6 of `logs/adp-vllm.log`: <b>x</b> & `a\"b` and a lone ` here";
        assert_eq!(
            html_code(text.into()).to_string(),
            "line 6 of <code>logs/adp-vllm.log</code>: &lt;b&gt;x&lt;/b&gt; &amp; <code>a&quot;b</code> and a lone ` here"
        );
        assert_eq!(
            typst_code(text.into()),
            r##"[#"line 6 of "#raw("logs/adp-vllm.log")#": <b>x</b> & "#raw("a\"b")#" and a lone ` here"]"##
        );
        assert_eq!(typst_code(String::new()), "[]");
        assert_eq!(code_spans("`x`"), vec![(true, "x")]);
    }

    #[test]
    fn typst_strings_escape_everything() {
        assert_eq!(
            typst_str("a \"b\" \\ #c *d*\n".into()),
            r#""a \"b\" \\ #c *d*\n""#
        );
    }
}
