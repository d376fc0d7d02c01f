//! One file per subcommand; `main` only dispatches.

pub mod analyze;
pub mod bundle;
pub mod collect;
pub mod report;
pub mod spdk;
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

/// Analyzes a folder, or a support bundle (`.tar.gz`) unpacked into a private folder.
pub fn analyze_input(
    input: &std::path::Path,
    opts: &Options,
) -> anyhow::Result<crate::analysis::Analysis> {
    if crate::bundle::is_bundle(input) {
        let unpacked = crate::bundle::unpack(input)?;
        let mut a = crate::analysis::analyze(&unpacked.results_dir(), opts)?;
        a.input = input.display().to_string();
        return Ok(a);
    }
    Ok(crate::analysis::analyze(input, opts)?)
}

/// An input was unusable: print why and exit 2.
pub const UNUSABLE: i32 = 2;
