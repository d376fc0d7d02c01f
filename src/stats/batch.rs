//! An interval from within one run: batch means over a per-second series. Consecutive
//! seconds move together, so their spread understates the uncertainty of the mean; the
//! means of a few long consecutive batches are close to independent, and their spread
//! gives the standard error of the run's mean (the method of batch means, as simulation
//! output analysis uses it). It says nothing of how runs differ from one another: an
//! interval from it is weaker evidence than one from repeated runs, and is named so.

use super::ratio::{Method, Ratio};
use super::student;

/// How many batches a window is cut into.
pub const BATCHES: usize = 5;

/// The fewest seconds a batch holds: shorter batches are not close to independent.
pub const MIN_BATCH: usize = 5;

/// [`batch_means`] with [`BATCHES`] batches of at least [`MIN_BATCH`] samples, or None.
pub fn of_window(window: &[f64]) -> Option<BatchMeans> {
    if window.len() < BATCHES * MIN_BATCH {
        return None;
    }
    batch_means(window, BATCHES)
}

/// The mean of a window and its standard error from `batches` batch means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchMeans {
    pub mean: f64,
    pub se: f64,
    pub batches: usize,
}

/// Batch means of `window` (a per-second series over a steady window): cut into
/// `batches` equal consecutive batches, the oldest samples that do not fill one dropped.
/// None with fewer samples than batches, fewer than two batches, or a mean that is not
/// positive.
pub fn batch_means(window: &[f64], batches: usize) -> Option<BatchMeans> {
    if batches < 2 || window.len() < batches || window.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let size = window.len() / batches;
    let skip = window.len() - size * batches;
    let means: Vec<f64> = window[skip..]
        .chunks(size)
        .map(|c| c.iter().sum::<f64>() / size as f64)
        .collect();
    from_batches(&means)
}

/// The mean of a run's batch values (one statistic per consecutive batch, computed by
/// the caller) and its standard error from their spread. None with fewer than two
/// batches, a value that is not finite, or a mean that is not positive.
pub fn from_batches(values: &[f64]) -> Option<BatchMeans> {
    if values.len() < 2 || values.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let b = values.len() as f64;
    let mean = values.iter().sum::<f64>() / b;
    let var = values.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / (b - 1.0);
    (mean > 0.0).then(|| BatchMeans {
        mean,
        se: (var / b).sqrt(),
        batches: values.len(),
    })
}

/// The ratio `cand / base` of one run a side (the runs' own numbers, as the procedure's
/// script takes them) with a 95% interval from each run's batch means: on the logarithm,
/// each side's variance its relative standard error squared (the delta method), Student's
/// t with Welch-Satterthwaite degrees of freedom. None when a number is not positive or
/// neither run shows any spread.
pub fn within_run_ratio(base: (f64, &BatchMeans), cand: (f64, &BatchMeans)) -> Option<Ratio> {
    within_run_ratio_by(base, cand, Method::WithinRun)
}

/// [`within_run_ratio`], its interval named by `method` (which batches the runs were cut
/// into).
pub fn within_run_ratio_by(
    base: (f64, &BatchMeans),
    cand: (f64, &BatchMeans),
    method: Method,
) -> Option<Ratio> {
    let ok = |x: f64| x.is_finite() && x > 0.0;
    if !ok(base.0) || !ok(cand.0) {
        return None;
    }
    let (vb, vc) = (
        (base.1.se / base.1.mean).powi(2),
        (cand.1.se / cand.1.mean).powi(2),
    );
    let (db, dc) = (base.1.batches as f64 - 1.0, cand.1.batches as f64 - 1.0);
    let se2 = vb + vc;
    if se2 <= 0.0 || !se2.is_finite() {
        // No spread at all in either run: no measured series is that flat (a series
        // made from published figures is), and a point is not an interval.
        return None;
    }
    let df = se2 * se2 / (vb * vb / db + vc * vc / dc);
    let d = (cand.0 / base.0).ln();
    let t = student::quantile(0.975, df);
    let se = se2.sqrt();
    Some(Ratio {
        estimate: d.exp(),
        n_base: 1,
        n_cand: 1,
        interval: Some(((d - t * se).exp(), (d + t * se).exp(), df, method)),
        sd_log: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_drop_the_oldest_samples_that_do_not_fill_one() {
        // 11 samples, 5 batches of 2: the first sample is dropped.
        let w = [99.0, 1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 17.0, 19.0];
        let b = batch_means(&w, 5).expect("batches");
        // Batch means 2, 6, 10, 14, 18: mean 10, sd sqrt(40), se sqrt(40/5).
        assert_eq!(b.batches, 5);
        assert!((b.mean - 10.0).abs() < 1e-12, "{b:?}");
        assert!((b.se - 8f64.sqrt()).abs() < 1e-12, "{b:?}");
        assert_eq!(batch_means(&w[..4], 5), None);
        assert_eq!(batch_means(&[0.0; 10], 5), None);
        assert_eq!(batch_means(&[1.0, f64::NAN, 1.0, 1.0, 1.0], 5), None);
    }

    #[test]
    fn two_flat_runs_give_no_interval_and_a_noisy_one_a_wide_one() {
        let flat = batch_means(&[100.0; 10], 5).expect("flat");
        assert_eq!(within_run_ratio((100.0, &flat), (400.0, &flat)), None);
        let noisy = batch_means(
            &[
                80.0, 120.0, 80.0, 120.0, 100.0, 60.0, 140.0, 100.0, 90.0, 110.0,
            ],
            5,
        )
        .expect("noisy");
        let r = within_run_ratio((100.0, &noisy), (400.0, &flat)).expect("ratio");
        let (lo, hi, _, m) = r.interval.expect("interval");
        assert_eq!(m, Method::WithinRun);
        assert!(lo < 4.0 && hi > 4.0 && hi / lo > 1.05, "{lo} {hi}");
        assert_eq!(within_run_ratio((0.0, &flat), (1.0, &flat)), None);
    }
}
