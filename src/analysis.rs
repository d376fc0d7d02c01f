//! One analysis of one input: the folder, the suites found in it, their reports, and
//! every file that was skipped. This is the model every renderer reads.

use std::path::Path;

use serde::Serialize;

use crate::frames::{records, Frame};
use crate::ingest::walk::Skipped;
use crate::ingest::Catalog;
use crate::model::verdict::{self, Status, Verdict};
use crate::suites::{self, Fact, Options, Suite, SuiteReport};

mod judge;
mod start_time;
mod summary;
mod timer;

pub use judge::analyze_catalog;
pub use start_time::started;
pub use summary::Summary;
pub use timer::Timer;

use judge::judge;

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
