//! Differential tests: the ladder medians and the storage ratios the verdicts stand on,
//! computed again by `tests/differential/independent.py` (written from the procedures'
//! text, not from the suites' code) over the raw files, agree with `analyze --export` on
//! every sample, on the hand-made folders of the evidence tests, and on mutated copies
//! made by the fuzz harness's mutator.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;
use crate::fuzz::{mutate, Rng};

/// (key, metric) -> value.
type Numbers = BTreeMap<(String, String), f64>;

fn independent(what: &str, dir: &Path, excluded: &[String]) -> Numbers {
    // The files analyze could not read are left out of the independent side too: this
    // test is about which runs feed a number and the arithmetic, not about parsing.
    let work = tempfile::tempdir().expect("tmp");
    let copy = work.path().join("d");
    copy_dir(dir, &copy);
    for f in excluded {
        let _ = fs::remove_file(copy.join(f));
    }
    let out = std::process::Command::new("python3")
        .arg(root().join("tests/differential/independent.py"))
        .arg(what)
        .arg(&copy)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut n = Numbers::new();
    for (k, x) in v.as_object().into_iter().flatten() {
        match x {
            serde_json::Value::Object(m) => {
                for (metric, y) in m {
                    if let Some(y) = y.as_f64() {
                        n.insert((k.clone(), metric.clone()), y);
                    }
                }
            }
            y => {
                if let Some(y) = y.as_f64() {
                    n.insert((k.clone(), "ratio".into()), y);
                }
            }
        }
    }
    n
}

/// A CSV the exporter wrote, as header -> value rows (values have no commas in the
/// columns read here).
fn csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let Ok(text) = fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(String::from)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// What reprobench computed, from `--export`, and the files it skipped.
fn ours(dir: &Path) -> (Numbers, Numbers, Vec<String>) {
    let out = tempfile::tempdir().expect("tmp");
    let r = run(&[
        "analyze",
        dir.to_str().unwrap_or(""),
        "--format",
        "json",
        "--export",
        out.path().to_str().unwrap_or(""),
    ]);
    let v = first_analysis(&serde_json::from_str(&r.stdout).unwrap_or_default());
    let skipped: Vec<String> = v["skipped"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["file"].as_str().map(String::from))
        .collect();
    let mut ladder = Numbers::new();
    for row in csv(&out.path().join("ladder_medians.csv")) {
        let key = format!("{}/{}", row["variant"], row["clients"]);
        for m in ["output_tok_s", "ttft_p50_s", "gen_tok_s", "gpu_hit_pct"] {
            if let Some(x) = row.get(m).and_then(|x| x.parse::<f64>().ok()) {
                ladder.insert((key.clone(), m.to_string()), x);
            }
        }
    }
    let mut storage = Numbers::new();
    for x in v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["name"] == "storage")
    {
        for verdict in x["verdicts"].as_array().into_iter().flatten() {
            // The two fio results (a short run's verdict also names the iostat series
            // its runtime was judged by).
            let files: Vec<serde_json::Value> = verdict["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|f| f.as_str().is_some_and(|f| f.ends_with(".json")))
                .cloned()
                .collect();
            let (Some(ratio), [b, c]) = (verdict["measured_value"].as_f64(), files.as_slice())
            else {
                continue;
            };
            let job = |f: &serde_json::Value| {
                f.as_str()
                    .unwrap_or("")
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .trim_end_matches(".json")
                    .to_string()
            };
            if verdict["unit"] == "x" && job(b) == job(c) {
                storage.insert((job(b), "ratio".into()), ratio);
            }
        }
    }
    (ladder, storage, skipped)
}

fn agree(what: &str, dir: &Path, ours: &Numbers, theirs: &Numbers) -> Result<(), String> {
    let keys: std::collections::BTreeSet<&(String, String)> =
        ours.keys().chain(theirs.keys()).collect();
    for k in keys {
        match (ours.get(k), theirs.get(k)) {
            (Some(a), Some(b)) if (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0) => {}
            (a, b) => {
                return Err(format!(
                    "{what} in `{}`: {k:?}: reprobench {a:?}, independent {b:?}",
                    dir.display()
                ))
            }
        }
    }
    Ok(())
}

fn check(dir: &Path) -> Result<(), String> {
    let (ladder, storage, skipped) = ours(dir);
    agree(
        "ladder medians",
        dir,
        &ladder,
        &independent("ladder", dir, &skipped),
    )?;
    // The storage ratios: only the procedure's folder layout, which the script reads.
    if dir.join("results/raid10").is_dir() {
        agree(
            "storage ratios",
            dir,
            &storage,
            &independent("storage", dir, &skipped),
        )?;
    }
    Ok(())
}

const SAMPLES: [&str; 4] = [
    "samples/kv-cache-published",
    "samples/kv-cache-failing",
    "samples/storage-published",
    "samples/storage-loopback",
];

#[test]
fn medians_and_ratios_agree_with_an_independent_computation_on_every_sample() {
    if !need("python3") {
        return;
    }
    for s in SAMPLES {
        check(&root().join(s)).unwrap_or_else(|e| panic!("{e}"));
    }
    // And on the evidence cases: a failing run, an early stop, a run set aside.
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("kv");
    copy_dir(&root().join("samples/kv-cache-published"), &d);
    let log = d.join("results/gpu-only-2-L2.log");
    let t = fs::read_to_string(&log).expect("r");
    fs::write(&log, t.replacen("num_failures=0", "num_failures=5", 1)).expect("w");
    let log = d.join("results/adp-1-L4.log");
    let t = fs::read_to_string(&log).expect("r");
    fs::write(
        &log,
        format!("{t}x [INFO] - Sending termination signal to clients\n"),
    )
    .expect("w");
    check(&d).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn medians_and_ratios_agree_on_mutated_folders() {
    if !need("python3") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let mut rng = Rng(0x00d1_ff00_0001);
    let rounds: usize = std::env::var("REPROBENCH_DIFF_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    for i in 0..rounds {
        let s = SAMPLES[rng.below(SAMPLES.len())];
        let d = tmp.path().join(format!("m{i}"));
        copy_dir(&root().join(s), &d);
        let mut list: Vec<PathBuf> = Vec::new();
        list_files(&d, &mut list);
        list.retain(|p| {
            let n = p.to_string_lossy();
            (n.ends_with(".json") || n.ends_with(".log") || n.ends_with(".prom"))
                && n.contains("/results/")
        });
        let file = &list[rng.below(list.len())];
        let (bytes, what) = mutate(&mut rng, &fs::read(file).expect("read"));
        fs::write(file, &bytes).expect("write");
        if let Err(e) = check(&d) {
            panic!("round {i}: `{}` ({what}): {e}", file.display());
        }
    }
}

fn list_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("ls").flatten() {
        let p = e.path();
        if p.is_dir() {
            list_files(&p, out);
        } else {
            out.push(p);
        }
    }
}
