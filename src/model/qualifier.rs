//! Whether a run reached the condition its verdicts are about, typed: the regime a KV
//! ladder level ran in, a job's steady state. A qualifier stands beside the verdicts it
//! qualifies (by id) with its number, what the procedure or the rule expects, and the
//! files it came from; `--format json` carries them on each suite.

use serde::Serialize;

use crate::model::measurement::Unit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum What {
    /// A ladder level's active histories against the KV cache.
    Regime,
    /// A job's per-second series over its window (the SNIA rule).
    SteadyState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Met,
    NotMet,
    /// The files do not say (no series, no cache size, too few samples).
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Qualifier {
    pub what: What,
    /// `gpu-only · 16 clients`, `raid10/randwrite-8k-j8-d8`.
    pub subject: String,
    /// The number judged: the mean active history as a multiple of the cache; the
    /// window's range over its mean.
    pub value: Option<f64>,
    /// A second number beside it: the peak multiple; the fitted line's excursion.
    pub second: Option<f64>,
    pub unit: Unit,
    /// What is expected: the procedure's multiple; the rule's limit on the range.
    pub expected: Option<f64>,
    pub outcome: Outcome,
    /// The verdicts it qualifies.
    pub verdicts: Vec<String>,
    pub files: Vec<String>,
}
