//! What a dry run and a replay print: each step's commands with whose they are, how they
//! differ from the procedure, and what the guard would check first.

use super::progress::duration;
use super::step::Step;

/// The dry run of a list of steps: each one's commands, expanded, and what the guard
/// would check before it.
/// The comment lines above a step's commands: whose command it is and how it differs
/// from the procedure's line (a dry run and a replay print the same).
pub fn print_origin(origin: &str, differs: &[String]) {
    if !origin.is_empty() {
        crate::outln!("#   {origin}");
    }
    for d in differs {
        crate::outln!("#   differs from the procedure: {d}");
    }
}

pub fn print_dry_run(steps: &[Step], expanded: impl Fn(&Step) -> String) {
    let total: u64 = steps.iter().map(|s| s.estimate_s).sum();
    crate::outln!(
        "# dry run: nothing runs and nothing is written; {} steps, about {}:",
        steps.len(),
        duration(total)
    );
    for s in steps {
        crate::outln!("\n# {}", s.name);
        print_origin(&s.origin.describe(), &s.differs);
        if let Some(w) = &s.when {
            crate::outln!("#   only if {}", w.says);
        }
        for w in &s.writes {
            crate::outln!(
                "#   the guard checks `{}` first: not mounted, not swap, not held by md/dm/LVM; a signature{} needs --confirm-device",
                w.dev.display(),
                w.expect.map(|e| format!(" other than {e}")).unwrap_or_default()
            );
        }
        crate::out!("{}", expanded(s));
    }
}
