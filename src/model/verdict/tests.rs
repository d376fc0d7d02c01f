//! Tests of [`super`]: how verdicts render and behave.

use super::*;

fn v(status: Status) -> Verdict {
    Verdict {
        status,
        measured: Phrase::default(),
        ..Verdict::new("x", "", Phrase::default(), Phrase::default())
    }
}

#[test]
fn a_published_number_is_reproduced_by_an_interval_inside_its_band_only() {
    let with = |status, x: f64, ci: Option<(f64, f64)>| {
        let mut x_v = v(status);
        x_v.measured_value = Some(x);
        x_v.published_value = Some(10.0);
        x_v.interval = ci.map(|(low, high)| Interval {
            low,
            high,
            level: 0.95,
            method: "m".into(),
            runs: vec![3, 3],
            apart: false,
        });
        Reproduction::of(&x_v).map(|r| r.status)
    };
    use Reproduced as R;
    assert_eq!(
        with(Status::Pass, 10.2, Some((9.5, 10.9))),
        Some(R::Reproduced)
    );
    assert_eq!(
        with(Status::Pass, 10.2, Some((8.5, 10.9))),
        Some(R::Inconclusive)
    );
    assert_eq!(
        with(Status::Pass, 10.2, Some((9.5, 11.5))),
        Some(R::Inconclusive)
    );
    assert_eq!(
        with(Status::Pass, 12.5, Some((11.5, 13.5))),
        Some(R::NotReproduced)
    );
    assert_eq!(
        with(Status::Fail, 5.0, Some((4.0, 6.0))),
        Some(R::NotReproduced)
    );
    // The band's edges belong to it.
    assert_eq!(
        with(Status::Pass, 10.0, Some((9.0, 11.0))),
        Some(R::Reproduced)
    );
    // One point: held against the band alone.
    assert_eq!(with(Status::Pass, 10.5, None), Some(R::Reproduced));
    assert_eq!(with(Status::Pass, 11.5, None), Some(R::NotReproduced));
    assert_eq!(
        with(Status::NotComparable, 10.0, None),
        Some(R::NotComparable)
    );
    // A point left inconclusive (a run that is not a result) is not held against it.
    assert_eq!(with(Status::Inconclusive, 10.0, None), None);
    assert_eq!(with(Status::NotMeasured, 10.0, None), None);
    // Nor a share in %: 90% would be within 10% of a published 99.97%.
    let mut share = v(Status::Fail);
    share.measured_value = Some(92.0);
    share.published_value = Some(99.97);
    share.unit = UnitOf::of(crate::model::measurement::Unit::Percent);
    assert_eq!(Reproduction::of(&share), None);
    // Nothing measured, or nothing published: nothing to say.
    let mut none = v(Status::Pass);
    none.published_value = Some(10.0);
    assert_eq!(Reproduction::of(&none), None);
    none.measured_value = Some(10.0);
    none.published_value = Some(0.0);
    assert_eq!(Reproduction::of(&none), None);
}

#[test]
fn only_all_pass_exits_zero() {
    assert_eq!(exit_code(&[v(Status::Pass), v(Status::Pass)]), 0);
    assert_eq!(exit_code(&[v(Status::Pass), v(Status::Fail)]), 1);
    assert_eq!(exit_code(&[v(Status::NotMeasured)]), 1);
    assert_eq!(exit_code(&[v(Status::Inconclusive)]), 1);
}
