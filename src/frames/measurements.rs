//! The suites' typed measurements and parameters as frames: one row per number the files
//! give (with its unit, better direction and noise) and one per parameter a run or a
//! server ran with. Built from the result model, never from the catalog.

use crate::model::measurement::{ParamValue, Scope};
use crate::model::report::SuiteReport;

use super::{Frame, FrameBuilder};

/// The name a serde enum writes (`higher`, `MB/s`, `server`).
fn serialized(v: impl serde::Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|s| s.as_str().map(str::to_string))
        .unwrap_or_default()
}

pub fn measurements(suites: &[SuiteReport]) -> anyhow::Result<Frame> {
    let rows: Vec<&crate::model::measurement::Measurement> =
        suites.iter().flat_map(|s| &s.measurements).collect();
    FrameBuilder::new("measurements")
        .str("suite", rows.iter().map(|m| m.key.suite.as_str()))
        .str("subject", rows.iter().map(|m| m.key.subject.as_str()))
        .str("metric", rows.iter().map(|m| m.key.metric.as_str()))
        .f64("value", rows.iter().map(|m| Some(m.value)))
        .str("unit", rows.iter().map(|m| m.unit.symbol()))
        .str("better", rows.iter().map(|m| serialized(m.better)))
        .f64(
            "noise",
            rows.iter().map(|m| m.noise.as_ref().map(|n| n.relative)),
        )
        .str(
            "noise_source",
            rows.iter()
                .map(|m| m.noise.as_ref().map_or("", |n| n.source.as_str())),
        )
        .str("files", rows.iter().map(|m| m.files.join(";")))
        .f64(
            "standard_error",
            rows.iter()
                .map(|m| m.noise.as_ref().and_then(|n| n.standard_error)),
        )
        .build()
}

pub fn parameters(suites: &[SuiteReport]) -> anyhow::Result<Frame> {
    let rows: Vec<(&str, &crate::model::measurement::Parameter)> = suites
        .iter()
        .flat_map(|s| s.parameters.iter().map(move |p| (s.name, p)))
        .collect();
    let number = |p: &crate::model::measurement::Parameter| match &p.value {
        ParamValue::Number(n) => Some(*n),
        ParamValue::Text(_) => None,
    };
    let text = |p: &crate::model::measurement::Parameter| match &p.value {
        ParamValue::Number(_) => String::new(),
        ParamValue::Text(t) => t.clone(),
    };
    FrameBuilder::new("parameters")
        .str("suite", rows.iter().map(|r| r.0))
        .str("subject", rows.iter().map(|r| r.1.subject.as_str()))
        .str("name", rows.iter().map(|r| r.1.name.as_str()))
        .f64("number", rows.iter().map(|r| number(r.1)))
        .str("text", rows.iter().map(|r| text(r.1)))
        .str(
            "unit",
            rows.iter().map(|r| r.1.unit.map_or("", |u| u.symbol())),
        )
        .str(
            "scope",
            rows.iter().map(|r| match r.1.scope {
                Scope::Run => "run",
                Scope::Server => "server",
            }),
        )
        .str("file", rows.iter().map(|r| r.1.file.as_str()))
        .build()
}
