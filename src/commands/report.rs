//! `reprobench report`: report.md, report.pdf and plots for a folder or bundle.

use crate::cli::ReportArgs;
use crate::process::System;
use crate::render::report::{write_report, PdfChoice};

use super::{analyze_input, options, outside_input, UNUSABLE};

pub fn run(args: &ReportArgs) -> anyhow::Result<i32> {
    if let Err(why) = outside_input(&args.input, &args.output) {
        crate::errln!("error: {why}");
        return Ok(UNUSABLE);
    }
    let a = match analyze_input(&args.input, &options(&args.judging)) {
        Ok(a) => a,
        Err(e) => {
            crate::errln!("error: {e:#}");
            return Ok(UNUSABLE);
        }
    };
    let choice = PdfChoice {
        skip: args.pdf.no_pdf,
        typst: args.pdf.typst.as_deref(),
    };
    let written = write_report(&a, &args.output, &choice, &System)?;
    for f in &written.files {
        if f.extension()
            .is_some_and(|e| e == "md" || e == "pdf" || e == "html")
        {
            crate::outln!("wrote {}", f.display());
        }
    }
    let m = &a.summary;
    crate::outln!("{}", m.line());
    if let Some(why) = a.nothing_judged() {
        crate::errln!("error: {why}");
    }
    Ok(a.exit_code())
}
