//! The ratio of two pools of runs (candidate over baseline) with its 95% confidence
//! interval, taken on the logarithm (bandwidths are positive and spread in proportion to
//! their size, so the interval of a ratio is symmetric there):
//! - two runs or more on each side: Welch's t-interval of the difference of the mean
//!   logarithms (degrees of freedom by Welch-Satterthwaite);
//! - one run on a side: the other side's spread stands for both (a t-interval with the
//!   degrees of freedom of the side that has repeats);
//! - one run on each side: no interval can be had from the runs.
//!
//! The estimate is the ratio of the geometric means.

use super::student;

/// How a ratio's interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Welch's t on the logarithms: both sides repeated.
    Welch,
    /// t on the logarithms with the spread of the one side that has repeats.
    OneSidedSpread,
    /// Student's t on the logarithms with the variance pooled over both sides: for runs
    /// of one workload on one setup where only a component differs (the ladder's two
    /// variants, two runs each), where Welch's degrees of freedom would rest on one
    /// run-to-run difference per side.
    Pooled,
    /// One run a side: each run's batch means over its steady window (see
    /// [`super::batch`]); weaker evidence than repeats.
    WithinRun,
    /// One run a side of the KV ladder: each run cut into consecutive batches of time
    /// (output tok/s) or of requests (gen tok/s, TTFT) (see
    /// `suites::kv_common::within`); weaker evidence than repeats.
    WithinRunRequests,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Welch => "Welch t-interval on the log ratio",
            Method::OneSidedSpread => "t-interval on the log ratio, spread from the repeated side",
            Method::Pooled => {
                "Student t-interval on the log ratio, variance pooled over both sides"
            }
            Method::WithinRun => {
                "within one run a side: batch means of each run's per-second throughput over its steady window, t-interval on the log ratio (weaker than repeated runs)"
            }
            Method::WithinRunRequests => {
                "within one run a side: each run cut into 5 consecutive batches (time windows for output tok/s, requests in start order for gen tok/s and TTFT), the batches' spread as the standard error, t-interval on the log ratio (weaker than repeated runs)"
            }
        }
    }
}

/// A ratio of two pools and, where the runs give one, its 95% interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Ratio {
    pub estimate: f64,
    pub n_base: usize,
    pub n_cand: usize,
    /// (low, high, degrees of freedom, method), or None with one run a side.
    pub interval: Option<(f64, f64, f64, Method)>,
    /// The standard deviation of one run's logarithm (pooled), where there is one.
    pub(super) sd_log: Option<f64>,
}

/// Where an interval stands against a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    Above,
    Below,
    Straddles,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn var(v: &[f64]) -> f64 {
    let m = mean(v);
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0)
}

/// The ratio of `cand` over `base` (each a pool of positive values), or None when a
/// pool is empty or holds a value that is not positive.
pub fn ratio(base: &[f64], cand: &[f64]) -> Option<Ratio> {
    let ok = |v: &[f64]| !v.is_empty() && v.iter().all(|x| x.is_finite() && *x > 0.0);
    if !ok(base) || !ok(cand) {
        return None;
    }
    let lb: Vec<f64> = base.iter().map(|x| x.ln()).collect();
    let lc: Vec<f64> = cand.iter().map(|x| x.ln()).collect();
    let d = mean(&lc) - mean(&lb);
    let (nb, nc) = (lb.len() as f64, lc.len() as f64);
    let spread = match (lb.len() >= 2, lc.len() >= 2) {
        (true, true) => {
            let (vb, vc) = (var(&lb), var(&lc));
            let se2 = vb / nb + vc / nc;
            let df = if se2 > 0.0 {
                se2 * se2 / ((vb / nb).powi(2) / (nb - 1.0) + (vc / nc).powi(2) / (nc - 1.0))
            } else {
                nb + nc - 2.0
            };
            Some((se2.sqrt(), df, Method::Welch, ((vb + vc) / 2.0).sqrt()))
        }
        (true, false) | (false, true) => {
            let repeated = if lb.len() >= 2 { &lb } else { &lc };
            let v = var(repeated);
            let se = (v * (1.0 / nb + 1.0 / nc)).sqrt();
            Some((
                se,
                repeated.len() as f64 - 1.0,
                Method::OneSidedSpread,
                v.sqrt(),
            ))
        }
        (false, false) => None,
    };
    // Runs that agree to the last digit have no spread to make an interval from: an
    // interval of no width would claim a certainty no set of runs holds.
    let interval = spread.filter(|s| s.0 > 0.0).map(|(se, df, method, _)| {
        let t = student::quantile(0.975, df);
        ((d - t * se).exp(), (d + t * se).exp(), df, method)
    });
    Some(Ratio {
        estimate: d.exp(),
        n_base: base.len(),
        n_cand: cand.len(),
        interval,
        sd_log: spread.map(|s| s.3),
    })
}

/// As [`ratio`], with the variance pooled over both sides when both are repeated
/// ([`Method::Pooled`]: degrees of freedom `n_base + n_cand - 2`).
pub fn ratio_pooled(base: &[f64], cand: &[f64]) -> Option<Ratio> {
    let mut r = ratio(base, cand)?;
    if base.len() < 2 || cand.len() < 2 {
        return Some(r);
    }
    let lb: Vec<f64> = base.iter().map(|x| x.ln()).collect();
    let lc: Vec<f64> = cand.iter().map(|x| x.ln()).collect();
    let (nb, nc) = (lb.len() as f64, lc.len() as f64);
    let df = nb + nc - 2.0;
    let pooled = ((nb - 1.0) * var(&lb) + (nc - 1.0) * var(&lc)) / df;
    let se = (pooled * (1.0 / nb + 1.0 / nc)).sqrt();
    let d = r.estimate.ln();
    let t = student::quantile(0.975, df);
    r.interval = (se > 0.0).then(|| ((d - t * se).exp(), (d + t * se).exp(), df, Method::Pooled));
    r.sd_log = Some(pooled.sqrt());
    Some(r)
}

impl Ratio {
    /// Where the interval stands against `threshold` (`strict`: the ratio must exceed
    /// it, not only reach it). None without an interval.
    pub fn against(&self, threshold: f64, strict: bool) -> Option<Against> {
        let (low, high, _, _) = self.interval?;
        let above = if strict {
            low > threshold
        } else {
            low >= threshold
        };
        let below = if strict {
            high <= threshold
        } else {
            high < threshold
        };
        Some(if above {
            Against::Above
        } else if below {
            Against::Below
        } else {
            Against::Straddles
        })
    }

    /// About how many runs of each side would put the interval clear of `threshold`, at
    /// the spread seen and the estimate as it is (at least one more than the larger side
    /// has): the smallest n for which
    /// t(0.975, 2n-2) x sd x sqrt(2/n) is below the distance of the log estimate from the
    /// log threshold (a doubling search, then halving: the left side falls with n).
    pub fn runs_to_settle(&self, threshold: f64) -> Settle {
        let Some(sd) = self.sd_log.filter(|s| *s > 0.0) else {
            return Settle::NoSpread;
        };
        let gap = (self.estimate.ln() - threshold.ln()).abs();
        if gap < 1e-12 {
            return Settle::OnThreshold;
        }
        let enough = |n: usize| {
            let n = n as f64;
            student::quantile(0.975, 2.0 * n - 2.0) * sd * (2.0 / n).sqrt() < gap
        };
        const MAX: usize = 1 << 20;
        let mut hi = 2;
        while !enough(hi) {
            if hi >= MAX {
                return Settle::MoreThan(MAX);
            }
            hi *= 2;
        }
        // Never fewer runs than there are: the runs in hand gave a straddling interval
        // (Welch's degrees of freedom can be below the 2n-2 this model assumes).
        let floor = self.n_base.max(self.n_cand) + 1;
        let mut lo = hi / 2;
        if lo < 2 {
            return Settle::Runs(hi.max(floor));
        }
        // enough(hi), and not enough(lo) unless lo is 1 (then 2 is the answer).
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if enough(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Settle::Runs(hi.max(floor))
    }
}

/// What would settle an interval that straddles its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// About this many runs of each side.
    Runs(usize),
    /// More runs than this.
    MoreThan(usize),
    /// The estimate sits on the threshold: no number of runs settles it.
    OnThreshold,
    /// The runs show no spread to scale by.
    NoSpread,
}

/// How far apart repeats may be and still be taken as measuring one thing: runs of one
/// job on one system differ by percents, not tenfold. Further apart, the odd run likely
/// measured something else (a failed device, a stalled job): more runs would dilute it,
/// not explain it.
pub const APART: f64 = 10.0;

/// Repeats more than [`APART`] times apart: the indexes of the smallest and the largest,
/// and how many times the largest is the smallest (infinite when the smallest is 0 or
/// below and the largest above). None for fewer than two values, or values within
/// [`APART`] of each other. (The ratios call it on positive, finite values; anything else
/// is answered without a panic.)
pub fn apart(values: &[f64]) -> Option<(usize, usize, f64)> {
    if values.len() < 2 || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let by_value = |a: &(usize, f64), b: &(usize, f64)| a.1.total_cmp(&b.1);
    let (low_at, low) = values.iter().copied().enumerate().min_by(by_value)?;
    let (high_at, high) = values.iter().copied().enumerate().max_by(by_value)?;
    let fold = if low > 0.0 { high / low } else { f64::INFINITY };
    // More than tenfold as [`fold_shown`] shows it: 10.004 is 10.00, not more.
    let far = match fold_shown(fold) {
        Some((shown, _)) => shown > APART,
        None => high > 0.0,
    };
    far.then_some((low_at, high_at, fold))
}

/// A fold as the notes show it: two decimals below 100 (`10.01`), whole from 100 up;
/// None when it is not finite or a million or more (shown in words: repeats that far
/// apart are not worth a number).
pub fn fold_shown(fold: f64) -> Option<(f64, u8)> {
    if !fold.is_finite() || fold >= 1e6 {
        return None;
    }
    let two = (fold * 100.0).round() / 100.0;
    Some(if two < 100.0 { (two, 2) } else { (fold, 0) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_tenfold_apart_are_found_and_close_ones_are_not() {
        assert_eq!(
            apart(&[6934.0, 7281.0, 0.416]),
            Some((2, 1, 7281.0 / 0.416))
        );
        assert_eq!(apart(&[100.0, 1000.0]), None, "exactly tenfold is within");
        assert_eq!(apart(&[100.0, 1001.0]).map(|a| (a.0, a.1)), Some((0, 1)));
        assert_eq!(apart(&[5.0, 0.0]), Some((1, 0, f64::INFINITY)));
        assert_eq!(apart(&[100.0, 110.0, 5000.0]).map(|a| a.1), Some(2));
        assert_eq!(apart(&[0.0, 0.0]), None, "all zero: no run moved data");
        assert_eq!(apart(&[7.0]), None);
        assert_eq!(apart(&[]), None);
        assert_eq!(apart(&[1.0, 1.05, 0.97]), None);
        assert_eq!(apart(&[1.0, f64::NAN]), None, "not a number is not apart");
        assert_eq!(apart(&[-f64::NAN, 5.0]), None, "nor a negative one");
        // As shown to two decimals: 10.004 is 10.00, not more than tenfold.
        assert_eq!(apart(&[100.0, 1000.4]), None);
        assert!(apart(&[100.0, 1000.6]).is_some());
        assert_eq!(fold_shown(99.996), Some((99.996, 0)));
        assert_eq!(fold_shown(10.006), Some((10.01, 2)));
        assert_eq!(fold_shown(2e6), None);
        assert_eq!(fold_shown(f64::INFINITY), None);
    }

    #[test]
    fn one_run_a_side_has_no_interval_and_the_ratio_is_plain() {
        let r = ratio(&[100.0], &[450.0]).expect("ratio");
        assert!((r.estimate - 4.5).abs() < 1e-12);
        assert_eq!(r.interval, None);
        assert_eq!(r.against(4.0, false), None);
    }

    #[test]
    fn two_runs_that_differ_twofold_straddle_and_three_close_ones_clear_it() {
        // The case: 1324 and 2481 MB/s against one baseline run of 330 MB/s.
        let r = ratio(&[330.0], &[1324.0, 2481.0]).expect("ratio");
        assert_eq!(r.against(4.0, false), Some(Against::Straddles));
        let (low, high, df, m) = r.interval.expect("interval");
        assert!(low < 4.0 && high > 4.0 && df == 1.0 && m == Method::OneSidedSpread);
        let r = ratio(&[330.0, 331.0, 329.0], &[1650.0, 1655.0, 1648.0]).expect("ratio");
        assert_eq!(r.against(4.0, false), Some(Against::Above));
        assert_eq!(r.interval.map(|i| i.3), Some(Method::Welch));
        let r = ratio(&[330.0, 331.0, 329.0], &[990.0, 995.0, 992.0]).expect("ratio");
        assert_eq!(r.against(4.0, false), Some(Against::Below));
        assert!(ratio(&[0.0], &[1.0]).is_none());
    }

    #[test]
    fn runs_to_settle_grows_with_the_spread_and_shrinks_with_the_gap() {
        let wide = ratio(&[330.0, 400.0], &[1500.0, 1800.0]).expect("ratio");
        let narrow = ratio(&[330.0, 335.0], &[1500.0, 1520.0]).expect("ratio");
        let (Settle::Runs(w), Settle::Runs(n)) =
            (wide.runs_to_settle(4.0), narrow.runs_to_settle(4.0))
        else {
            panic!("both settle");
        };
        assert!(w > n, "{w} vs {n}");
        // The search gives the smallest n: n - 1 is not enough.
        let brute = (2..=w).find(|&k| {
            let k = k as f64;
            student::quantile(0.975, 2.0 * k - 2.0) * wide.sd_log.unwrap_or(0.0) * (2.0 / k).sqrt()
                < (wide.estimate.ln() - 4f64.ln()).abs()
        });
        assert_eq!(brute, Some(w));
        let on = ratio(&[100.0, 110.0], &[400.0, 440.0]).expect("ratio");
        assert_eq!(on.runs_to_settle(4.0), Settle::OnThreshold);
    }
}
