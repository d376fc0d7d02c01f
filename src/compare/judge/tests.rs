//! Tests of the judging: intervals, the threshold alone, and the rank test's say.

use super::*;

fn side(values: &[f64], se: Option<f64>) -> Pooled {
    Pooled {
        value: crate::stats::geometric_mean(values).unwrap_or(0.0),
        values: values.to_vec(),
        runs: values.len(),
        noise: None,
        noise_from: String::new(),
        standard_error: se,
        files: Vec::new(),
    }
}

#[test]
fn a_large_within_run_spread_no_longer_hides_a_change_the_samples_pin_down() {
    // The QD1 case: fio's bw_dev / bw_mean is 91.5%, the change +24.9%. The
    // spread as a bar called it no change; 600 samples a run pin the mean to 3.7%.
    let se = 0.915 / 600f64.sqrt();
    let j = judge(
        Better::Higher,
        &side(&[100.0], Some(se)),
        &side(&[124.9], Some(se)),
        5.0,
    );
    assert_eq!(j.change, Change::Better, "{j:?}");
    assert!(j.method.contains("weaker evidence"));
    // With 20 samples a run the same change cannot be told from the threshold.
    let se = 0.915 / 20f64.sqrt();
    let j = judge(
        Better::Higher,
        &side(&[100.0], Some(se)),
        &side(&[124.9], Some(se)),
        5.0,
    );
    assert_eq!(j.change, Change::Inconclusive, "{j:?}");
}

#[test]
fn runs_decide_by_the_whole_interval() {
    // Two runs a side that differ 2x: not a confident anything.
    let j = judge(
        Better::Higher,
        &side(&[1000.0, 1010.0], None),
        &side(&[1324.0, 2481.0], None),
        5.0,
    );
    assert_eq!(j.change, Change::Inconclusive, "{j:?}");
    assert!(j.why.contains("runs of each side"), "{}", j.why);
    // Three consistent runs a side, 20% apart: better; 1% apart: no change.
    let base = side(&[1000.0, 1004.0, 998.0], None);
    let j = judge(
        Better::Higher,
        &base,
        &side(&[1200.0, 1203.0, 1198.0], None),
        5.0,
    );
    assert_eq!(j.change, Change::Better, "{j:?}");
    let j = judge(
        Better::Lower,
        &base,
        &side(&[1200.0, 1203.0, 1198.0], None),
        5.0,
    );
    assert_eq!(j.change, Change::Worse, "lower is better: {j:?}");
    let j = judge(
        Better::Higher,
        &base,
        &side(&[1010.0, 1012.0, 1009.0], None),
        5.0,
    );
    assert_eq!(j.change, Change::NoChange, "{j:?}");
    let [lo, hi] = j.interval_pct.expect("interval");
    assert!(lo > 0.0 && hi < 5.0, "{lo} {hi}");
}

#[test]
fn one_run_a_side_without_a_standard_error_is_the_threshold_alone() {
    let j = judge(
        Better::Higher,
        &side(&[100.0], None),
        &side(&[120.0], None),
        5.0,
    );
    assert_eq!(j.change, Change::Better);
    assert_eq!(j.interval_pct, None);
    assert!(j.method.contains("threshold alone"), "{}", j.method);
    let j = judge(
        Better::Higher,
        &side(&[100.0], None),
        &side(&[103.0], None),
        5.0,
    );
    assert_eq!(j.change, Change::NoChange);
}

#[test]
fn a_rank_test_that_can_decide_overrules_a_confident_interval_only_when_it_disagrees() {
    // Five runs a side, one base run among the new ones: the t-interval (+2.1% to
    // +29.8%) clears a 2% threshold, Mann-Whitney's exact p is 0.151 (scipy's).
    let (b, n) = (
        [100.0, 101.0, 102.0, 103.0, 126.0],
        [120.0, 121.0, 122.0, 123.0, 124.0],
    );
    let j = judge(Better::Higher, &side(&b, None), &side(&n, None), 2.0);
    assert_eq!(j.change, Change::Inconclusive, "{j:?}");
    assert!(j.why.contains("exact p = 0.151"), "{}", j.why);
    // Separated runs (scipy: p = 0.0286): the interval's call stands.
    let (b, n) = ([100.0, 100.5, 101.0, 112.0], [113.0, 114.0, 115.0, 116.0]);
    let j = judge(Better::Higher, &side(&b, None), &side(&n, None), 1.0);
    assert_eq!(j.change, Change::Better, "{j:?}");
    assert!(
        j.method.contains("p = 0.029, the runs' ranks separate"),
        "{}",
        j.method
    );
    // Two runs a side: the rank test cannot decide, and says so; the interval does.
    let j = judge(
        Better::Higher,
        &side(&[100.0, 101.0], None),
        &side(&[150.0, 151.0], None),
        5.0,
    );
    assert_eq!(j.change, Change::Better, "{j:?}");
    assert!(j.method.contains("smallest p is 0.333"), "{}", j.method);
}

#[test]
fn repeats_far_apart_are_said_to_disagree_and_promised_no_settling() {
    // Two runs near 7,000 MB/s and one at 0.4: the interval runs from almost nothing to
    // billions, shown only as beyond its bounds; the why names the side and the range.
    let j = judge(
        Better::Higher,
        &side(&[6934.0], None),
        &side(&[6934.0, 7281.0, 0.416], None),
        5.0,
    );
    assert_eq!(j.change, Change::Inconclusive, "{j:?}");
    assert!(
        j.why
            .contains("new's runs are 17,502-fold apart (0.416 to 7,281)"),
        "{}",
        j.why
    );
    assert!(
        j.why.contains("more runs would dilute the odd one"),
        "{}",
        j.why
    );
    assert!(!j.why.contains("runs of each side"), "{}", j.why);
    assert!(
        j.why.contains("95% interval <-99.0% to >+9900.0%"),
        "{}",
        j.why
    );
    let [lo, hi] = j.interval_pct.expect("interval");
    assert!(
        lo < -99.0 && hi > 9900.0,
        "the JSON keeps the numbers: {lo} {hi}"
    );
    // Runs a few percent apart: nothing of the kind.
    let j = judge(
        Better::Higher,
        &side(&[1000.0, 1010.0], None),
        &side(&[1324.0, 2481.0], None),
        5.0,
    );
    assert!(!j.why.contains("apart"), "{}", j.why);
}

#[test]
fn values_are_shown_to_three_digits_and_bounds_beyond_a_hundredfold_as_beyond() {
    use crate::model::phrase::pct_bound;
    use crate::model::units::three_digits;
    assert_eq!(three_digits(0.416), "0.416");
    assert_eq!(three_digits(0.000416), "0.000416");
    assert_eq!(three_digits(50.7861328125), "50.8");
    assert_eq!(three_digits(888757.32421875), "888,757");
    assert_eq!(three_digits(99.96), "100");
    assert_eq!(three_digits(0.9996), "1.00");
    assert_eq!(three_digits(4.156e-9), "4.16e-9");
    assert_eq!(three_digits(-12.34), "-12.3");
    assert_eq!(three_digits(0.0), "0");
    assert_eq!(pct_bound(-99.99), "<-99.0");
    assert_eq!(pct_bound(-99.0), "-99.0");
    assert_eq!(pct_bound(9900.0), "+9900.0");
    assert_eq!(pct_bound(9900.1), ">+9900.0");
    assert_eq!(pct_bound(12.34), "+12.3");
}
