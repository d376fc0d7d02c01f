//! The procedure's pass criteria: the five headline ratios and "every fio job exits with
//! status 0".

mod exit;
mod headline;
mod notes;
mod pooled;
mod runs;

pub use exit::clean_exit_verdict;
pub use headline::{headline_verdict, mb_s};
pub use runs::{find_workload, workload_signature};

use super::reference::Reference;
// The sibling module the parts (`runs`, `exit`) name as `super::load::...`.
use super::load;

/// Which array folders are compared: names from the user or the procedure.
#[derive(Debug, Clone)]
pub struct Sides {
    pub baseline: String,
    pub candidate: String,
}

/// The sides to compare: the user's names, else the procedure's (`raid10`, `adp`).
pub fn sides(reference: &Reference, baseline: Option<&str>, candidate: Option<&str>) -> Sides {
    Sides {
        baseline: baseline.unwrap_or(&reference.arrays.baseline).to_string(),
        candidate: candidate.unwrap_or(&reference.arrays.candidate).to_string(),
    }
}
