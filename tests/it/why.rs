//! Why a number is what it is: the reference-setup conformance tables, physical limits
//! and what to check next, on the samples and on a folder made to differ from the
//! reference (tensor parallelism 4, a 50 Gb/s link).

use std::fs;
use std::path::Path;

use crate::common::*;

fn rows(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["conformance"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["rows"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn row<'a>(rows: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no conformance row {id}"))
}

#[test]
fn the_kv_sample_matches_every_reference_row() {
    let (_, v) = analyze_json(&root().join("samples/kv-cache-published"), &[]);
    let rows = rows(&v);
    assert_eq!(rows.len(), 14, "every row of the KV reference-setup table");
    for r in &rows {
        assert_eq!(r["status"], "match", "{r}");
        assert!(
            !r["source"].as_str().unwrap_or("").is_empty(),
            "each value names its file: {r}"
        );
    }
    // No Available KV cache memory line in the sample: the floor is unknown, with the file.
    let floor = limits(&v)
        .into_iter()
        .find(|l| l["suite"] == "kv-restore")
        .expect("restore limit");
    assert!(floor["bound_value"].is_null(), "{floor}");
    assert!(
        floor["bound"]
            .as_str()
            .is_some_and(|b| b.starts_with("unknown") && b.contains("Available KV cache memory")),
        "{floor}"
    );
}

/// A copy of the KV sample whose servers ran with tensor parallelism 4, logged their KV
/// cache memory, and whose link measured 50 Gb/s.
fn tp4_50g(dir: &Path) {
    copy_dir(&root().join("samples/kv-cache-published"), dir);
    for log in ["adp-vllm.log", "gpu-only-vllm.log", "lmcache-vllm.log"] {
        let p = dir.join("logs").join(log);
        let text = fs::read_to_string(&p).expect("as built");
        assert!(text.contains("'tensor_parallel_size': 8"));
        let text = text.replace("'tensor_parallel_size': 8", "'tensor_parallel_size': 4").replacen(
            "(EngineCore pid=412)",
            "(Worker_TP0 pid=413) INFO 11-29 10:02:10 [gpu_worker.py:440] Available KV cache memory: 60.5 GiB\n(EngineCore pid=412)",
            1,
        );
        fs::write(&p, text).expect("as built");
    }
    // The compose files would say 8: what ran (the logs) is what counts, but leave no
    // doubt by removing them.
    fs::remove_dir_all(dir.join("compose")).expect("as built");
    fs::write(
        dir.join("system/ib_read_bw.txt"),
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 65536      1000             50.12              50.00              0.095367\n",
    )
    .expect("as built");
}

#[test]
fn tensor_parallel_4_and_a_50_gbit_link_differ_with_their_effect_and_the_floor() {
    let tmp = tempfile::tempdir().expect("as built");
    tp4_50g(tmp.path());
    let (_, v) = analyze_json(tmp.path(), &[]);
    let rows = rows(&v);
    let tp = row(&rows, "tensor-parallel");
    assert_eq!(tp["status"], "differs", "{tp}");
    assert_eq!(tp["yours"], "4");
    assert!(
        tp["predicts"].as_str().expect("as built").contains("50%"),
        "{tp}"
    );
    let link = row(&rows, "link-gbit");
    assert_eq!(link["status"], "differs", "{link}");
    assert!(link["yours"]
        .as_str()
        .expect("as built")
        .starts_with("50.0 Gb/s"));
    assert!(
        link["predicts"]
            .as_str()
            .expect("as built")
            .contains("floor"),
        "{link}"
    );
    // Without compose files the gateway's log gives the release; without either it is
    // unknown, and says what would give it.
    assert_eq!(row(&rows, "connector-release")["yours"], "6.1.1");
    fs::remove_file(tmp.path().join("logs/adp-gateway.log")).expect("rm");
    let (_, v) = analyze_json(tmp.path(), &[]);
    let rows = self::rows(&v);
    let rel = row(&rows, "connector-release");
    assert_eq!(rel["status"], "unknown");
    assert!(rel["predicts"]
        .as_str()
        .expect("as built")
        .contains("compose"));

    let floor = limits(&v)
        .into_iter()
        .find(|l| l["suite"] == "kv-restore")
        .expect("restore limit");
    // 196,480 cached tokens × 60.5 GiB / 545,536 tokens, over 50 Gb/s.
    let bytes = 196_480.0 * 60.5 * 1024f64.powi(3) / 545_536.0;
    let want = bytes / (50.0e9 / 8.0);
    let got = floor["bound_value"].as_f64().expect("a computed floor");
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    assert!(floor["bound"]
        .as_str()
        .expect("as built")
        .contains("link-bound floor"));
    let files: Vec<&str> = floor["files"]
        .as_array()
        .expect("as built")
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert!(
        files.iter().any(|f| f.starts_with("system/ib_read_bw.txt")),
        "{files:?}"
    );
    assert!(
        files.iter().any(|f| f.starts_with("logs/adp-vllm.log")),
        "{files:?}"
    );
    assert!(!floor["reading"].as_str().expect("as built").is_empty());
}

#[test]
fn every_criterion_not_met_says_what_to_check_next_with_its_source() {
    for sample in [
        "kv-cache-failing",
        "storage-loopback",
        "spdk-raid-published",
    ] {
        let (_, v) = analyze_json(&root().join("samples").join(sample), &[]);
        let mut seen = 0;
        for s in v["suites"].as_array().expect("as built") {
            for verdict in s["verdicts"].as_array().expect("as built") {
                let status = verdict["status"].as_str().expect("as built");
                let next = verdict["check_next"].as_array().expect("as built");
                if ["fail", "inconclusive", "not-comparable"].contains(&status) {
                    seen += 1;
                    assert!(!next.is_empty(), "{sample}: {}", verdict["id"]);
                    for n in next {
                        assert!(!n["text"].as_str().expect("as built").is_empty());
                        assert!(!n["source"].as_str().expect("as built").is_empty(), "{n}");
                    }
                } else {
                    assert!(next.is_empty(), "{sample}: {} is {status}", verdict["id"]);
                }
            }
        }
        assert!(seen > 0, "{sample} has criteria not met");
    }
    // The specific advice, not only the fallback: a restore that missed the card asks
    // whether the gateway was restarted; a connector that switched off names the fallback.
    let (_, v) = analyze_json(&root().join("samples/kv-cache-failing"), &[]);
    let text = v.to_string();
    assert!(text.contains("docker compose restart vllm"));
    assert!(text.contains("the connector fell back"));
    let (_, v) = analyze_json(&root().join("samples/storage-loopback"), &[]);
    assert!(v
        .to_string()
        .contains("Rerun the jobs with the procedure's --runtime"));
}

#[test]
fn storage_limits_say_whether_the_drives_were_the_ceiling() {
    let (_, v) = analyze_json(&root().join("samples/storage-loopback"), &[]);
    let l = limits(&v);
    assert!(l.len() >= 12, "one per job and array: {}", l.len());
    for x in &l {
        let reading = x["reading"].as_str().expect("as built");
        assert!(
            reading.contains("ceiling")
                || reading.contains("headroom")
                || x["bound"]
                    .as_str()
                    .expect("as built")
                    .starts_with("unknown"),
            "{x}"
        );
        assert!(x["bound_value"].as_f64().is_some_and(|b| b > 0.0), "{x}");
    }
    // The loopback drives are loop devices: the conformance row says so.
    let rows = rows(&v);
    let drives = row(&rows, "drives");
    assert_eq!(drives["status"], "differs");
    assert!(drives["yours"].as_str().expect("as built").contains("loop"));
}

#[test]
fn the_report_has_the_three_sections() {
    let tmp = tempfile::tempdir().expect("as built");
    let out = tmp.path().join("out");
    let r = run(&[
        "report",
        root()
            .join("samples/kv-cache-failing")
            .to_str()
            .expect("as built"),
        "-o",
        out.to_str().expect("as built"),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = fs::read_to_string(out.join("report.md")).expect("as built");
    for h in [
        "## What to check next",
        "## Conformance with the reference setup",
        "## Physical limits",
    ] {
        assert!(md.contains(h), "{h}");
    }
    assert!(md.contains("| Tensor parallelism | 8 | 8 | match |"));
    let Some(typst) = pdf_tools() else {
        return;
    };
    let typ = tmp.path().join("typ");
    let r = run(&[
        "report",
        root()
            .join("samples/kv-cache-failing")
            .to_str()
            .expect("as built"),
        "-o",
        typ.to_str().expect("as built"),
        "--typst",
        typst.to_str().expect("as built"),
    ]);
    let text = pdf_text(&typ.join("report.pdf")).unwrap_or_else(|| panic!("a PDF: {}", r.stderr));
    assert!(text.contains("What to check next"), "{}", r.stderr);
    assert!(text.contains("Conformance with the reference setup"));
    assert!(text.contains("Physical limits"));
}
