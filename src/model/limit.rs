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
    /// What the two together say.
    pub reading: String,
    /// Files the inputs came from.
    pub files: Vec<String>,
}
