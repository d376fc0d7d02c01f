//! Why a number is what it is: how the setup differs from the procedure's reference setup
//! (conformance), what the hardware allows (physical limits beside the measurements), and
//! what to check next when a criterion is not met. Everything here is read from the
//! files or quoted from the procedures; a cell the files do not give is `unknown`, with
//! the file that would give it.

pub mod conformance;

pub mod next_steps;
pub mod setup;

use serde::Serialize;

/// A bound the hardware puts on a measurement, computed from the files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limit {
    pub suite: String,
    /// What is bounded: `restore time (adp)`, `raid10/write-1m-j8-d4`.
    pub subject: String,
    /// The measurement, as its numbers are shown.
    pub measured: crate::phrase::Phrase,
    pub measured_value: Option<f64>,
    /// The bound, as its numbers are shown, or `unknown: <what would give it>`.
    pub bound: crate::phrase::Phrase,
    pub bound_value: Option<f64>,
    pub unit: crate::phrase::UnitOf,
    /// How the bound was computed, with the inputs' values.
    pub formula: String,
    /// What the two together say.
    pub reading: String,
    /// Files the inputs came from.
    pub files: Vec<String>,
}

pub use crate::verdict::NextStep;

/// `12.3 GB` from bytes, decimal units as the procedures use.
pub fn gb(bytes: f64) -> String {
    if bytes >= 1e12 {
        format!("{:.2} TB", bytes / 1e12)
    } else if bytes >= 1e9 {
        format!("{:.1} GB", bytes / 1e9)
    } else {
        format!("{:.0} MB", bytes / 1e6)
    }
}
