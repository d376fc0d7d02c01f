//! The measurements of an analysis as compare and trend pool them: each suite's typed
//! measurements, with the input they came from. Keyed by suite, subject (array and job
//! shape, variant and level) and metric so that the two sides of a comparison (or the
//! inputs of a trend) match.

use serde::Serialize;

use crate::analysis::Analysis;
pub use crate::model::measurement::Better;

/// One number of one input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    pub suite: String,
    /// What was measured: `raid10 · randwrite 8k × 8 jobs × QD 8`, `adp · 16 clients`.
    pub subject: String,
    pub metric: String,
    pub unit: String,
    pub better: Better,
    pub value: f64,
    /// Relative noise of this one number, when its own file gives it (fio's bandwidth
    /// stddev; the spread of repeated requests), with what it is.
    pub noise: Option<(f64, String)>,
    /// The standard error of this one number within its run, relative, where its file
    /// gives one (fio's bandwidth samples).
    pub standard_error: Option<f64>,
    pub input: String,
    pub file: String,
}

/// Every measurement the analysis' suites made.
pub fn samples(a: &Analysis) -> Vec<Sample> {
    a.suites
        .iter()
        .flat_map(|r| &r.measurements)
        .map(|m| Sample {
            suite: m.key.suite.clone(),
            subject: m.key.subject.clone(),
            metric: m.key.metric.clone(),
            unit: m.unit.symbol().to_string(),
            better: m.better,
            value: m.value,
            noise: m.noise.as_ref().map(|n| (n.relative, n.source.clone())),
            standard_error: m.noise.as_ref().and_then(|n| n.standard_error),
            input: a.input.clone(),
            file: m.files.first().cloned().unwrap_or_default(),
        })
        .collect()
}
