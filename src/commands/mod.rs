//! One file per subcommand; `main` only dispatches.

pub mod analyze;
pub mod report;
pub mod suites;

use crate::cli::Judging;
use crate::suites::Options;

fn options(j: &Judging) -> Options {
    Options {
        baseline: j.baseline.clone(),
        candidate: j.candidate.clone(),
        sla_gen_tok_s: j.sla_gen_tok_s,
        max_spread: j.max_spread,
    }
}

/// An input was unusable: print why and exit 2.
pub const UNUSABLE: i32 = 2;
