//! A bound the hardware puts on a measurement, shown beside it.

use serde::Serialize;

/// A bound the hardware puts on a measurement, computed from the files.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Limit {
    pub suite: String,
    /// What is bounded: `restore time (adp)`, `raid10/write-1m-j8-d4`.
    pub subject: String,
    /// The measurement, as its numbers are shown.
    pub measured: crate::model::phrase::Phrase,
    pub measured_value: Option<f64>,
    /// The bound, as its numbers are shown, or `unknown: <what would give it>`.
    pub bound: crate::model::phrase::Phrase,
    pub bound_value: Option<f64>,
    pub unit: crate::model::phrase::UnitOf,
    /// How the bound was computed, with the inputs' values.
    pub formula: String,
    /// Where the bound's inputs come from, when it is not in the bound itself (`md126` in
    /// `results/system/mdstat.txt`, line 2): the same for many limits, and said once for
    /// all of them where the limits are shown.
    pub source: String,
    /// How the run the limit is read from deviates from the procedure (`runtime 4 s
    /// (procedure: 60 s)`); empty when it does not.
    pub deviates: String,
    /// What the two together say.
    pub reading: String,
    /// Files the inputs came from.
    pub files: Vec<String>,
}
