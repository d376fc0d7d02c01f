//! Whether the run reached the regime its verdicts are about, measured: the KV ladder's
//! active histories against the server's KV cache, and the connector engaged only by its
//! card hits where the GPU cache could not hold the histories.

use std::fs;
use std::path::Path;

use crate::common::*;

/// The rows of the first table whose title starts with `title`, as text.
fn table_rows(v: &serde_json::Value, title: &str) -> Vec<Vec<String>> {
    in_suites(v, "tables")
        .find(|t| t["title"].as_str().is_some_and(|x| x.starts_with(title)))
        .and_then(|t| t["rows"].as_array())
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    r.as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| c.as_str().unwrap_or_default().to_string())
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn regime_rows(v: &serde_json::Value) -> Vec<Vec<String>> {
    table_rows(v, "Active histories")
}

fn times(cell: &str) -> f64 {
    cell.trim_end_matches('x').parse().unwrap_or(f64::NAN)
}

/// A copy of the published KV sample, changed by `edit`.
fn copy_of_sample(edit: impl FnOnce(&Path)) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_dir(&root().join("samples/kv-cache-published"), tmp.path());
    edit(tmp.path());
    tmp
}

#[test]
fn the_kv_sample_reaches_the_procedures_regime() {
    let (_, v) = analyze_json(&root().join("samples/kv-cache-published"), &[]);
    let rows = regime_rows(&v);
    assert!(rows.len() >= 12, "a row per level and variant: {rows:?}");
    // "active histories fill the GPU KV cache at 8 clients, and reach 2x and 4x the GPU
    // cache size at 16 and 32 clients"
    for (clients, stated) in [("8", 1.0), ("16", 2.0), ("32", 4.0)] {
        for variant in ["adp", "gpu-only"] {
            let row = rows
                .iter()
                .find(|r| r[0] == clients && r[1] == variant)
                .unwrap_or_else(|| panic!("no row for {variant} at {clients}: {rows:?}"));
            assert_eq!(row[5], "545,536 (GPU)", "{row:?}");
            let peak = times(&row[6]);
            assert!(
                peak > 0.8 * stated && peak < 1.4 * stated,
                "{variant} at {clients} clients: peak {peak}x, stated about {stated}x"
            );
        }
    }
    for id in [
        "kv-ladder.L16-advantage",
        "kv-ladder.L32-advantage",
        "kv-ladder.engaged",
    ] {
        assert_eq!(verdict(&v, id)["status"], "pass", "{id}");
    }
}

#[test]
fn a_kv_cache_four_times_larger_leaves_the_large_levels_not_comparable() {
    let tmp = copy_of_sample(|dir| {
        for variant in ["adp", "gpu-only", "lmcache"] {
            let log = dir.join(format!("logs/{variant}-vllm.log"));
            let text = fs::read_to_string(&log).expect("log");
            assert!(text.contains("GPU KV cache size: 545,536 tokens"));
            fs::write(&log, text.replace("545,536 tokens", "2,182,144 tokens")).expect("write");
        }
    });
    let (code, v) = analyze_json(tmp.path(), &[]);
    assert_eq!(code, 1);
    for n in [16, 32] {
        let x = verdict(&v, &format!("kv-ladder.L{n}-advantage"));
        assert_eq!(x["status"], "not-comparable", "L{n}: {x}");
        assert!(
            note(&x).contains("fit in the KV cache"),
            "L{n} says why: {}",
            note(&x)
        );
    }
    let rows = regime_rows(&v);
    let at32 = rows
        .iter()
        .find(|r| r[0] == "32" && r[1] == "gpu-only")
        .expect("row");
    assert!(
        times(&at32[7]) < 1.0,
        "mean under the larger cache: {at32:?}"
    );
    let devs: Vec<String> = v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["deviations"].as_array().into_iter().flatten())
        .map(|d| format!("{} = {}", d["parameter"], d["ran"]))
        .collect();
    assert!(
        devs.iter()
            .any(|d| d.contains("active histories (16 clients)") && d.contains("2,182,144")),
        "the numbers are in the deviation: {devs:?}"
    );
    // The same, typed on the model: the qualifier beside the verdict it qualifies.
    let q = v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["qualifiers"].as_array().into_iter().flatten())
        .find(|q| q["subject"] == "gpu-only · 16 clients")
        .cloned()
        .unwrap_or_default();
    assert_eq!(q["what"], "regime", "{q}");
    assert_eq!(q["outcome"], "not-met", "{q}");
    assert_eq!(q["expected"], 2.0, "{q}");
    assert!(q["value"].as_f64().is_some_and(|m| m < 1.0), "{q}");
    assert_eq!(q["verdicts"][0], "kv-ladder.L16-advantage", "{q}");
    // The parity levels do not depend on the regime.
    assert_eq!(verdict(&v, "kv-ladder.L4-parity")["status"], "pass");
    assert_eq!(verdict(&v, "kv-ladder.engaged")["status"], "not-comparable");
}

#[test]
fn a_connector_with_no_card_hits_past_the_cache_fails_engaged() {
    let tmp = copy_of_sample(|dir| {
        for run in [1, 2] {
            for n in [16, 32] {
                let stem = dir.join(format!("results/adp-{run}-L{n}"));
                let pre = fs::read_to_string(stem.with_extension("pre.prom")).expect("pre");
                let post = fs::read_to_string(stem.with_extension("post.prom")).expect("post");
                let hits = |text: &str| {
                    text.lines()
                        .find(|l| l.starts_with("vllm:external_prefix_cache_hits_total{"))
                        .map(str::to_string)
                        .expect("hits line")
                };
                fs::write(
                    stem.with_extension("post.prom"),
                    post.replace(&hits(&post), &hits(&pre)),
                )
                .expect("write");
            }
        }
    });
    let (_, v) = analyze_json(tmp.path(), &[]);
    let e = verdict(&v, "kv-ladder.engaged");
    assert_eq!(e["status"], "fail", "{e}");
    assert_eq!(e["measured_value"], 0.0);
    assert!(note(&e).contains("16, 32"), "{}", note(&e));
}

fn steady_rows(v: &serde_json::Value) -> Vec<Vec<String>> {
    table_rows(v, "Steady state")
}

#[test]
fn the_loopback_sample_is_too_short_for_a_steady_state_and_says_so() {
    let (_, v) = analyze_json(&root().join("samples/storage-loopback"), &[]);
    let rows = steady_rows(&v);
    let row = rows
        .iter()
        .find(|r| r[0] == "adp/randwrite-8k-j8-d8")
        .unwrap_or_else(|| panic!("a row per job: {rows:?}"));
    assert_eq!(row[6], "too few samples", "{row:?}");
    let x = verdict(&v, "storage.randwrite-8k-qd64");
    assert_eq!(x["status"], "not-comparable");
    assert!(
        note(&x).contains("too few for a steady-state window"),
        "the short run is judged by its series: {}",
        note(&x)
    );
}

/// A real fio job of 30 s on a loop device, with the collector's iostat beside it: the
/// steady-state row is computed from that series (steady or not, never too few).
#[test]
fn a_real_30_second_fio_run_gets_a_steady_state_row_from_its_iostat_series() {
    if !need("fio") || !need("iostat") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(dev) = loop_device(&tmp.path().join("dev.img"), 64, &[]) else {
        return;
    };
    let out = tmp.path().join("results");
    let r = collect_storage(
        dev.0.to_str().unwrap_or(""),
        &out,
        &[
            "--size",
            "32m",
            "--runtime",
            "30",
            "--time-based",
            "--only",
            "randwrite-8k-j8-d8",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (_, v) = analyze_json(&out, &[]);
    let rows = steady_rows(&v);
    let row = rows
        .iter()
        .find(|r| r[0] == "raid10/randwrite-8k-j8-d8")
        .unwrap_or_else(|| panic!("a row for the job: {rows:?}"));
    let active: usize = row[1].parse().unwrap_or(0);
    assert!(active >= 25, "about 30 active seconds: {row:?}");
    assert!(row[2].contains('-'), "a window: {row:?}");
    assert!(
        row[6] == "steady" || row[6] == "not steady",
        "judged from the series: {row:?}"
    );
    assert_eq!(row[7], "raid10/iostat/randwrite-8k-j8-d8.iostat");
    let q = v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["qualifiers"].as_array().into_iter().flatten())
        .find(|q| q["subject"] == "raid10/randwrite-8k-j8-d8")
        .cloned()
        .unwrap_or_default();
    assert_eq!(q["what"], "steady-state", "{q}");
    assert!(q["value"].as_f64().is_some(), "the range, typed: {q}");
    assert_ne!(q["outcome"], "unknown", "{q}");
}

/// fio's own bandwidth logs (`--write_bw_log --log_avg_msec=1000`) stand in for the
/// iostat series when a run has none: a real fio job of 12 s with two per-job logs.
#[test]
fn fio_bandwidth_logs_give_the_series_when_there_is_no_iostat() {
    if !need("fio") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("results/raid10");
    fs::create_dir_all(&dir).expect("mkdir");
    let name = "randwrite-8k-j8-d8";
    let out = std::process::Command::new("fio")
        .current_dir(&dir)
        .args([
            &format!("--name={name}"),
            &format!("--filename={}", tmp.path().join("dev.img").display()),
            "--size=16m",
            "--rw=randwrite",
            "--bs=8k",
            "--numjobs=2",
            "--iodepth=4",
            "--ioengine=psync",
            "--runtime=12",
            "--time_based",
            "--group_reporting=1",
            &format!("--write_bw_log={name}"),
            "--log_avg_msec=1000",
            "--output-format=json",
            &format!("--output={name}.json"),
        ])
        .output()
        .expect("fio runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join(format!("{name}_bw.1.log")).is_file());
    let (_, v) = analyze_json(&tmp.path().join("results"), &[]);
    let rows = steady_rows(&v);
    let row = rows
        .iter()
        .find(|r| r[0] == format!("raid10/{name}"))
        .unwrap_or_else(|| panic!("a row from fio's logs: {rows:?}"));
    let active: usize = row[1].parse().unwrap_or(0);
    assert!(active >= 10, "{row:?}");
    assert!(row[6] == "steady" || row[6] == "not steady", "{row:?}");
    assert!(
        row[7].contains(&format!("{name}_bw.1.log"))
            && row[7].contains(&format!("{name}_bw.2.log")),
        "both jobs' logs: {row:?}"
    );
    let read = v["suites"].to_string();
    assert!(
        read.contains(&format!("raid10/{name}_bw.2.log")),
        "the logs are among the files read"
    );
    assert!(
        !v["skipped"].to_string().contains("_bw."),
        "none skipped: {}",
        v["skipped"]
    );
}

/// The collector's nvidia-smi series beside a level is read and plotted. No GPU here:
/// the file is written in the format nvidia-smi's `--format=csv -l 1` prints.
#[test]
fn an_nvidia_smi_series_beside_a_level_is_plotted() {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_dir(
        &root().join("tests/fixtures/real-engine/kv-ladder"),
        tmp.path(),
    );
    let mut csv = "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"
        .to_string();
    for s in 0..5 {
        for gpu in 0..2 {
            csv += &format!(
                "2026/12/01 10:00:0{s}.250, {gpu}, {} %, {} MiB, 143771 MiB\n",
                60 + 5 * s,
                70000 + 100 * s
            );
        }
    }
    fs::write(tmp.path().join("results/adp-1-L4.gpu.csv"), csv).expect("write");
    let (_, v) = analyze_json(tmp.path(), &[]);
    let chart = v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["charts"].as_array().into_iter().flatten())
        .find(|c| c["id"] == "kv-ladder-L4-gpus")
        .cloned()
        .unwrap_or_else(|| panic!("a GPU chart at 4 clients"));
    assert_eq!(chart["series"][0]["name"], "adp GPU util");
    assert_eq!(chart["series"][0]["values"][4], 80.0, "{chart}");
    assert!(
        !v["skipped"].to_string().contains("gpu.csv"),
        "{}",
        v["skipped"]
    );
}
