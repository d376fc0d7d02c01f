//! `reprobench compare`: two runs (or pools of runs) side by side.

use std::path::PathBuf;

use anyhow::Context;

use crate::cli::{CompareArgs, Format};
use crate::compare::{self, render, Campaign};
use crate::process::System;
use crate::render::report::PdfChoice;

use super::{analyze_input, options, outside_input, UNUSABLE};

pub fn run(args: &CompareArgs) -> anyhow::Result<i32> {
    let side = |one: &Option<PathBuf>, many: &[PathBuf]| -> Vec<PathBuf> {
        one.iter().cloned().chain(many.iter().cloned()).collect()
    };
    let (base, new) = (
        side(&args.base_input, &args.base),
        side(&args.new_input, &args.new),
    );
    if base.is_empty() || new.is_empty() {
        crate::errln!("error: give a base and a new run: `compare BASE NEW`, or `--base A [B ...] --new C [D ...]`");
        return Ok(UNUSABLE);
    }
    if !(args.threshold.is_finite() && args.threshold >= 0.0) {
        crate::errln!("error: --threshold must be a percentage of 0 or more");
        return Ok(UNUSABLE);
    }
    if let Some(dir) = &args.output {
        for input in base.iter().chain(&new) {
            let input = crate::dataset::read::parse(input).map_or(input.clone(), |d| d.0);
            if let Err(why) = outside_input(&input, dir) {
                crate::errln!("error: {why}");
                return Ok(UNUSABLE);
            }
        }
    }
    let opts = options(&args.judging);
    let load = |inputs: &[PathBuf]| -> Result<Vec<Campaign>, ()> {
        let mut out = Vec::new();
        for i in inputs {
            let got = match crate::dataset::read::parse(i) {
                Some((root, sel)) => crate::dataset::read::campaigns(&root, &sel),
                None => analyze_input(i, &opts).map(|a| vec![Campaign::from(&a)]),
            };
            match got {
                Ok(mut c) => out.append(&mut c),
                Err(e) => {
                    crate::errln!("error: {e:#}");
                    return Err(());
                }
            }
        }
        Ok(out)
    };
    let (Ok(b), Ok(n)) = (load(&base), load(&new)) else {
        return Ok(UNUSABLE);
    };
    let c = compare::compare(&b, &n, args.threshold);
    match args.format {
        Format::Json => crate::outln!(
            "{}",
            serde_json::to_string_pretty(&c).context("failed to write the comparison as JSON")?
        ),
        Format::Text => crate::out!("{}", render::text(&c)),
    }
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("failed to create `{}`", dir.display()))?;
        let choice = PdfChoice {
            skip: args.pdf.no_pdf,
            typst: args.pdf.typst.as_deref(),
        };
        for f in render::write(&c, dir, &choice, &System)? {
            if f.extension().is_some_and(|e| e == "md" || e == "pdf") {
                crate::errln!("wrote {}", f.display());
            }
        }
    }
    std::mem::forget((b, n));
    if c.rows.is_empty() {
        // A gate that compared nothing must not pass.
        crate::errln!(
            "error: nothing to compare: the two sides share no measurement ({} on one side only); are they runs of the same procedure and jobs?",
            c.unmatched.len()
        );
        return Ok(UNUSABLE);
    }
    Ok(c.exit_code())
}
