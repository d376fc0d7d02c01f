//! Tests of [`super`]: how phrases render and behave.

use super::*;

#[test]
fn renders_like_format_with_thousands_grouped() {
    let (r, a, b) = (0.9566757727054938, 3963.2, 4142.7);
    let p = phrase!("{}x ({} vs {} MB/s)", fixed(r, 2), fixed(a, 0), fixed(b, 0));
    assert_eq!(p.to_string(), "0.96x (3,963 vs 4,143 MB/s)");
    assert_eq!(p.numbers(), vec![r, a, b]);
    assert_eq!(
        phrase!("{}", qty(2.121904, 2, Unit::Seconds)).to_string(),
        "2.12 s"
    );
    assert_eq!(
        phrase!("{}", qty(100.0, 1, Unit::Percent)).to_string(),
        "100.0%"
    );
    assert_eq!(phrase!("({})", signed(1.306, 1)).to_string(), "(+1.3)");
    assert_eq!(
        phrase!("({})", signed(-24913.0, 0)).to_string(),
        "(-24,913)"
    );
    assert_eq!(phrase!("{} runs", count(10800)).to_string(), "10,800 runs");
    assert_eq!(phrase!("{}", plain(10800.5)).to_string(), "10800.5");
    assert_eq!(
        phrase!("{}", bandwidth(crate::model::units::MiBps(100.0).into())).to_string(),
        "105 MB/s (100 MiB/s)"
    );
    let j = Phrase::join([phrase!("a {}", count(1u32)), Phrase::from("b")], " · ");
    assert_eq!(j.to_string(), "a 1 · b");
    assert_eq!(j.numbers(), vec![1.0]);
    assert_eq!(
        serde_json::to_value(&p).ok(),
        Some(serde_json::json!("0.96x (3,963 vs 4,143 MB/s)"))
    );
}

#[test]
fn units_of_render_as_before() {
    let u = UnitOf::new(Unit::Ratio, "(the lower of output and gen)");
    assert_eq!(u.to_string(), "x (the lower of output and gen)");
    assert_eq!(UnitOf::of(Unit::Seconds).to_string(), "s");
    assert_eq!(UnitOf::count("result files").to_string(), "result files");
    assert!(UnitOf::default().is_empty());
}

#[test]
fn a_ratio_bound_is_shown_only_as_far_as_it_means_something() {
    assert_eq!(ratio_bound(1.84e-13).to_string(), "below 0.01x");
    assert_eq!(ratio_bound(0.01).to_string(), "0.01x");
    assert_eq!(ratio_bound(3.914).to_string(), "3.91x");
    assert_eq!(ratio_bound(100.0).to_string(), "100.00x");
    assert_eq!(ratio_bound(3.5e11).to_string(), "above 100x");
}
