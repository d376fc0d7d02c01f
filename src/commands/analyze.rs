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
            a.with_record_frames();
        }
        export(&results, dir)?;
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
            let t = crate::analysis::Timer::start();
            for a in &results {
                crate::out!("{}", terminal::render(a));
            }
            t.lap("render");
        }
    }
    // The process ends here: the OS takes the memory back faster than freeing every
    // parsed record one by one would.
    std::mem::forget(results);
    Ok(worst)
}

/// Writes every frame of every input, joined by name with an `input` column, and
/// `schema.md`.
fn export(results: &[Analysis], dir: &Path) -> anyhow::Result<()> {
    for a in results {
        for p in &a.frame_problems {
            eprintln!("warning: {}: {p}", a.input);
        }
    }
    let inputs: Vec<(String, Vec<frames::Frame>)> = results
        .iter()
        .map(|a| (a.input.clone(), a.frames.clone()))
        .collect();
    let mut joined = frames::join_inputs(&inputs)?;
    for w in frames::export(&mut joined, dir)? {
        eprintln!("wrote {w}");
    }
    Ok(())
}
