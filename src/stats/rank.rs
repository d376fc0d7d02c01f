//! Mann-Whitney U between two sets of runs: does one side's runs rank above the other's?
//! Exact, two-sided, as scipy's `mannwhitneyu(x, y, method="exact")` computes it.
//!
//! It is a second opinion beside the t-interval on the log ratio, not a replacement: with
//! few runs a rank test cannot reach 5% at all (2 and 2 runs: the smallest possible p is
//! 2 / C(4, 2) = 0.33; 3 and 3: 0.10; 4 and 4: 0.029), while the t-interval holds at two
//! or three runs. [`RankTest::can_decide`] says whether it can.

/// Above this many runs on a side the exact distribution is not computed (its table grows
/// as the cube of the runs); compare campaigns have a handful.
pub const MAX_EXACT: usize = 25;

/// The significance level the rank test is read at.
pub const ALPHA: f64 = 0.05;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankTest {
    /// U of the first sample (ties count a half).
    pub u: f64,
    /// Two-sided exact p.
    pub p: f64,
    /// The smallest two-sided p these numbers of runs can give.
    pub smallest_p: f64,
    pub n_x: usize,
    pub n_y: usize,
}

impl RankTest {
    /// Whether a p under [`ALPHA`] is possible at all with these numbers of runs.
    pub fn can_decide(&self) -> bool {
        self.smallest_p < ALPHA
    }

    /// Whether the runs' ranks separate the sides at [`ALPHA`].
    pub fn separates(&self) -> bool {
        self.p < ALPHA
    }

    /// Whether the first sample's runs rank below the second's (U under half its range).
    pub fn base_below(&self) -> bool {
        self.u < (self.n_x * self.n_y) as f64 / 2.0
    }
}

/// How many orderings of `m` and `n` values give each U (0 ..= m n): the coefficients of
/// the Gaussian binomial [m + n choose m], by the recurrence on which sample holds the
/// largest value (it beats all `n` of the other sample, or none).
fn counts(m: usize, n: usize) -> Vec<f64> {
    // row[j] = the distribution for (i, j), i the current first-sample size.
    let mut row: Vec<Vec<f64>> = vec![vec![1.0]; n + 1];
    for i in 1..=m {
        let mut next: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
        next.push(vec![1.0]);
        for j in 1..=n {
            let mut c = vec![0.0; i * j + 1];
            // The largest value is the first sample's: U gains j.
            for (u, v) in row[j].iter().enumerate() {
                c[u + j] += v;
            }
            // It is the second sample's: U as for (i, j - 1).
            for (u, v) in next[j - 1].iter().enumerate() {
                c[u] += v;
            }
            next.push(c);
        }
        row = next;
    }
    row.pop().unwrap_or_default()
}

/// The exact two-sided Mann-Whitney U test of `x` against `y`, or `None` with fewer than
/// two runs on a side, more than [`MAX_EXACT`], or a value that is not finite. Ties count
/// a half in U, and the exact distribution (which assumes none) is read at U rounded
/// down, as scipy does.
pub fn mann_whitney(x: &[f64], y: &[f64]) -> Option<RankTest> {
    let (m, n) = (x.len(), y.len());
    if m < 2 || n < 2 || m > MAX_EXACT || n > MAX_EXACT {
        return None;
    }
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let u: f64 = x
        .iter()
        .map(|a| {
            y.iter()
                .map(|b| {
                    if a > b {
                        1.0
                    } else if a == b {
                        0.5
                    } else {
                        0.0
                    }
                })
                .sum::<f64>()
        })
        .sum();
    let mn = (m * n) as f64;
    let c = counts(m.min(n), m.max(n));
    let total: f64 = c.iter().sum();
    // P(U >= k) for the larger of U and its mirror, doubled.
    let k = u.max(mn - u).floor() as usize;
    let tail: f64 = c.get(k..).map_or(0.0, |t| t.iter().sum());
    let p = (2.0 * tail / total).min(1.0);
    Some(RankTest {
        u,
        p,
        smallest_p: (2.0 / total).min(1.0),
        n_x: m,
        n_y: n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_the_orderings() {
        // C(4, 2) = 6 orderings of 2 and 2: U = 0, 1, 2, 2, 3, 4.
        assert_eq!(counts(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
        let c = counts(5, 7);
        assert_eq!(c.iter().sum::<f64>(), 792.0);
        assert_eq!(c.len(), 36);
    }

    #[test]
    fn smallest_p_says_when_a_rank_test_can_decide() {
        let two = mann_whitney(&[1.0, 2.0], &[3.0, 4.0]).expect("test");
        assert!((two.p - 1.0 / 3.0).abs() < 1e-12 && !two.can_decide());
        assert!(two.base_below());
        assert!(!mann_whitney(&[3.0, 4.0], &[1.0, 2.0]).is_some_and(|r| r.base_below()));
        let four = mann_whitney(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]).expect("test");
        assert!((four.p - 2.0 / 70.0).abs() < 1e-12 && four.separates());
        assert_eq!(mann_whitney(&[1.0], &[2.0, 3.0]), None);
        assert_eq!(mann_whitney(&[1.0, f64::NAN], &[2.0, 3.0]), None);
    }
}
