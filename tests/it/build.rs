//! The build itself: `cargo test` must not compile a second copy of any dependency
//! `cargo build` compiled. That happens when a dev-dependency turns on a feature of a
//! crate the library uses (feature unification): every crate above it, Polars included,
//! is then built twice in each profile.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use crate::common::*;

/// `cargo tree` lines (`name version features`), per package, with the features of
/// each occurrence.
fn tree(edges: &str) -> Option<BTreeMap<String, BTreeSet<String>>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root())
        .args(["tree", "--locked", "--offline", "--prefix", "none"])
        .args(["-e", edges, "-f", "{p}|{f}"])
        .output()
        .ok()?;
    if !out.status.success() {
        skipped(&format!(
            "cargo tree failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
        return None;
    }
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let line = line.trim_end_matches(" (*)");
        let Some((p, f)) = line.split_once('|') else {
            continue;
        };
        // `{p}` ends with the path for path dependencies: the name and version are enough.
        let p = p.split(' ').take(2).collect::<Vec<_>>().join(" ");
        packages.entry(p).or_default().insert(f.to_string());
    }
    Some(packages)
}

#[test]
fn the_test_build_enables_no_feature_the_library_build_does_not() {
    let (Some(library), Some(all)) = (tree("normal,build"), tree("all")) else {
        return;
    };
    assert!(
        library.keys().any(|p| p.starts_with("polars-core ")),
        "the library's tree holds Polars: {:?}",
        library.keys().take(5).collect::<Vec<_>>()
    );
    let mut twice = Vec::new();
    for (package, features) in &library {
        let with_dev = &all[package];
        if with_dev != features {
            twice.push(format!(
                "{package}: library {features:?}, with dev-dependencies {with_dev:?}"
            ));
        }
    }
    assert!(
        twice.is_empty(),
        "these crates would be compiled twice (once for `cargo build`, once for `cargo test`): align the features or drop the dev-dependency:\n{}",
        twice.join("\n")
    );
}
