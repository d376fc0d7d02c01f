//! `analyze --format json` has one shape, whatever the inputs: an object with the schema
//! version, every input in the order given (its analysis, or why there is none), and the
//! trend when asked. Every sample's and fixture's output, and the runs with a failing
//! input, a dataset and a trend, are checked against docs/analyze.schema.json by an
//! independent validator (Python's jsonschema).

use std::path::PathBuf;

use crate::common::*;

fn json(args: &[&str]) -> serde_json::Value {
    let r = run(args);
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: stdout is JSON ({e}): {}\n{}", r.stdout, r.stderr))
}

/// Every results folder and file the samples and fixtures hold.
fn inputs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("samples"))
        .expect("samples")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    for f in [
        "tests/fixtures/fio-shapes",
        "tests/fixtures/fio/status-interval.json",
        "tests/fixtures/iostat",
        "tests/fixtures/kv-ladder-client",
        "tests/fixtures/spdk",
        "tests/fixtures/real-engine",
    ] {
        let p = root().join(f);
        if p.exists() {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn every_output_has_one_shape_and_follows_the_published_schema() {
    let tmp = tempfile::tempdir().expect("tmp");
    let garbage = garbage_folder(tmp.path());
    let s = |p: &std::path::Path| p.to_str().unwrap_or("").to_string();
    let mut runs: Vec<(Vec<String>, serde_json::Value)> = Vec::new();
    for input in inputs() {
        let args = vec![
            "analyze".to_string(),
            s(&input),
            "--format".into(),
            "json".into(),
        ];
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        runs.push((args.clone(), json(&refs)));
    }
    let a = s(&root().join("samples/storage-published"));
    let b = s(&root().join("samples/storage-loopback"));
    for args in [
        vec!["analyze", &a, "/nonexistent/input", "--format", "json"],
        vec!["analyze", "/nonexistent/input", "--format", "json"],
        vec!["analyze", &a, &s(&garbage), &b, "--format", "json"],
        vec!["analyze", &a, &b, "--trend", "--format", "json"],
        vec!["analyze", &a, "--trend", "--format", "json"],
    ] {
        runs.push((args.iter().map(|x| x.to_string()).collect(), json(&args)));
    }
    for (args, v) in &runs {
        assert_eq!(v["schema_version"], 4, "{args:?}");
        let given = args[1..]
            .iter()
            .take_while(|a| !a.starts_with("--"))
            .count();
        let listed = v["inputs"].as_array().expect("inputs");
        assert_eq!(listed.len(), given, "{args:?}: every input listed");
        for (i, entry) in listed.iter().enumerate() {
            assert_eq!(entry["input"], args[1 + i].as_str(), "{args:?}: in order");
            let has = |k: &str| entry.get(k).is_some();
            assert!(
                has("analysis") ^ has("error"),
                "{args:?}: an analysis or an error: {entry}"
            );
        }
        assert_eq!(
            v.get("trend").is_some(),
            args.contains(&"--trend".to_string()) && given >= 2,
            "{args:?}"
        );
    }
    let mixed = &runs[runs.len() - 3].1;
    assert!(mixed["inputs"][1]["error"]
        .as_str()
        .is_some_and(|e| e.contains("no results any suite can read")));
    assert!(mixed["inputs"][2]["analysis"]["suites"].is_array());

    let Some(py) = python_with("REPROBENCH_JSONSCHEMA_PYTHON", "jsonschema") else {
        assert!(!everything_installed(), "CI installs Python's jsonschema");
        skipped(
            "Python with jsonschema missing: the outputs were not validated against the schema",
        );
        return;
    };
    let outputs = tmp.path().join("outputs");
    std::fs::create_dir_all(&outputs).expect("dir");
    for (i, (_, v)) in runs.iter().enumerate() {
        std::fs::write(outputs.join(format!("{i}.json")), v.to_string()).expect("write");
    }
    let check = std::process::Command::new(&py)
        .arg("-c")
        .arg(
            "import json, sys, pathlib, jsonschema\n\
             schema = json.load(open(sys.argv[1]))\n\
             jsonschema.Draft202012Validator.check_schema(schema)\n\
             v = jsonschema.Draft202012Validator(schema)\n\
             bad = 0\n\
             for p in sorted(pathlib.Path(sys.argv[2]).glob('*.json')):\n\
             \x20   for e in v.iter_errors(json.load(open(p))):\n\
             \x20       bad += 1; print(p.name, list(e.absolute_path), e.message[:300])\n\
             sys.exit(1 if bad else 0)\n",
        )
        .arg(root().join("docs/analyze.schema.json"))
        .arg(&outputs)
        .output()
        .expect("python");
    assert!(
        check.status.success(),
        "outputs that break the schema:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}
