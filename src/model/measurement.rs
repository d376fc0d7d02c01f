//! A measurement: one number the files give, keyed by suite, subject and metric, with its
//! unit, the direction that is better, its noise (and where the noise figure comes from)
//! and the files it came from. Suites make them from their own typed records; compare,
//! trend and the exports read them, and no consumer needs to know a suite to do so.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Better {
    Higher,
    Lower,
}

/// The unit a measurement is in. Bandwidths are decimal (fio's MB/s, the procedures'
/// tables) unless they say MiB/s; conversions live in [`crate::model::units`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Unit {
    #[serde(rename = "MB/s")]
    MegabytesPerSecond,
    #[serde(rename = "MiB/s")]
    MebibytesPerSecond,
    #[serde(rename = "GB/s")]
    GigabytesPerSecond,
    #[serde(rename = "IO/s")]
    Iops,
    #[serde(rename = "µs")]
    Microseconds,
    #[serde(rename = "ms")]
    Milliseconds,
    #[serde(rename = "s")]
    Seconds,
    #[serde(rename = "tok/s")]
    TokensPerSecond,
    #[serde(rename = "tokens")]
    Tokens,
    #[serde(rename = "%")]
    Percent,
    #[serde(rename = "x")]
    Ratio,
    #[serde(rename = "KiB")]
    Kibibytes,
}

impl Unit {
    pub const ALL: [Unit; 12] = [
        Unit::MegabytesPerSecond,
        Unit::MebibytesPerSecond,
        Unit::GigabytesPerSecond,
        Unit::Iops,
        Unit::Microseconds,
        Unit::Milliseconds,
        Unit::Seconds,
        Unit::TokensPerSecond,
        Unit::Tokens,
        Unit::Percent,
        Unit::Ratio,
        Unit::Kibibytes,
    ];

    /// The unit a symbol names (what [`Unit::symbol`] writes), read back from a dataset.
    pub fn from_symbol(s: &str) -> Option<Unit> {
        Unit::ALL.into_iter().find(|u| u.symbol() == s)
    }

    /// How the unit is written after a number.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::MegabytesPerSecond => "MB/s",
            Unit::MebibytesPerSecond => "MiB/s",
            Unit::GigabytesPerSecond => "GB/s",
            Unit::Iops => "IO/s",
            Unit::Microseconds => "µs",
            Unit::Milliseconds => "ms",
            Unit::Seconds => "s",
            Unit::TokensPerSecond => "tok/s",
            Unit::Tokens => "tokens",
            Unit::Percent => "%",
            Unit::Ratio => "x",
            Unit::Kibibytes => "KiB",
        }
    }
}

/// How much one number would move on a rerun, as far as its own files tell.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Noise {
    /// Relative to the value (0.05 = 5 %).
    pub relative: f64,
    /// What the figure is: `fio's bandwidth stddev (bw_dev / bw_mean)`.
    pub source: String,
    /// The standard error of the value within its run, relative to it, where the files
    /// give one (fio's bandwidth samples: `bw_dev / sqrt(bw_samples)`). What `compare`
    /// builds an interval from when each side has one run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
}

/// Which measurement: what compare matches across runs and a dataset keys rows by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
pub struct Key {
    pub suite: String,
    /// What was measured: `raid10 · randwrite 8k × 8 jobs × QD 8`, `adp · 16 clients`.
    pub subject: String,
    pub metric: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Measurement {
    #[serde(flatten)]
    pub key: Key,
    pub value: f64,
    pub unit: Unit,
    pub better: Better,
    pub noise: Option<Noise>,
    /// The results files it was computed from, relative to the input.
    pub files: Vec<String>,
}

impl Measurement {
    /// A measurement of a finite `value`; none for a missing or non-finite one.
    pub fn of(
        suite: &str,
        subject: &str,
        metric: &str,
        value: Option<f64>,
        unit: Unit,
        better: Better,
        file: &str,
    ) -> Option<Measurement> {
        let value = value.filter(|v| v.is_finite())?;
        Some(Measurement {
            key: Key {
                suite: suite.into(),
                subject: subject.into(),
                metric: metric.into(),
            },
            value,
            unit,
            better,
            noise: None,
            files: vec![file.to_string()],
        })
    }

    pub fn with_noise(mut self, noise: Option<Noise>) -> Measurement {
        self.noise = noise.filter(|n| n.relative.is_finite());
        self
    }
}

/// A parameter a run or a server ran with, as its files record it (fio's runtime, a
/// vLLM server's non-default arguments): what set the measurements, kept typed beside
/// them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Parameter {
    /// What ran with it: `raid10/randwrite-8k-qd64`, a server's variant (`adp`).
    pub subject: String,
    /// What the parameter is: `runtime`, `max_model_len`.
    pub name: String,
    pub value: ParamValue,
    /// The unit of a number; none for text.
    pub unit: Option<Unit>,
    pub scope: Scope,
    pub file: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ParamValue {
    Number(f64),
    Text(String),
}

/// Whose parameter it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// One run's (a fio job's runtime).
    Run,
    /// A server's arguments (what vLLM logs as `non-default args`).
    Server,
}

/// A fio job's shape as compare and the reports name it:
/// `randrw (70% reads) 8k × 8 jobs × QD 8`.
pub fn job_shape(rw: &str, bs: u64, jobs: u64, depth: u64, mix: Option<u64>) -> String {
    let mix = match mix {
        Some(m) if rw.contains("rw") => format!(" ({m}% reads)"),
        _ => String::new(),
    };
    format!(
        "{rw}{mix} {} × {jobs} jobs × QD {depth}",
        crate::model::units::format_size(bs)
    )
}

/// The spread of repeated values over their center: (largest - smallest) / |center|.
pub fn range_over(values: &[f64], center: f64) -> f64 {
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(*v), h.max(*v))
        });
    if center.abs() > 0.0 && hi >= lo {
        (hi - lo) / center.abs()
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_not_measurements() {
        let m = |v| Measurement::of("s", "x", "m", v, Unit::Seconds, Better::Lower, "f");
        assert!(m(None).is_none());
        assert!(m(Some(f64::NAN)).is_none());
        assert_eq!(m(Some(2.0)).map(|m| m.value), Some(2.0));
        assert_eq!(
            serde_json::to_value(Unit::Microseconds).ok(),
            Some(serde_json::json!("µs"))
        );
        assert_eq!(
            job_shape("randrw", 8192, 8, 8, Some(70)),
            "randrw (70% reads) 8k × 8 jobs × QD 8"
        );
        assert!((range_over(&[1.0, 3.0], 2.0) - 1.0).abs() < 1e-12);
    }
}
