//! The analysis's judgements as frames: one row per verdict (with its numbers), one per
//! deviation from the procedure.

use crate::model::report::SuiteReport;

use super::{Frame, FrameBuilder};

pub fn verdicts(suites: &[SuiteReport]) -> anyhow::Result<Frame> {
    let rows: Vec<(&str, &crate::model::verdict::Verdict)> = suites
        .iter()
        .flat_map(|s| s.verdicts.iter().map(move |v| (s.name, v)))
        .collect();
    let status = |v: &crate::model::verdict::Verdict| {
        serde_json::to_value(v.status)
            .ok()
            .and_then(|s| s.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    FrameBuilder::new("verdicts")
        .str("suite", rows.iter().map(|r| r.0))
        .str("id", rows.iter().map(|r| r.1.id.as_str()))
        .str("criterion", rows.iter().map(|r| r.1.criterion.as_str()))
        .str("status", rows.iter().map(|r| status(r.1)))
        .f64("measured_value", rows.iter().map(|r| r.1.measured_value))
        .f64("threshold_value", rows.iter().map(|r| r.1.threshold_value))
        .f64("published_value", rows.iter().map(|r| r.1.published_value))
        .str("unit", rows.iter().map(|r| r.1.unit.to_string()))
        .str("measured", rows.iter().map(|r| r.1.measured.to_string()))
        .str("threshold", rows.iter().map(|r| r.1.threshold.to_string()))
        .str("published", rows.iter().map(|r| r.1.published.to_string()))
        .str("files", rows.iter().map(|r| r.1.files.join(";")))
        .str("note", rows.iter().map(|r| r.1.note.to_string()))
        .build()
}

pub fn deviations(suites: &[SuiteReport]) -> anyhow::Result<Frame> {
    let rows: Vec<(&str, &crate::model::deviation::Deviation)> = suites
        .iter()
        .flat_map(|s| s.deviations.iter().map(move |d| (s.name, d)))
        .collect();
    FrameBuilder::new("deviations")
        .str("suite", rows.iter().map(|r| r.0))
        .str("parameter", rows.iter().map(|r| r.1.parameter.as_str()))
        .str("procedure", rows.iter().map(|r| r.1.procedure.to_string()))
        .str("ran", rows.iter().map(|r| r.1.ran.to_string()))
        .str("unit", rows.iter().map(|r| r.1.unit.to_string()))
        .bool(
            "changes_comparison",
            rows.iter().map(|r| r.1.changes_comparison),
        )
        .str("subjects", rows.iter().map(|r| r.1.subjects.join(";")))
        .str("files", rows.iter().map(|r| r.1.files.join(";")))
        .str("evidence", rows.iter().map(|r| r.1.evidence.join(";")))
        .str("verdicts", rows.iter().map(|r| r.1.verdicts.join(";")))
        .str("effect", rows.iter().map(|r| r.1.effect.as_str()))
        .str("source", rows.iter().map(|r| r.1.source.as_str()))
        .build()
}
