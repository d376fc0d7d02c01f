//! One side's samples of a key pooled: their centre, their noise, their files.

use super::measure::Sample;
use super::{range_over, Pooled};
use crate::stats::{geometric_mean, median};

/// Pools one side's samples of a key: the geometric mean of the runs (the centre of the
/// interval on the log ratio the change is judged by, and how `analyze` pools repeats),
/// the median where a run's value is not positive (no logarithm); the noise is the spread
/// between runs when there are several, else the one run's own (fio's stddev, the spread
/// of repeated requests), else none.
pub(super) fn pool(samples: &[&Sample]) -> Pooled {
    let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
    // Samples hold finite values only (the frames' reader drops the rest).
    let value = geometric_mean(&values)
        .or_else(|| median(&values))
        .unwrap_or(0.0);
    let mut files: Vec<String> = samples
        .iter()
        .map(|s| format!("{}: {}", s.input, s.file))
        .collect();
    files.dedup();
    let (noise, noise_from) = if samples.len() >= 2 {
        (
            Some(range_over(&values, value)),
            format!("spread between {} runs", samples.len()),
        )
    } else {
        match &samples[0].noise {
            Some((n, from)) => (Some(*n), from.clone()),
            None => (
                None,
                "one run: no noise estimate, the threshold alone decides".into(),
            ),
        }
    };
    Pooled {
        value,
        values,
        runs: samples.len(),
        noise,
        noise_from,
        standard_error: match samples {
            [one] => one.standard_error,
            _ => None,
        },
        files,
    }
}
