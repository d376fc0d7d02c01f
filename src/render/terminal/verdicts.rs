//! The verdicts' table and the colour of a status word, shared by the summary and the detail.

use crate::model::verdict::Status;
use crate::output::{Paint, Styled};
use crate::suites::SuiteReport;

use super::layout::{aligned_into, Fit};

/// How a status word is coloured.
pub(super) fn paint_of(status: Status) -> Paint {
    match status {
        Status::Pass => Paint::Good,
        Status::Fail => Paint::Bad,
        Status::NotMeasured | Status::Inconclusive | Status::NotComparable => Paint::Warn,
    }
}

pub(super) fn verdict_table(
    out: &mut Styled,
    s: &SuiteReport,
    order: &[usize],
    width: Option<usize>,
) {
    let columns: Vec<String> = ["status", "criterion", "measured", "threshold", "published"]
        .map(String::from)
        .to_vec();
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|&i| {
            let v = &s.verdicts[i];
            vec![
                v.status.label().to_string(),
                v.criterion.clone(),
                v.measured.to_string(),
                v.threshold.to_string(),
                v.published.to_string(),
            ]
        })
        .collect();
    // What a reader needs most stays whole longest: the status, then what was measured,
    // then the criterion; the published figure and the threshold give way first.
    let fit = Fit {
        width,
        give_way: &[(4, 14), (3, 12), (1, 36)],
    };
    aligned_into(out, &columns, &rows, fit, |r, c| {
        (c == 0).then(|| paint_of(s.verdicts[order[r]].status))
    });
}
