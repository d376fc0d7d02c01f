//! Writes a report folder: report.md, report.html, plots/*.svg, report.typ and report.pdf.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::analysis::Analysis;
// Every report file is text a person reads (in a terminal too: `cat report.md`): control
// characters from the inputs are shown, never obeyed, in one place for all of them.
use crate::output::visible as shown;
use crate::process::Runner;
use crate::render::{pdf, svg, templates};

/// How the PDF is to be made.
pub struct PdfChoice<'a> {
    pub skip: bool,
    pub typst: Option<&'a Path>,
}

/// Everything written, for messages and bundles.
pub struct Written {
    pub files: Vec<PathBuf>,
    pub pdf: Option<PathBuf>,
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("failed to write `{}`", path.display()))
}

pub fn write_report(
    a: &Analysis,
    dir: &Path,
    choice: &PdfChoice,
    runner: &dyn Runner,
) -> anyhow::Result<Written> {
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots)
        .with_context(|| format!("failed to create `{}`", plots.display()))?;
    let mut files = Vec::new();
    for chart in a.suites.iter().flat_map(|s| &s.charts) {
        let p = plots.join(format!("{}.svg", chart.id));
        write(&p, shown(&svg::render(chart)).as_bytes())?;
        files.push(p);
    }
    let md = dir.join("report.md");
    write(
        &md,
        shown(&templates::render_markdown(a).context("failed to render report.md")?).as_bytes(),
    )?;
    files.push(md);
    let html = dir.join("report.html");
    write(
        &html,
        shown(&templates::render_html(a).context("failed to render report.html")?).as_bytes(),
    )?;
    files.push(html);
    if choice.skip {
        return Ok(Written { files, pdf: None });
    }
    let typ = dir.join("report.typ");
    write(
        &typ,
        shown(&templates::render_typst(a).context("failed to render report.typ")?).as_bytes(),
    )?;
    files.push(typ);
    let typst = match crate::typst::find(choice.typst) {
        Some(t) => t,
        None => crate::typst::install(runner)?,
    };
    if let Some(v) = crate::typst::version(runner, &typst) {
        if v != crate::typst::TYPST_VERSION {
            crate::errln!(
                "note: `{}` is typst {v}; reports are made with {} (the PDF may differ slightly)",
                typst.display(),
                crate::typst::TYPST_VERSION
            );
        }
    }
    let out = pdf::compile(runner, &typst, dir)?;
    files.push(out.clone());
    Ok(Written {
        files,
        pdf: Some(out),
    })
}
