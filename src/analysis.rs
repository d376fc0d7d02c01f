//! One analysis of one input: the folder, the suites found in it, their reports, and
//! every file that was skipped. This is the model every renderer reads.

use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use crate::frames::{records, verdicts as frame_verdicts, Frame};
use crate::ingest::walk::Skipped;
use crate::ingest::Catalog;
use crate::model::verdict::{self, Status, Verdict};
use crate::suites::{self, Fact, Options, Suite, SuiteReport};

/// The version of the JSON model (`analyze --format json`): raised when a field changes
/// meaning or type or the output changes shape (3: one object, `{schema_version, inputs,
/// trend}`, whatever the inputs; 4: a limit's `bound` no longer holds where its inputs
/// come from, which is its new `source`, and numbers in phrases are grouped in thousands,
/// `6,934`); fields are only added within a version.
pub const SCHEMA_VERSION: u32 = 4;

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Analysis {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    pub input: String,
    pub tool: String,
    pub suites: Vec<SuiteReport>,
    pub skipped: Vec<Skipped>,
    pub summary: Summary,
    /// Facts about the environment: the folder's manifest.json, then each suite's.
    pub environment: Vec<Fact>,
    /// The procedures' reference-setup tables beside what the files show.
    pub conformance: Vec<crate::why::conformance::Conformance>,
    /// The setup as the files show it (what the conformance tables and comparisons read).
    pub setup: crate::why::setup::Setup,
    /// When the run started (what `--by-time` orders by): from a collector's manifest,
    /// else from the earliest fio run's own JSON; see [`started`].
    pub started: Option<String>,
}

/// One analysis with what it was made from: the ingested input and the frames `--export`
/// writes. The model ([`Analysis`]) holds neither.
pub struct Run {
    pub analysis: Analysis,
    pub catalog: std::sync::Arc<Catalog>,
    /// The suites' derived frames, the verdicts and the deviations; the catalog's record
    /// frames are added by [`Run::with_record_frames`] when they are wanted (export).
    pub frames: Vec<Frame>,
    /// Frames that could not be built, and why.
    pub frame_problems: Vec<String>,
}

impl Run {
    /// Adds the catalog's record frames (fio groups, iostat, ladder requests, ...) before
    /// the suites' own: what `--export` writes.
    pub fn with_record_frames(&mut self) {
        let (mut records, problems) = records::frames(&self.catalog, &|item| {
            crate::suites::owner(item).map_or("", |s| s.name())
        });
        records.append(&mut self.frames);
        self.frames = records;
        self.frame_problems.extend(problems);
    }
}

/// How many verdicts have each status; keys are the status names (`not-measured`).
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct Summary {
    pub pass: usize,
    pub fail: usize,
    pub not_measured: usize,
    pub inconclusive: usize,
    pub not_comparable: usize,
}

impl Summary {
    /// `6 pass, 0 fail, 0 not measured, 0 inconclusive, 0 not comparable`.
    pub fn line(&self) -> String {
        format!(
            "{} pass, {} fail, {} not measured, {} inconclusive, {} not comparable",
            self.pass, self.fail, self.not_measured, self.inconclusive, self.not_comparable
        )
    }
}

/// Why an input could not be analyzed at all (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum Unusable {
    #[error("cannot read `{path}`: {cause}")]
    Unreadable { path: String, cause: std::io::Error },
    #[error("no results any suite can read in `{path}` ({files} files looked at{named}{skipped}); `reprobench suites` lists what each suite reads")]
    NothingFound {
        path: String,
        files: usize,
        /// The files looked at, by name and what each was taken for (the first few).
        named: String,
        skipped: String,
    },
}

pub fn analyze(input: &Path, opts: &Options) -> Result<Analysis, Unusable> {
    run(input, opts).map(|r| r.analysis)
}

/// [`analyze`] with another registry of suites (a test's toy suite, a subset).
pub fn analyze_with(
    input: &Path,
    opts: &Options,
    registry: &[&dyn Suite],
) -> Result<Analysis, Unusable> {
    run_with(input, opts, registry).map(|r| r.analysis)
}

/// The analysis with its catalog and frames (for `--export`).
/// Analyzes a folder, or a support bundle (`.tar.gz`) unpacked into a private folder.
pub fn run_input(input: &Path, opts: &Options) -> anyhow::Result<Run> {
    if crate::ingest::unpack::is_bundle(input) {
        let unpacked = crate::ingest::unpack::unpack(input)?;
        let mut r = run(&unpacked.results_dir(), opts)?;
        r.analysis.input = input.display().to_string();
        return Ok(r);
    }
    Ok(run(input, opts)?)
}

pub fn run(input: &Path, opts: &Options) -> Result<Run, Unusable> {
    run_with(input, opts, suites::SUITES)
}

pub fn run_with(input: &Path, opts: &Options, registry: &[&dyn Suite]) -> Result<Run, Unusable> {
    let t = Timer::start();
    let folder =
        crate::ingest::walk::Folder::scan(input).map_err(|cause| Unusable::Unreadable {
            path: input.display().to_string(),
            cause,
        })?;
    t.lap("walk");
    let formats: Vec<&crate::ingest::format::Format> =
        registry.iter().flat_map(|s| s.formats()).collect();
    let catalog = std::sync::Arc::new(Catalog::ingest_with(folder, &formats));
    t.lap("ingest (read, sniff, parse)");
    let judged = judge(input, &catalog, opts, registry);
    t.lap("suites");
    let (analysis, frames, frame_problems) = judged?;
    Ok(Run {
        analysis,
        catalog,
        frames,
        frame_problems,
    })
}

/// Stage times on stderr when `REPROBENCH_TIMING` is set: where a run's time goes.
pub struct Timer {
    on: bool,
    last: std::cell::Cell<std::time::Instant>,
}

/// When the process began its work (the first thing `main` does), for the timing lines'
/// "at" column: what the stages leave unaccounted is startup, serial work or exit.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

impl Timer {
    /// Marks the process's start; called once, first thing in `main`.
    pub fn mark_start() {
        STARTED.get_or_init(std::time::Instant::now);
    }

    pub fn start() -> Timer {
        Timer {
            on: std::env::var_os("REPROBENCH_TIMING").is_some(),
            last: std::cell::Cell::new(std::time::Instant::now()),
        }
    }

    pub fn lap(&self, what: &str) {
        if self.on {
            let now = std::time::Instant::now();
            let at = STARTED
                .get()
                .map(|s| format!(" (at {:.2} ms)", (now - *s).as_secs_f64() * 1000.0))
                .unwrap_or_default();
            crate::errln!(
                "timing: {what}: {:.2} ms{at}, resident {}",
                (now - self.last.get()).as_secs_f64() * 1000.0,
                resident()
            );
            self.last.set(now);
        }
    }
}

/// The process's resident memory and its peak (Linux `/proc/self/status`), for the
/// timing lines; "?" elsewhere.
fn resident() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    format!("{} (peak {})", field("VmRSS:"), field("VmHWM:"))
}

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
fn judge(
    input: &Path,
    catalog: &Catalog,
    opts: &Options,
    registry: &[&dyn Suite],
) -> Result<(Analysis, Vec<Frame>, Vec<String>), Unusable> {
    let mut skipped: Vec<Skipped> = catalog.problems.clone();
    // The suites read the catalog and nothing else: they run side by side, and their
    // reports and skipped files are gathered in registry order.
    type Judged = (SuiteReport, Vec<Skipped>, Vec<Frame>);
    let judged: Vec<Judged> = registry
        .par_iter()
        .filter(|suite| suite.detect(catalog))
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
    let setup = crate::why::setup::read(catalog);
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

fn summarize<'a>(verdicts: impl Iterator<Item = &'a Verdict>) -> Summary {
    let mut s = Summary::default();
    for v in verdicts {
        match v.status {
            Status::Pass => s.pass += 1,
            Status::Fail => s.fail += 1,
            Status::NotMeasured => s.not_measured += 1,
            Status::Inconclusive => s.inconclusive += 1,
            Status::NotComparable => s.not_comparable += 1,
        }
    }
    s
}

impl Analysis {
    /// What support asks for, from every suite found in the analysis (an item two suites of
    /// one procedure both ask for is listed once).
    pub fn checklist(&self, folder: &crate::ingest::walk::Folder) -> Vec<crate::checklist::Item> {
        let mut out: Vec<crate::checklist::Item> = Vec::new();
        for suite in crate::suites::SUITES {
            let Some(report) = self.suites.iter().find(|r| r.name == suite.name()) else {
                continue;
            };
            for i in suite.checklist(folder, &self.environment, report) {
                if !out
                    .iter()
                    .any(|o| o.procedure == i.procedure && o.what == i.what)
                {
                    out.push(i);
                }
            }
        }
        out
    }

    pub fn verdicts(&self) -> impl Iterator<Item = &Verdict> {
        self.suites.iter().flat_map(|s| &s.verdicts)
    }

    /// 0 every criterion passed, 1 one did not, 2 none was judged at all (no criterion,
    /// or every one not measured): a run where nothing was judged is not a pass.
    pub fn exit_code(&self) -> i32 {
        if self.nothing_judged().is_some() {
            return 2;
        }
        verdict::exit_code(self.verdicts())
    }

    /// Why no criterion was judged, when none was.
    pub fn nothing_judged(&self) -> Option<String> {
        let mut n = 0;
        for v in self.verdicts() {
            n += 1;
            if v.status != Status::NotMeasured {
                return None;
            }
        }
        let suites: Vec<&str> = self.suites.iter().map(|s| s.name).collect();
        Some(if n == 0 {
            format!(
                "no criterion was judged in `{}`: the {} suite found its kind of files but none it could judge (see Skipped)",
                self.input,
                suites.join(", ")
            )
        } else {
            format!(
                "no criterion was judged in `{}`: all {n} are not measured (the runs they need are missing)",
                self.input
            )
        })
    }
}

/// When the run started: the earliest `started` of the collectors' manifests, as an
/// instant (whatever offset each was written with), in UTC; one that is not an instant
/// is not a start time. A folder made by hand has no manifest: then the earliest fio
/// run's start, which its JSON gives (`timestamp`, when fio wrote the document, less the
/// run's longest direction `runtime`), in UTC; else unknown.
pub fn started(catalog: &Catalog) -> Option<String> {
    catalog
        .of(crate::ingest::Kind::Manifest)
        .filter_map(|i| i.json()?.get("started")?.as_str().map(str::to_string))
        .filter_map(|s| Some((crate::instant::instant(&s).ok()?, s)))
        .min()
        .and_then(|(_, s)| crate::instant::utc(&s))
        .or_else(|| fio_started(catalog))
}

/// 2005-01-01T00:00:00Z: no fio run started before it.
const FIO_EPOCH: i64 = 1_104_537_600;

/// The earliest start of the fio runs in the folder, in UTC, from their own JSON.
fn fio_started(catalog: &Catalog) -> Option<String> {
    let micros = catalog
        .of(crate::ingest::Kind::Fio)
        .filter_map(|i| match &i.record {
            Ok(crate::ingest::Record::Fio(out)) => {
                // fio 3 writes Unix seconds; anything before 2005 (fio's first
                // release) is no clock reading (0 in files made from published figures).
                let ended = out.output.timestamp.filter(|t| *t >= FIO_EPOCH)?;
                let ran_ms = out
                    .output
                    .jobs
                    .iter()
                    .flat_map(|j| [&j.read, &j.write, &j.trim])
                    .map(|d| d.runtime_ms)
                    .max()
                    .unwrap_or(0);
                let ran_ms = i64::try_from(ran_ms).ok()?;
                let start = ended
                    .checked_mul(1_000_000)?
                    .checked_sub(ran_ms.checked_mul(1_000)?)?;
                (start >= FIO_EPOCH * 1_000_000).then_some(start)
            }
            _ => None,
        })
        .min()?;
    let t = chrono::DateTime::from_timestamp_micros(micros)?;
    Some(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
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
