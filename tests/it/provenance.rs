//! Provenance: every verdict, observation, limit and check-next item in `--format json`
//! names the files it used, those files are in the input, and nothing is stated without
//! them: remove each named input in turn and every statement that did not name it stays
//! as it was, while one that stood on it alone becomes unknown or not measured, never
//! another number.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::common::*;

const FOLDERS: [&str; 12] = [
    "samples/storage-published",
    "samples/storage-loopback",
    "samples/kv-cache-published",
    "samples/kv-cache-failing",
    "samples/spdk-raid-published",
    "tests/fixtures/fio",
    "tests/fixtures/fio-shapes",
    "tests/fixtures/kv-ladder-client",
    "tests/fixtures/spdk",
    "tests/fixtures/iostat",
    "tests/fixtures/real-engine/kv-restore",
    "tests/fixtures/real-engine/kv-ladder",
];

/// One statement the tool makes: its kind and key, what it states, and its files.
#[derive(Debug, Clone, PartialEq)]
struct Statement {
    stated: String,
    value: Option<f64>,
    files: Vec<String>,
}

fn str_of(v: &serde_json::Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn files_of(v: &serde_json::Value) -> Vec<String> {
    v["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(String::from))
        .collect()
}

/// Every numeric statement, by `kind key`: verdicts that were judged, observations with
/// a measurement, limits with a bound.
fn statements(v: &serde_json::Value) -> BTreeMap<String, Statement> {
    let mut out = BTreeMap::new();
    for s in v["suites"].as_array().into_iter().flatten() {
        for x in s["verdicts"].as_array().into_iter().flatten() {
            if x["status"] == "not-measured" {
                continue;
            }
            out.insert(
                format!("verdict {}", str_of(&x["id"])),
                Statement {
                    stated: format!("{} {}", str_of(&x["status"]), str_of(&x["measured"])),
                    value: x["measured_value"].as_f64(),
                    files: files_of(x),
                },
            );
        }
        for x in s["observations"].as_array().into_iter().flatten() {
            let m = str_of(&x["measured"]);
            if m == "-" || m.starts_with("unknown") {
                continue;
            }
            out.insert(
                format!("observation {}", str_of(&x["id"])),
                Statement {
                    stated: m,
                    value: None,
                    files: files_of(x),
                },
            );
        }
        for x in s["limits"].as_array().into_iter().flatten() {
            if x["bound_value"].is_null() {
                continue;
            }
            out.insert(
                format!("limit {}", str_of(&x["subject"])),
                Statement {
                    stated: format!("{} · {}", str_of(&x["measured"]), str_of(&x["bound"])),
                    value: x["bound_value"].as_f64(),
                    files: files_of(x),
                },
            );
        }
    }
    out
}

#[test]
fn every_statement_names_files_that_are_in_the_input() {
    for f in FOLDERS {
        let dir = root().join(f);
        let (_, v) = analyze_json(&dir, &[]);
        for (key, s) in statements(&v) {
            assert!(!s.files.is_empty(), "{f}: {key} names no file: {s:?}");
            for file in &s.files {
                let at = if dir.is_file() {
                    dir.clone()
                } else {
                    dir.join(file)
                };
                assert!(at.is_file(), "{f}: {key} names `{file}`, not in the input");
            }
        }
        for s in v["suites"].as_array().into_iter().flatten() {
            for x in s["verdicts"].as_array().into_iter().flatten() {
                for step in x["check_next"].as_array().into_iter().flatten() {
                    assert!(
                        !str_of(&step["source"]).is_empty(),
                        "{f}: advice without its source on {}",
                        x["id"]
                    );
                }
            }
        }
    }
}

/// Removes `file` from a copy of `dir` and analyzes it.
fn without(dir: &Path, file: &str) -> serde_json::Value {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run");
    copy_dir(dir, &d);
    fs::remove_file(d.join(file)).expect("rm");
    let r = run(&["analyze", d.to_str().unwrap_or(""), "--format", "json"]);
    first_analysis(&serde_json::from_str(&r.stdout).unwrap_or_default())
}

#[test]
fn removing_an_input_changes_only_what_named_it_and_never_to_another_number() {
    for f in [
        "samples/storage-published",
        "samples/storage-loopback",
        "samples/kv-cache-published",
        "samples/spdk-raid-published",
    ] {
        let dir = root().join(f);
        let (_, v) = analyze_json(&dir, &[]);
        let before = statements(&v);
        let named: BTreeSet<&String> = before.values().flat_map(|s| &s.files).collect();
        // Every named input of the smaller samples; every third of the larger ones.
        let step = if named.len() > 40 { 3 } else { 1 };
        for file in named.iter().step_by(step) {
            let after = statements(&without(&dir, file));
            for (key, s) in &before {
                let now = after.get(key);
                if !s.files.contains(file) {
                    assert_eq!(
                        now.map(|n| (&n.stated, n.value)),
                        Some((&s.stated, s.value)),
                        "{f}: removing `{file}` changed {key}, which does not name it"
                    );
                } else if s.files.len() == 1 {
                    // Still stated: only from other files it names, and the same
                    // statement (another file gave the same evidence).
                    if let Some(n) = now {
                        assert!(
                            !n.files.contains(file)
                                && !n.files.is_empty()
                                && (n.stated == s.stated || n.value.is_none()),
                            "{f}: {key} stood on `{file}` alone and now states {n:?}"
                        );
                    }
                }
            }
        }
    }
}

/// Every measurement a verdict says it judged is one the analysis measured, from one of
/// the verdict's own files; a verdict that measured nothing names none.
#[test]
fn verdicts_refer_to_measurements_the_analysis_made() {
    let mut linked = 0;
    for f in FOLDERS {
        let (_, v) = analyze_json(&root().join(f), &[]);
        let suites = v["suites"].as_array().cloned().unwrap_or_default();
        let measured: Vec<&serde_json::Value> = suites
            .iter()
            .flat_map(|s| s["measurements"].as_array().into_iter().flatten())
            .collect();
        for verdict in suites
            .iter()
            .flat_map(|s| s["verdicts"].as_array().into_iter().flatten())
        {
            let files = files_of(verdict);
            for key in verdict["measurements"].as_array().into_iter().flatten() {
                linked += 1;
                let hit = measured.iter().find(|m| {
                    ["suite", "subject", "metric"]
                        .iter()
                        .all(|k| m[*k] == key[*k])
                });
                let Some(m) = hit else {
                    panic!(
                        "{f}: {} judged {key}, which nothing measured",
                        verdict["id"]
                    );
                };
                assert!(
                    files_of(m).iter().any(|x| files.contains(x)),
                    "{f}: {} judged {key}, measured from none of its files",
                    verdict["id"]
                );
            }
            if verdict["measured_value"].is_null() {
                assert!(
                    verdict["measurements"]
                        .as_array()
                        .is_none_or(|a| a.is_empty()),
                    "{f}: {} measured nothing but names measurements",
                    verdict["id"]
                );
            }
        }
    }
    assert!(linked > 50, "verdicts name measurements: {linked}");
}
