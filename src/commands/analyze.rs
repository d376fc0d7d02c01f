//! `reprobench analyze`: verdicts and tables in the terminal, or JSON; optional exports.

use std::path::Path;

use anyhow::Context;

use crate::analysis::Analysis;
use crate::cli::{AnalyzeArgs, Format};
use crate::frames;
use crate::render::terminal;

use super::{options, UNUSABLE};

pub fn run(args: &AnalyzeArgs) -> anyhow::Result<i32> {
    if let Some(dir) = &args.export {
        for input in &args.inputs {
            if let Err(why) = super::outside_input(input, dir) {
                crate::errln!("error: {why}");
                return Ok(UNUSABLE);
            }
        }
    }
    let opts = options(&args.judging);
    let mut worst = 0;
    let mut results: Vec<Analysis> = Vec::new();
    // The catalogs and frames beside the models, kept only to export them.
    let mut runs: Vec<crate::analysis::Run> = Vec::new();
    let inputs = if args.campaigns {
        match campaigns(&args.inputs) {
            Ok(i) => i,
            Err(why) => {
                crate::errln!("error: {why}");
                return Ok(UNUSABLE);
            }
        }
    } else {
        args.inputs.clone()
    };
    // With --trend, campaigns of a dataset are inputs too, in the order given.
    let mut campaigns: Vec<crate::compare::Campaign> = Vec::new();
    for input in &inputs {
        if let Some((root, sel)) = crate::dataset::read::parse(input) {
            if !args.trend {
                crate::errln!(
                    "error: `{}` is a dataset: it holds campaigns' results, not files to judge; read it with --trend, compare, or SQL (docs/compare-and-datasets.md, Datasets)",
                    input.display()
                );
                worst = UNUSABLE;
                continue;
            }
            match crate::dataset::read::campaigns(&root, &sel) {
                Ok(mut c) => {
                    worst = worst.max(c.iter().map(|c| c.exit_code()).max().unwrap_or(0));
                    campaigns.append(&mut c);
                }
                Err(e) => {
                    crate::errln!("error: {e:#}");
                    worst = UNUSABLE;
                }
            }
            continue;
        }
        match crate::analysis::run_input(input, &opts) {
            Ok(r) => {
                // The model is copied only when its run is kept for the export.
                let a = if args.export.is_some() {
                    let a = r.analysis.clone();
                    runs.push(r);
                    a
                } else {
                    // As for the results below: the OS takes the parsed records back
                    // faster than freeing them one by one would.
                    let crate::analysis::Run {
                        analysis, catalog, ..
                    } = r;
                    std::mem::forget(catalog);
                    analysis
                };
                if let Some(why) = a.nothing_judged() {
                    crate::errln!("error: {why}");
                }
                worst = worst.max(a.exit_code());
                if args.trend {
                    campaigns.push(crate::compare::Campaign::from(&a));
                }
                results.push(a);
            }
            Err(e) => {
                crate::errln!("error: {e:#}");
                worst = UNUSABLE;
            }
        }
    }
    let trend = if args.trend {
        if campaigns.len() < 2 {
            crate::errln!("note: a trend needs two inputs or more; none shown");
            None
        } else {
            Some(crate::compare::trend::trend(&campaigns, args.by_time))
        }
    } else {
        None
    };
    if let Some(dir) = &args.export {
        for r in &mut runs {
            r.with_record_frames();
        }
        export(&runs, trend.as_ref(), dir)?;
    }
    match args.format {
        Format::Json if trend.is_some() => {
            let value = serde_json::to_string_pretty(&serde_json::json!({
                "inputs": results,
                "trend": trend,
            }))
            .context("failed to write the analysis as JSON")?;
            crate::outln!("{value}");
        }
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
            let view = terminal::View {
                detail: args.detail,
                width: crate::output::width(),
            };
            for a in &results {
                crate::output::write_styled(&terminal::render_view(a, view));
            }
            if let Some(t) = &trend {
                crate::out!("{}", trend_text(t));
            }
            t.lap("render");
        }
    }
    // The process ends here: the OS takes the memory back faster than freeing every
    // parsed record one by one would.
    std::mem::forget(results);
    std::mem::forget(runs);
    Ok(worst)
}

/// `--campaigns`: each input folder's subfolders, in name order, are the inputs.
fn campaigns(folders: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for f in folders {
        let entries =
            std::fs::read_dir(f).map_err(|e| format!("cannot read `{}`: {e}", f.display()))?;
        let mut subs: Vec<std::path::PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        if subs.is_empty() {
            return Err(format!("`{}` holds no campaign folders", f.display()));
        }
        subs.sort();
        out.extend(subs);
    }
    Ok(out)
}

/// The trend as a table: one row per criterion, one column per input, and a sparkline.
fn trend_text(t: &crate::compare::trend::Trend) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "\n== Trend across {} inputs ({}) ==\n",
        t.inputs.len(),
        t.order
    );
    for (i, input) in t.inputs.iter().enumerate() {
        let _ = writeln!(
            out,
            "  #{}: {}{}",
            i + 1,
            input.input,
            input
                .started
                .as_ref()
                .map(|s| format!(" (started {s})"))
                .unwrap_or_default()
        );
    }
    let mut columns = vec!["criterion".to_string(), "unit".to_string()];
    columns.extend((1..=t.inputs.len()).map(|i| format!("#{i}")));
    columns.push("trend".into());
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![r.id.clone(), r.unit.clone()];
            row.extend(r.values.iter().zip(&r.statuses).map(|(v, s)| match v {
                Some(v) => format!("{} ({s})", crate::compare::render::num(*v)),
                None => format!("- ({s})"),
            }));
            row.push(r.sparkline.clone());
            row
        })
        .collect();
    out.push_str(&terminal::aligned(&columns, &rows));
    out
}

/// Writes every frame of every input, joined by name with an `input` column, and
/// `schema.md`.
fn export(
    results: &[crate::analysis::Run],
    trend: Option<&crate::compare::trend::Trend>,
    dir: &Path,
) -> anyhow::Result<()> {
    for r in results {
        for p in &r.frame_problems {
            crate::errln!("warning: {}: {p}", r.analysis.input);
        }
    }
    let inputs: Vec<(String, Vec<frames::Frame>)> = results
        .iter()
        .map(|r| (r.analysis.input.clone(), r.frames.clone()))
        .collect();
    let mut joined = frames::join_inputs(&inputs)?;
    if let Some(t) = trend {
        joined.push(t.frame()?);
    }
    for w in frames::export(&mut joined, dir)? {
        crate::errln!("wrote {w}");
    }
    Ok(())
}
