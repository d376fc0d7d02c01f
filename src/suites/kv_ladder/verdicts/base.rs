//! The verdict every test 2 criterion starts from, and the verdict of a level without
//! medians for both variants.

// The suite's imports, which the criteria used before the split.
use super::super::*;

pub(crate) fn base(id: String, criterion: String) -> Verdict {
    Verdict::new(
        id,
        criterion,
        "-",
        "pass criteria only (synthetic workload)",
    )
}

/// A level without medians for both variants: failed when a run of it failed (a failing
/// run is never averaged away, and never left unjudged), else not measured.
pub(super) fn no_medians(mut v: Verdict, agg: &Aggregate, n: u32) -> Verdict {
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    if failing.is_empty() {
        v.note = Phrase::words(format!(
            "needs the {n}-client level of both adp and gpu-only with records"
        ));
    } else {
        v.status = Status::Fail;
        v.note = Phrase::words(format!(
            "a run of this level failed: {}; {}",
            failing.join("; "),
            fed_by(agg, &[ADP, PLAIN], n)
        ));
    }
    v
}
