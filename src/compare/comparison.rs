//! What a comparison holds: each side's pooled value, the matched rows with their
//! verdicts, the unmatched measurements, the criteria of both sides and the counts.

use serde::Serialize;

// `judge` is named by a doc link of `Row`.
#[allow(unused_imports)]
use super::judge;
use super::judge::Change;
use super::measure::Better;
use super::setup_diff;

/// A side's pooled value for one key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pooled {
    /// The geometric mean of the runs' values (their median where one is not positive).
    pub value: f64,
    /// Each run's value, in the order the inputs were given.
    pub values: Vec<f64>,
    pub runs: usize,
    /// Relative noise, and where it comes from.
    pub noise: Option<f64>,
    pub noise_from: String,
    /// The one run's standard error within its run, relative, where its files give one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
    pub files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub suite: String,
    pub subject: String,
    pub metric: String,
    pub unit: String,
    pub better: Better,
    pub base: Pooled,
    pub new: Pooled,
    pub delta: f64,
    /// None when the base is 0.
    pub delta_pct: Option<f64>,
    /// The larger side's noise, in percent, when either side gives one.
    pub noise_pct: Option<f64>,
    /// The 95% confidence interval of the change, in percent of the base, when the files
    /// give one (see [`judge`]).
    pub interval_pct: Option<[f64; 2]>,
    /// How the interval was computed, or why there is none.
    pub method: String,
    pub change: Change,
    /// Why the change counts or does not: the change against the threshold, then, each
    /// after `; `, what else the runs say (runs far apart, a run at 0 of a rate, ranks
    /// that disagree, how many runs would settle it).
    pub why: String,
    /// Mann-Whitney's U test over the runs (both sides with two or more runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_test: Option<RankTestRow>,
}

/// Mann-Whitney's U test of a row, as `--format json` carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankTestRow {
    pub name: &'static str,
    /// U of the base runs against the new ones.
    pub u: f64,
    pub p: f64,
    /// The smallest p these numbers of runs can give: under 0.05 or the test cannot decide.
    pub smallest_p: f64,
    pub base_runs: usize,
    pub new_runs: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    pub side: String,
    pub suite: String,
    pub subject: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub files: Vec<String>,
}

/// One criterion's status on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriterionPair {
    pub id: String,
    pub criterion: String,
    pub base: String,
    pub new: String,
    pub changed: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub better: usize,
    pub worse: usize,
    pub no_change: usize,
    pub inconclusive: usize,
    pub unmatched: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub tool: String,
    pub base: Vec<String>,
    pub new: Vec<String>,
    pub threshold_pct: f64,
    pub setup: Vec<setup_diff::SetupDiff>,
    pub criteria: Vec<CriterionPair>,
    pub rows: Vec<Row>,
    pub unmatched: Vec<Unmatched>,
    pub summary: Summary,
    /// Plots for the Markdown and PDF reports.
    #[serde(skip)]
    pub charts: Vec<crate::model::chart::Chart>,
}

impl Comparison {
    /// 1 when any metric is worse beyond the threshold and the noise, else 0.
    /// 1 when a metric is worse or a criterion that passes in the base does not in the
    /// new (a gate must stop a run whose criteria went from pass to FAIL, whatever its
    /// numbers say); else 0.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.summary.worse > 0 || !self.no_longer_passing().is_empty())
    }

    /// The criteria that pass in the base and not in the new.
    pub fn no_longer_passing(&self) -> Vec<&CriterionPair> {
        self.criteria
            .iter()
            .filter(|c| c.base == "pass" && c.new != "pass")
            .collect()
    }

    pub fn summary_line(&self) -> String {
        let criteria = match self.no_longer_passing().len() {
            0 => String::new(),
            n => format!("; {n} criteria that pass in the base do not in the new"),
        };
        format!(
            "{} better, {} worse, {} no change, {} inconclusive, {} unmatched (threshold {}%, judged on 95% intervals where the files give one){criteria}",
            self.summary.better,
            self.summary.worse,
            self.summary.no_change,
            self.summary.inconclusive,
            self.summary.unmatched,
            self.threshold_pct
        )
    }
}
