//! The count at the end of `cargo test`: which tests of this run were skipped, and why.
//! The `it` binary keeps each skip in a file named by its parent process (cargo); cargo
//! runs this binary after it (test binaries run in name order), with the same parent.
//! Its one test prints the count and the reasons and never fails on them: a skip in CI,
//! where everything is installed, already failed the test that skipped.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

fn skips_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skipped")
}

#[test]
fn skipped_tests_are_counted_with_their_reasons() {
    let dir = skips_dir();
    let mine = dir.join(format!("{}.txt", std::os::unix::process::parent_id()));
    let text = std::fs::read_to_string(&mine).unwrap_or_default();
    let _ = std::fs::remove_file(&mine);
    // Files of runs that ended before reaching this binary (a failing test stops cargo).
    let day = std::time::Duration::from_secs(24 * 3600);
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > day);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
    let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for line in text.lines() {
        if let Some((test, why)) = line.split_once('\t') {
            by_reason.entry(why).or_default().push(test);
        }
    }
    let total: usize = by_reason.values().map(Vec::len).sum();
    let mut out = std::io::stderr().lock();
    if total == 0 {
        let _ = writeln!(out, "skipped: none (every test of the run ran)");
        return;
    }
    let _ = writeln!(
        out,
        "skipped: {total} test{} of this run, by reason:",
        if total == 1 { "" } else { "s" }
    );
    for (why, tests) in &mut by_reason {
        tests.sort_unstable();
        let _ = writeln!(out, "  {} x {why}: {}", tests.len(), tests.join(", "));
    }
}
