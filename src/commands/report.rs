//! `reprobench report`: report.md from the Markdown template.

use anyhow::Context;

use crate::analysis::analyze;
use crate::cli::ReportArgs;
use crate::render::markdown;

use super::{options, UNUSABLE};

pub fn run(args: &ReportArgs) -> anyhow::Result<i32> {
    let a = match analyze(&args.input, &options(&args.judging)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(UNUSABLE);
        }
    };
    let md = markdown::render(&a).context("failed to render report.md")?;
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("failed to create `{}`", args.output.display()))?;
    let path = args.output.join("report.md");
    std::fs::write(&path, md).with_context(|| format!("failed to write `{}`", path.display()))?;
    println!("wrote {}", path.display());
    let m = &a.summary;
    println!(
        "{} pass, {} fail, {} not measured, {} inconclusive",
        m.pass, m.fail, m.not_measured, m.inconclusive
    );
    Ok(a.exit_code())
}
