//! One analysis of one input: the folder, the suites found in it, their reports, and
//! every file that was skipped. This is the model every renderer reads.

use std::path::Path;

use serde::Serialize;

use crate::folder::{Folder, Skipped};
use crate::suites::{self, Fact, Options, SuiteReport};
use crate::verdict::{self, Status, Verdict};

#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub input: String,
    pub tool: String,
    pub suites: Vec<SuiteReport>,
    pub skipped: Vec<Skipped>,
    pub summary: Summary,
    /// Facts about the environment: the folder's manifest.json, then each suite's.
    pub environment: Vec<Fact>,
}

#[derive(Debug, Clone, Default, Serialize)]
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
    #[error("cannot read `{path}`: {source}")]
    Unreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("no results any suite can read in `{path}` ({files} files looked at{skipped}); `reprobench suites` lists what each suite reads")]
    NothingFound {
        path: String,
        files: usize,
        skipped: String,
    },
}

pub fn analyze(input: &Path, opts: &Options) -> Result<Analysis, Unusable> {
    let folder = Folder::scan(input).map_err(|source| Unusable::Unreadable {
        path: input.display().to_string(),
        source,
    })?;
    let mut skipped: Vec<Skipped> = folder.problems.clone();
    let mut reports = Vec::new();
    for suite in suites::SUITES {
        if suite.detect(&folder) {
            reports.push(suite.analyze(&folder, opts, &mut skipped));
        }
    }
    if reports.is_empty() {
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
        return Err(Unusable::NothingFound {
            path: input.display().to_string(),
            files: folder.files.len(),
            skipped,
        });
    }
    for r in &mut reports {
        r.charts = std::mem::take(&mut r.charts)
            .into_iter()
            .map(|mut c| {
                c.series.retain(|s| s.values.iter().any(Option::is_some));
                c
            })
            .filter(crate::chart::Chart::has_data)
            .flat_map(crate::chart::Chart::split)
            .collect();
    }
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    skipped.dedup();
    let summary = summarize(reports.iter().flat_map(|r| &r.verdicts));
    let mut environment = manifest_facts(&folder);
    for f in reports.iter().flat_map(|r| &r.facts) {
        if !environment
            .iter()
            .any(|e| e.name == f.name && e.value == f.value)
        {
            environment.push(f.clone());
        }
    }
    Ok(Analysis {
        environment,
        input: input.display().to_string(),
        tool: format!("reprobench {}", env!("CARGO_PKG_VERSION")),
        suites: reports,
        skipped,
        summary,
    })
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
    pub fn verdicts(&self) -> impl Iterator<Item = &Verdict> {
        self.suites.iter().flat_map(|s| &s.verdicts)
    }

    pub fn exit_code(&self) -> i32 {
        verdict::exit_code(self.verdicts())
    }
}

/// Scalar entries of a top-level `manifest.json` (what a collector recorded).
fn manifest_facts(folder: &Folder) -> Vec<Fact> {
    let Some(e) = folder.files.iter().find(|e| e.rel == "manifest.json") else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(&e.path) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(&text)
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
