//! `reprobench analyze`: verdicts and tables in the terminal, or JSON; optional exports.

use std::path::Path;

use anyhow::Context;

use crate::analysis::Analysis;
use crate::cli::{AnalyzeArgs, Format};
use crate::frames;
use crate::render::terminal;

use super::{analyze_input, options, UNUSABLE};

pub fn run(args: &AnalyzeArgs) -> anyhow::Result<i32> {
    if let Some(dir) = &args.export {
        for input in &args.inputs {
            if let Err(why) = super::outside_input(input, dir) {
                eprintln!("error: {why}");
                return Ok(UNUSABLE);
            }
        }
    }
    let opts = options(&args.judging);
    let mut worst = 0;
    let mut results: Vec<Analysis> = Vec::new();
    for input in &args.inputs {
        match analyze_input(input, &opts) {
            Ok(a) => {
                worst = worst.max(a.exit_code());
                results.push(a);
            }
            Err(e) => {
                eprintln!("error: {e:#}");
                worst = UNUSABLE;
            }
        }
    }
    if let Some(dir) = &args.export {
        for a in &mut results {
            export(a, dir, args.inputs.len() > 1)?;
        }
    }
    match args.format {
        Format::Json => {
            let value = if results.len() == 1 {
                serde_json::to_string_pretty(&results[0])
            } else {
                serde_json::to_string_pretty(&results)
            }
            .context("failed to write the analysis as JSON")?;
            crate::outln!("{value}");
        }
        Format::Text => {
            for a in &results {
                crate::out!("{}", terminal::render(a));
            }
        }
    }
    Ok(worst)
}

fn export(a: &mut Analysis, dir: &Path, several: bool) -> anyhow::Result<()> {
    let dir = if several {
        let name = Path::new(&a.input)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "input".into());
        dir.join(name)
    } else {
        dir.to_path_buf()
    };
    for s in &mut a.suites {
        let written = frames::export(&mut s.frames, &dir)?;
        for w in written {
            eprintln!("wrote {w}");
        }
    }
    Ok(())
}
