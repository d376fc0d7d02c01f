//! What one suite made of a folder, as every output reads it: its verdicts, tables,
//! charts, facts, deviations, limits and measurements. Filled by a suite
//! ([`crate::suites`]), read by the frames, the renderers, the datasets and compare.

use serde::Serialize;

use crate::model::chart::Chart;
use crate::model::deviation::Deviation;
use crate::model::verdict::{Observation, Verdict};

/// A table of display strings, rendered the same way by every output format.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Table {
    pub title: String,
    pub columns: Vec<String>,
    /// Cells as phrases: their numbers stay typed until a renderer writes them.
    pub rows: Vec<Vec<crate::model::phrase::Phrase>>,
    /// Read under the table: what the numbers mean or where they differ from a script.
    pub notes: Vec<String>,
}

/// What one suite made of a folder.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SuiteReport {
    pub name: &'static str,
    pub title: &'static str,
    pub procedure: &'static str,
    /// Files the suite read, relative to the folder.
    pub files_read: Vec<String>,
    pub verdicts: Vec<Verdict>,
    pub observations: Vec<Observation>,
    pub tables: Vec<Table>,
    /// Text blocks shown as they are (the procedure script's own table).
    pub preformatted: Vec<Preformatted>,
    pub notes: Vec<String>,
    /// What to plot; drawn as SVG into both reports.
    pub charts: Vec<Chart>,
    /// Environment facts read from the files (tool versions, startup lines, devices).
    pub facts: Vec<Fact>,
    /// The procedure's commands that produce this suite's files.
    pub reproduce: Vec<String>,
    /// The commands that actually ran, rebuilt from the files.
    pub commands_ran: Vec<RanCommand>,
    /// Where the runs depart from the procedure, and what that does to the comparison.
    pub deviations: Vec<Deviation>,
    /// Bounds the hardware puts on the measurements, computed from the files.
    pub limits: Vec<crate::model::limit::Limit>,
    /// Every number the suite measured, typed and keyed: what compare, trend and the
    /// exports read.
    pub measurements: Vec<crate::model::measurement::Measurement>,
    /// What each run ran with, as its files record it.
    pub parameters: Vec<crate::model::measurement::Parameter>,
    /// Whether the runs reached the conditions the verdicts are about (regime, steady
    /// state), typed.
    pub qualifiers: Vec<crate::model::qualifier::Qualifier>,
}

/// One fact about the environment, and the file it was read from.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Fact {
    pub name: String,
    pub value: String,
    pub source: String,
}

impl Fact {
    pub fn new(
        name: impl Into<String>,
        value: impl Into<String>,
        source: impl Into<String>,
    ) -> Fact {
        Fact {
            name: name.into(),
            value: value.into(),
            source: source.into(),
        }
    }
}

/// One command as it ran, rebuilt from what a results file records.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RanCommand {
    /// What ran: `adp/randrw-8k-j128-d8`, `adp-1-L8`.
    pub subject: String,
    pub command: String,
    /// The file it was rebuilt from.
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Preformatted {
    pub title: String,
    pub text: String,
    pub notes: Vec<String>,
}
