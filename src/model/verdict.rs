//! The verdict model every suite shares: pass, fail, not measured, inconclusive, not
//! comparable.

use std::fmt;

use serde::Serialize;

use crate::model::phrase::{Phrase, UnitOf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    Fail,
    NotMeasured,
    Inconclusive,
    /// The run deviates from the procedure in a way that changes the comparison: judging
    /// it as if it had not would mislead.
    NotComparable,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Pass,
        Status::Fail,
        Status::NotMeasured,
        Status::Inconclusive,
        Status::NotComparable,
    ];

    /// The status a serialized name (`not-measured`) stands for.
    pub fn from_name(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| {
            serde_json::to_value(s)
                .ok()
                .is_some_and(|v| v.as_str() == Some(name))
        })
    }

    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::NotMeasured => "not measured",
            Status::Inconclusive => "inconclusive",
            Status::NotComparable => "not comparable",
        }
    }

    /// The order a reader wants statuses in: failures first, then what could not be
    /// judged, passes last (the summaries sort by it).
    pub fn urgency(self) -> u8 {
        match self {
            Status::Fail => 0,
            Status::NotComparable => 1,
            Status::Inconclusive => 2,
            Status::NotMeasured => 3,
            Status::Pass => 4,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One judged criterion, with everything needed to check the judgement by hand.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Verdict {
    /// Stable identifier, e.g. `storage.randwrite-8k-qd64`.
    pub id: String,
    /// The criterion as the procedure states it.
    pub criterion: String,
    pub status: Status,
    /// What was measured, as its numbers are shown, or `-`.
    pub measured: Phrase,
    pub threshold: Phrase,
    pub published: Phrase,
    /// Results files the verdict was computed from, relative to the input folder.
    pub files: Vec<String>,
    /// Why the status is what it is, when that is not obvious from the numbers.
    pub note: Phrase,
    /// The measured number behind `measured`, in `unit`; none when nothing was measured.
    pub measured_value: Option<f64>,
    /// The threshold's number, in `unit`.
    pub threshold_value: Option<f64>,
    /// The published number, in `unit`, when the procedure publishes one.
    pub published_value: Option<f64>,
    /// The unit of the three numbers: `x` (a ratio), `%`, `s`, `tok/s`, `requests`, ...
    pub unit: UnitOf,
    /// For a fail, inconclusive or not-comparable verdict: what to check next, each with
    /// the procedure text it is drawn from.
    pub check_next: Vec<NextStep>,
    /// The measurements the verdict judged, by key (see `measurements` on the suites).
    pub measurements: Vec<crate::model::measurement::Key>,
    /// The 95% confidence interval of `measured_value`, where the runs give one; the
    /// status follows it (pass when all of it meets the threshold, fail when none does,
    /// inconclusive when it straddles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// The 95% confidence interval of `threshold_value` where the threshold is itself
    /// measured (test 1's limit is a fifth of the recomputes' median); the status follows
    /// it (pass when the measurement meets all of it, fail when it meets none of it,
    /// inconclusive in between).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold_interval: Option<Interval>,
    /// Whether the measurement reproduces the published number (see [`Reproduction`]),
    /// where both are numbers in the same unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<Reproduction>,
}

/// The published number held against what was measured: **reproduced** when the whole
/// 95% interval lies within the tolerance around it, **not reproduced** when none of it
/// does, **inconclusive** when it straddles an edge of the band. Without an interval the
/// point alone is held against the band (`basis` says which). A verdict that is not
/// comparable is not comparable to the published number either; shares in % and verdicts
/// not judged on their number get none.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Reproduction {
    pub status: Reproduced,
    /// The band's half-width relative to the published number (0.10 = within 10%).
    pub tolerance: f64,
    /// The published number's band, in the verdict's unit.
    pub low: f64,
    pub high: f64,
    /// What was held against the band: `95% interval over the runs`, `95% interval from
    /// within one run a side` or `one point, no interval`.
    pub basis: String,
    /// The words the reports show: `reproduced: within ±10% of the published (95% interval)`.
    pub label: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Reproduced {
    Reproduced,
    NotReproduced,
    Inconclusive,
    NotComparable,
}

/// How close a measurement must come to a published number to reproduce it. The
/// procedures state no tolerance for their published figures; this is the margin they
/// use for parity ("within 10% of plain vLLM", "within 10% of RAID10 or faster"),
/// applied to the published figures by reprobench (docs/analyze.md).
pub const PUBLISHED_TOLERANCE: f64 = 0.10;

impl Reproduction {
    /// The published number against the verdict's measurement, or None when either is
    /// missing or the published number is not positive.
    pub fn of(v: &Verdict) -> Option<Reproduction> {
        let p = v.published_value.filter(|p| p.is_finite() && *p > 0.0)?;
        let x = v.measured_value?;
        // A share bounded by 100% (a cached share published at 99.97%) has no room for a
        // relative band: 90% would be "within 10%". Its threshold judges it alone.
        if v.unit.unit == Some(crate::model::measurement::Unit::Percent) {
            return None;
        }
        // Only a measurement that was judged: not a run that is not a result, nor a
        // point left inconclusive for another reason.
        let judged = matches!(
            v.status,
            Status::Pass | Status::Fail | Status::NotComparable
        ) || (v.status == Status::Inconclusive && v.interval.is_some());
        if !judged {
            return None;
        }
        let tol = PUBLISHED_TOLERANCE;
        let (low, high) = (p * (1.0 - tol), p * (1.0 + tol));
        let (lo, hi, basis) = match &v.interval {
            Some(i) if i.runs.iter().all(|n| *n <= 1) => {
                (i.low, i.high, "95% interval from within one run a side")
            }
            Some(i) => (i.low, i.high, "95% interval over the runs"),
            None => (x, x, "one point, no interval"),
        };
        let status = if v.status == Status::NotComparable {
            Reproduced::NotComparable
        } else if lo >= low && hi <= high {
            Reproduced::Reproduced
        } else if hi < low || lo > high {
            Reproduced::NotReproduced
        } else {
            Reproduced::Inconclusive
        };
        let pct = format!("±{:.0}%", tol * 100.0);
        let label = match status {
            Reproduced::Reproduced => {
                format!("reproduced: within {pct} of the published ({basis})")
            }
            Reproduced::NotReproduced => format!(
                "not reproduced: {:.2} times the published, {} than {pct} ({basis})",
                x / p,
                if lo > high { "more" } else { "less" },
            ),
            Reproduced::Inconclusive => {
                format!("inconclusive: the {basis} straddles the {pct} band around the published")
            }
            Reproduced::NotComparable => {
                "not comparable: the run deviates (see the verdict)".to_string()
            }
        };
        Some(Reproduction {
            status,
            tolerance: tol,
            low,
            high,
            basis: basis.to_string(),
            label,
        })
    }
}

/// A 95% confidence interval of a verdict's number, and how it was had.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    /// The confidence level (0.95).
    pub level: f64,
    /// The method, named as the report names it.
    pub method: String,
    /// The runs behind it: baseline then candidate.
    pub runs: Vec<usize>,
    /// Whether a side's runs are more than tenfold apart ([`crate::stats::ratio::apart`]):
    /// they do not measure one thing, and more runs would dilute the odd one, not explain
    /// it (`collect --until-settled` stops there). Left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub apart: bool,
}

impl Verdict {
    /// Sets the numbers behind the display strings.
    pub fn with_numbers(
        mut self,
        measured: Option<f64>,
        threshold: Option<f64>,
        published: Option<f64>,
        unit: UnitOf,
    ) -> Verdict {
        self.measured_value = measured.filter(|v| v.is_finite());
        self.threshold_value = threshold.filter(|v| v.is_finite());
        self.published_value = published.filter(|v| v.is_finite());
        self.unit = unit;
        self
    }

    /// Records the measurements the verdict judged: those of `metrics` that came from
    /// one of its files, in the order measured, each once. A verdict that measured
    /// nothing judged none.
    pub fn judging(
        &mut self,
        measurements: &[crate::model::measurement::Measurement],
        metrics: &[&str],
    ) {
        self.measurements.clear();
        if self.measured_value.is_none() {
            return;
        }
        for m in measurements {
            if metrics.contains(&m.key.metric.as_str())
                && m.files.iter().any(|f| self.files.contains(f))
                && !self.measurements.contains(&m.key)
            {
                self.measurements.push(m.key.clone());
            }
        }
    }

    /// Sets the measured number (in the unit already set).
    pub fn set_measured(&mut self, value: Option<f64>) {
        self.measured_value = value.filter(|v| v.is_finite());
    }

    /// A criterion not measured yet: the suite fills in what it finds.
    pub fn new(
        id: impl Into<String>,
        criterion: impl Into<String>,
        threshold: impl Into<Phrase>,
        published: impl Into<Phrase>,
    ) -> Verdict {
        Verdict {
            id: id.into(),
            criterion: criterion.into(),
            status: Status::NotMeasured,
            measured: Phrase::dash(),
            threshold: threshold.into(),
            published: published.into(),
            files: Vec::new(),
            note: Phrase::default(),
            measured_value: None,
            threshold_value: None,
            published_value: None,
            unit: UnitOf::default(),
            check_next: Vec::new(),
            measurements: Vec::new(),
            interval: None,
            threshold_interval: None,
            reproduction: None,
        }
    }
}

/// One thing to check next for a verdict that is not a pass, and where the advice comes
/// from (the procedure's section, or the rule's reasoning).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct NextStep {
    pub text: String,
    pub source: String,
}

/// A number the procedure asks to look at without a pass mark.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Observation {
    pub id: String,
    pub what: String,
    pub measured: Phrase,
    pub published: Phrase,
    pub files: Vec<String>,
    pub note: String,
}

/// The process exit code for a set of verdicts: 0 when every one passes, 1 otherwise.
pub fn exit_code<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> i32 {
    if verdicts.into_iter().all(|v| v.status == Status::Pass) {
        0
    } else {
        1
    }
}

#[cfg(test)]
mod tests;
