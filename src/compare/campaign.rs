//! What compare and trend read of one campaign: its measurements, its verdicts' numbers
//! and statuses, its setup facts and its parameters. Made from an analysis, or read back
//! from a result dataset (`crate::dataset::read`): the same numbers either way.

use crate::analysis::Analysis;
use crate::model::measurement::Parameter;
use crate::model::verdict::Status;
use crate::why::setup::Setup;

use super::measure::{self, Sample};

/// One verdict as compare and trend show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub id: String,
    pub criterion: String,
    /// The unit of its number, as written (`s`, `x of the GPU-only TTFT`).
    pub unit: String,
    pub measured_value: Option<f64>,
    /// The status as the terminal writes it (`pass`, `FAIL`, `not measured`).
    pub status: String,
}

#[derive(Debug, Clone)]
pub struct Campaign {
    /// The folder or bundle, or `dataset:<campaign id>`.
    pub input: String,
    /// When the run started, from a collector's manifest.
    pub started: Option<String>,
    pub samples: Vec<Sample>,
    pub verdicts: Vec<Judged>,
    pub setup: Setup,
    pub parameters: Vec<Parameter>,
}

impl Campaign {
    /// As an analysis exits: 0 every criterion passed, 1 one did not, 2 nothing was
    /// judged (no criterion, or every one not measured).
    pub fn exit_code(&self) -> i32 {
        if self
            .verdicts
            .iter()
            .all(|v| v.status == Status::NotMeasured.label())
        {
            2
        } else {
            i32::from(
                self.verdicts
                    .iter()
                    .any(|v| v.status != Status::Pass.label()),
            )
        }
    }
}

impl From<&Analysis> for Campaign {
    fn from(a: &Analysis) -> Campaign {
        Campaign {
            input: a.input.clone(),
            started: a.started.clone(),
            samples: measure::samples(a),
            verdicts: a
                .verdicts()
                .map(|v| Judged {
                    id: v.id.clone(),
                    criterion: v.criterion.clone(),
                    unit: v.unit.to_string(),
                    measured_value: v.measured_value,
                    status: v.status.label().to_string(),
                })
                .collect(),
            setup: a.setup.clone(),
            parameters: a
                .suites
                .iter()
                .flat_map(|s| s.parameters.iter().cloned())
                .collect(),
        }
    }
}

/// The views of several analyses.
pub fn of(analyses: &[Analysis]) -> Vec<Campaign> {
    analyses.iter().map(Campaign::from).collect()
}
