//! One file per subcommand; `main` only dispatches.

pub mod analyze;
pub mod bundle;
pub mod collect;
pub mod collect_kv;
pub mod command_line;
pub mod compare;
pub mod dataset;
pub mod report;
pub mod shell_files;
pub mod suites;

use crate::cli::Judging;
use crate::suites::Options;

fn options(j: &Judging) -> Options {
    Options {
        baseline: j.baseline.clone(),
        candidate: j.candidate.clone(),
        sla_gen_tok_s: j.sla_gen_tok_s,
        max_spread: j.max_spread,
        frames: false,
    }
}

/// Analyzes a folder, or a support bundle (`.tar.gz`) unpacked into a private folder.
pub fn analyze_input(
    input: &std::path::Path,
    opts: &Options,
) -> anyhow::Result<crate::analysis::Analysis> {
    crate::analysis::run_input(input, opts).map(|r| r.analysis)
}

/// An input was unusable: print why and exit 2.
pub use crate::error::UNUSABLE;

/// Refuses an output path inside the input folder: a results folder is evidence and is
/// never written to.
pub fn outside_input(input: &std::path::Path, output: &std::path::Path) -> Result<(), String> {
    let canon = |p: &std::path::Path| -> Option<std::path::PathBuf> {
        // The output may not exist yet: resolve its nearest existing ancestor.
        let mut probe = p.to_path_buf();
        let mut rest = Vec::new();
        loop {
            if let Ok(c) = probe.canonicalize() {
                let mut c = c;
                for r in rest.iter().rev() {
                    c.push(r);
                }
                return Some(c);
            }
            let name = probe.file_name()?.to_os_string();
            rest.push(name);
            if !probe.pop() || probe.as_os_str().is_empty() {
                probe = std::path::PathBuf::from(".");
            }
        }
    };
    match (input.is_dir().then(|| canon(input)).flatten(), canon(output)) {
        (Some(i), Some(o)) if o.starts_with(&i) => Err(format!(
            "`{}` is inside the results folder `{}`; write it elsewhere (the results folder is never modified)",
            output.display(),
            input.display()
        )),
        _ => Ok(()),
    }
}
