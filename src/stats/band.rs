//! The 95% interval of a typical value of a pool of times, where a limit is computed from
//! it (test 1: restores must take at most a fifth of the recomputes' median). Times are
//! positive and spread in proportion to their size, so the interval is taken on the
//! logarithm: the pool's median times `exp(±t(0.975, n-1) · s / √n)`, where `s` is the
//! sample standard deviation of the logarithms. It is the t-interval of the mean
//! logarithm, centred on the median the procedure's limit uses: with three to five timed
//! runs a distribution-free interval of a median cannot reach 95% (it needs six).

use super::student;

/// A pool's typical value and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    pub center: f64,
    pub low: f64,
    pub high: f64,
    /// The runs in the pool.
    pub n: usize,
    /// The standard deviation of one run's logarithm.
    pub sd_log: f64,
}

/// What the interval is called in reports.
pub const METHOD: &str = "t-interval on the logarithm of the recompute times (n-1 degrees of freedom), centred on their median";

/// The band of `values` around their median, or None with fewer than two values or one
/// that is not positive.
pub fn around_median(values: &[f64]) -> Option<Band> {
    if values.len() < 2 || !values.iter().all(|x| x.is_finite() && *x > 0.0) {
        return None;
    }
    let center = super::median(values)?;
    let logs: Vec<f64> = values.iter().map(|x| x.ln()).collect();
    let n = logs.len() as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let sd_log = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let half = student::quantile(0.975, n - 1.0) * sd_log / n.sqrt();
    Some(Band {
        center,
        low: center * (-half).exp(),
        high: center * half.exp(),
        n: values.len(),
        sd_log,
    })
}

impl Band {
    /// About how many runs would narrow the band until it no longer holds `value` (the
    /// smallest n, more than the pool has, for which t(0.975, n-1) · s / √n is below the
    /// distance of `value` from the center on the log scale), or None when the pool shows
    /// no spread or `value` is the center.
    pub fn runs_to_exclude(&self, value: f64) -> Option<usize> {
        let gap = (value.ln() - self.center.ln()).abs();
        if self.sd_log <= 0.0 || !gap.is_finite() || gap < 1e-12 {
            return None;
        }
        let enough = |n: usize| {
            let k = n as f64;
            student::quantile(0.975, k - 1.0) * self.sd_log / k.sqrt() < gap
        };
        // t(0.975, k) is above the normal's 1.96 at every k: no n under
        // (1.96 · s / gap)² is enough, so the search starts there (a few steps on), and a
        // value too near the center to settle within 2^20 runs gives None at once.
        const MAX: usize = 1 << 20;
        let start = (1.959963984540054 * self.sd_log / gap).powi(2).ceil();
        if start.is_nan() || start > MAX as f64 {
            return None;
        }
        ((self.n + 1).max(start as usize)..=MAX).find(|&n| enough(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_is_the_median_times_the_t_half_width_of_the_logs() {
        // ln 40, ln 50, ln 60: sd 0.2029 (numpy std ddof=1); t(0.975, 2) = 4.302652729911275.
        let b = around_median(&[40.0, 50.0, 60.0]).expect("band");
        let logs = [40f64.ln(), 50f64.ln(), 60f64.ln()];
        let m = logs.iter().sum::<f64>() / 3.0;
        let sd = (logs.iter().map(|l| (l - m).powi(2)).sum::<f64>() / 2.0).sqrt();
        let half = 4.302652729911275 * sd / 3f64.sqrt();
        assert_eq!(b.center, 50.0);
        assert!((b.low - 50.0 * (-half).exp()).abs() < 1e-6, "{b:?}");
        assert!((b.high - 50.0 * half.exp()).abs() < 1e-6, "{b:?}");
        assert!(b.low < 40.0 && b.high > 60.0);
    }

    #[test]
    fn one_run_or_a_value_not_positive_has_no_band() {
        assert_eq!(around_median(&[47.0]), None);
        assert_eq!(around_median(&[47.0, 0.0]), None);
        assert_eq!(around_median(&[]), None);
    }

    #[test]
    fn runs_to_exclude_grow_as_the_value_nears_the_center() {
        let b = around_median(&[45.0, 48.0, 50.0]).expect("band");
        let far = b.runs_to_exclude(60.0).expect("far");
        let near = b.runs_to_exclude(51.0).expect("near");
        assert!(far > b.n && near > far, "{far} {near}");
        // The answer is the first n that is enough.
        let enough = |n: usize| {
            student::quantile(0.975, n as f64 - 1.0) * b.sd_log / (n as f64).sqrt()
                < (51f64 / 48.0).ln()
        };
        assert!(enough(near) && !enough(near - 1));
        assert_eq!(b.runs_to_exclude(48.0), None);
        // A value too near the center for any number of runs is answered at once.
        let t = std::time::Instant::now();
        assert_eq!(b.runs_to_exclude(48.0 * (1.0 + 1e-7)), None);
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        let flat = around_median(&[48.0, 48.0]).expect("band");
        assert_eq!(flat.runs_to_exclude(60.0), None);
    }
}
