//! The median, the geometric mean and the spread of a few runs.

/// The median (mean of the middle two for an even count), as Python's statistics.median.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    // The middle value by selection, not a whole sort: the same elements as the sorted
    // list's middle, in linear time.
    let n = v.len();
    let (below, mid, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    let mid = *mid;
    Some(if n % 2 == 1 {
        mid
    } else {
        let lower = below.iter().copied().max_by(f64::total_cmp).unwrap_or(mid);
        (lower + mid) / 2.0
    })
}

/// The geometric mean of runs of one measurement: the centre of the t-interval on the
/// logarithm ([`crate::stats::ratio`]), so a pooled value and its interval agree. One
/// run is its own value, exactly; `None` for no runs or a value that is not positive and
/// finite (its logarithm does not exist).
pub fn geometric_mean(v: &[f64]) -> Option<f64> {
    match v {
        [] => None,
        _ if v.iter().any(|x| !(x.is_finite() && *x > 0.0)) => None,
        [one] => Some(*one),
        _ => Some((v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()),
    }
}

/// How far apart runs are: largest over smallest, minus one (0.1 = 10 %).
pub fn spread(v: &[f64]) -> Option<f64> {
    if v.len() < 2 {
        return None;
    }
    let max = v.iter().copied().fold(f64::MIN, f64::max);
    let min = v.iter().copied().fold(f64::MAX, f64::min);
    (min > 0.0).then(|| max / min - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_spreads() {
        assert_eq!(median(&[1.0, 3.0, 2.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert!((spread(&[100.0, 112.0]).unwrap_or(0.0) - 0.12).abs() < 1e-12);
        assert_eq!(spread(&[1.0]), None);
        assert_eq!(geometric_mean(&[6934.0]), Some(6934.0));
        let g = geometric_mean(&[6934.0, 13175.0]).unwrap_or(0.0);
        assert!((g - (6934.0f64 * 13175.0).sqrt()).abs() < 1e-9, "{g}");
        assert_eq!(geometric_mean(&[1.0, 0.0]), None);
        assert_eq!(geometric_mean(&[1.0, f64::NAN]), None);
        assert_eq!(geometric_mean(&[]), None);
    }

    #[test]
    fn the_median_by_selection_is_the_sorted_lists_middle_bit_for_bit() {
        let sorted_middle = |v: &[f64]| {
            let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            v.sort_by(f64::total_cmp);
            let n = v.len();
            (n > 0).then(|| {
                if n % 2 == 1 {
                    v[n / 2]
                } else {
                    (v[n / 2 - 1] + v[n / 2]) / 2.0
                }
            })
        };
        let pool = [
            -0.0,
            0.0,
            1.0,
            -1.0,
            2.5,
            1e308,
            -1e308,
            f64::NAN,
            f64::INFINITY,
        ];
        let mut rng = crate::test_rng::XorShift(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let seed = rng.next();
            let n = (seed % 12) as usize;
            let v: Vec<f64> = (0..n)
                .map(|k| {
                    let r = seed.rotate_left(5 * k as u32);
                    if r.is_multiple_of(3) {
                        pool[(r / 3 % pool.len() as u64) as usize]
                    } else {
                        (r % 1000) as f64 / 8.0
                    }
                })
                .collect();
            assert_eq!(
                median(&v).map(f64::to_bits),
                sorted_middle(&v).map(f64::to_bits),
                "{v:?}"
            );
        }
    }
}
