//! The judging of an ingested input: every suite that finds its files judges them, and
//! what they report is gathered into one analysis with its environment, conformance
//! tables, frames and the files no suite read.

use std::path::Path;

use rayon::prelude::*;

use crate::frames::{verdicts as frame_verdicts, Frame};
use crate::ingest::walk::Skipped;
use crate::ingest::Catalog;
use crate::suites::{self, Fact, Options, Suite, SuiteReport};

use super::start_time::started;
use super::summary::summarize;
use super::{Analysis, Timer, Unusable, SCHEMA_VERSION};

/// `: notes.txt (text), b.bin (text)`: the first files of an input no suite read, with
/// what each was taken for.
fn looked_at(catalog: &Catalog) -> String {
    const SHOWN: usize = 5;
    let items = &catalog.items;
    if items.is_empty() {
        return String::new();
    }
    let mut names: Vec<String> = items
        .iter()
        .take(SHOWN)
        .map(|i| {
            format!(
                "{} ({})",
                crate::output::visible_name(&i.rel),
                i.kind.label()
            )
        })
        .collect();
    if items.len() > SHOWN {
        names.push(format!("and {} more", items.len() - SHOWN));
    }
    format!(": {}", names.join(", "))
}

/// Judges an ingested input: each suite that finds its files reads them from the catalog.
pub fn analyze_catalog(
    input: &Path,
    catalog: &Catalog,
    opts: &Options,
) -> Result<Analysis, Unusable> {
    judge(input, catalog, opts, suites::SUITES).map(|(a, _, _)| a)
}

/// The analysis, the suites' frames, and the frames that could not be built.
pub(super) fn judge(
    input: &Path,
    catalog: &Catalog,
    opts: &Options,
    registry: &[&dyn Suite],
) -> Result<(Analysis, Vec<Frame>, Vec<String>), Unusable> {
    let mut skipped: Vec<Skipped> = catalog.problems.clone();
    // The suites read the catalog and nothing else: they run side by side, and their
    // reports and skipped files are gathered in registry order. Each first prepares what
    // it reads, all side by side, then judges.
    let found: Vec<&dyn Suite> = registry
        .par_iter()
        .filter(|suite| suite.detect(catalog))
        .copied()
        .collect();
    // The setup the files show is read beside the preparing: it needs no suite.
    let ((), setup) = rayon::join(
        || {
            found.par_iter().for_each(|suite| {
                let t = Timer::start();
                suite.prepare(catalog);
                t.lap(&format!("suite {} prepare", suite.name()));
            })
        },
        || crate::why::setup::read(catalog),
    );
    type Judged = (SuiteReport, Vec<Skipped>, Vec<Frame>);
    let judged: Vec<Judged> = found
        .par_iter()
        .map(|suite| {
            let t = Timer::start();
            let (mut own, mut frames) = (Vec::new(), Vec::new());
            let mut report = suite.analyze(catalog, opts, &mut own, &mut frames);
            crate::why::next_steps::attach(&mut report.verdicts, suite.check_next());
            for v in &mut report.verdicts {
                v.reproduction = crate::model::verdict::Reproduction::of(v);
            }
            t.lap(&format!("suite {}", suite.name()));
            (report, own, frames)
        })
        .collect();
    let mut reports = Vec::with_capacity(judged.len());
    let mut frames = Vec::new();
    for (report, own, mut built) in judged {
        reports.push(report);
        skipped.extend(own);
        frames.append(&mut built);
    }
    // What the suites shared is theirs: dropped, not kept as long as the catalog.
    catalog.clear_shared();
    skipped.extend(unused(catalog, &reports, &skipped, registry));
    if reports.is_empty() {
        return Err(nothing_found(input, catalog, &skipped));
    }
    for r in &mut reports {
        r.charts = std::mem::take(&mut r.charts)
            .into_iter()
            .map(|mut c| {
                c.series.retain(|s| s.values.iter().any(Option::is_some));
                c
            })
            .filter(crate::model::chart::Chart::has_data)
            .flat_map(crate::model::chart::Chart::split)
            .collect();
    }
    let conformance = conformance(registry, &reports, &setup);
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    skipped.dedup();
    let summary = summarize(reports.iter().flat_map(|r| &r.verdicts));
    let mut environment = manifest_facts(catalog);
    for f in reports.iter().flat_map(|r| &r.facts) {
        if !environment
            .iter()
            .any(|e| e.name == f.name && e.value == f.value)
        {
            environment.push(f.clone());
        }
    }
    let mut frame_problems = Vec::new();
    if opts.frames {
        report_frames(&reports, &mut frames, &mut frame_problems);
    }
    let analysis = Analysis {
        schema_version: SCHEMA_VERSION,
        environment,
        conformance,
        setup,
        started: started(catalog),
        input: input.display().to_string(),
        tool: format!("reprobench {}", env!("CARGO_PKG_VERSION")),
        suites: reports,
        skipped,
        summary,
    };
    Ok((analysis, frames, frame_problems))
}

/// No suite recognised the input: what was looked at, and what was skipped.
fn nothing_found(input: &Path, catalog: &Catalog, skipped: &[Skipped]) -> Unusable {
    let skipped = if skipped.is_empty() {
        String::new()
    } else {
        format!(
            "; skipped: {}",
            skipped
                .iter()
                .map(Skipped::one_line)
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    Unusable::NothingFound {
        path: input.display().to_string(),
        files: catalog.items.len(),
        named: looked_at(catalog),
        skipped,
    }
}

/// The conformance tables of the suites that reported, each table once.
fn conformance(
    registry: &[&dyn Suite],
    reports: &[SuiteReport],
    setup: &crate::why::setup::Setup,
) -> Vec<crate::why::conformance::Conformance> {
    let mut conformance: Vec<crate::why::conformance::Conformance> = Vec::new();
    for suite in registry {
        if !reports.iter().any(|r| r.name == suite.name()) {
            continue;
        }
        if let Some(table) = suite.conformance(setup) {
            if !conformance.iter().any(|t| t.title == table.title) {
                conformance.push(table);
            }
        }
    }
    conformance
}

/// The frames made from every suite's report (verdicts, deviations, measurements,
/// parameters); one that cannot be made is a problem said, not an error.
fn report_frames(reports: &[SuiteReport], frames: &mut Vec<Frame>, problems: &mut Vec<String>) {
    for built in [
        frame_verdicts::verdicts(reports),
        frame_verdicts::deviations(reports),
        crate::frames::measurements::measurements(reports),
        crate::frames::measurements::parameters(reports),
    ] {
        match built {
            Ok(f) => frames.push(f),
            Err(e) => problems.push(format!("{e:#}")),
        }
    }
}

/// Scalar entries of a top-level `manifest.json` (what a collector recorded).
fn manifest_facts(catalog: &Catalog) -> Vec<Fact> {
    let Some(serde_json::Value::Object(map)) = catalog.get("manifest.json").and_then(|i| i.json())
    else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(k, v)| {
            let value = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            Some(Fact::new(k.clone(), value, "manifest.json"))
        })
        .collect()
}

/// Results no suite read although they are one suite's kind of file: where they sit is
/// not a layout any suite reads, so say which layout would work.
fn unused(
    catalog: &Catalog,
    reports: &[SuiteReport],
    skipped: &[Skipped],
    registry: &[&dyn Suite],
) -> Vec<Skipped> {
    let read: std::collections::HashSet<&str> = reports
        .iter()
        .flat_map(|r| r.files_read.iter().map(String::as_str))
        .chain(skipped.iter().map(|s| s.file.as_str()))
        .collect();
    catalog
        .items
        .iter()
        .filter(|i| i.record.is_ok() && !read.contains(i.rel.as_str()))
        .filter_map(|i| {
            let hint = registry.iter().find_map(|s| s.unread_hint(i))?;
            Some(Skipped {
                file: i.rel.clone(),
                line: None,
                reason: format!("not read: {hint}"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
