//! The summary of an analysis: how many verdicts have each status.

use serde::Serialize;

use crate::model::verdict::{Status, Verdict};

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

pub(super) fn summarize<'a>(verdicts: impl Iterator<Item = &'a Verdict>) -> Summary {
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
