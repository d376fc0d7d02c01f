//! `reprobench compare` and `analyze --trend`: the direction of every change, the
//! threshold, the noise rule, unmatched measurements, bundles as inputs, the exit status.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;

fn compare_json(base: &[&Path], new: &[&Path], extra: &[&str]) -> (i32, serde_json::Value) {
    let mut args: Vec<String> = vec!["compare".into()];
    if base.len() == 1 && new.len() == 1 {
        args.push(base[0].display().to_string());
        args.push(new[0].display().to_string());
    } else {
        args.push("--base".into());
        args.extend(base.iter().map(|p| p.display().to_string()));
        args.push("--new".into());
        args.extend(new.iter().map(|p| p.display().to_string()));
    }
    args.extend(["--format".to_string(), "json".to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&refs);
    let v = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("JSON ({e}): {}\n{}", r.stdout, r.stderr));
    (r.code, v)
}

fn rows(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["rows"].as_array().cloned().unwrap_or_default()
}

fn change_of(v: &serde_json::Value, suite: &str, subject: &str, metric: &str) -> String {
    rows(v)
        .into_iter()
        .find(|r| r["suite"] == suite && r["subject"] == subject && r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {suite} / {subject} / {metric}"))["change"]
        .as_str()
        .expect("a change")
        .to_string()
}

/// A copy of the KV sample with the ADP variant's 16-client level 25% slower in both runs:
/// every request's times and the gaps between starts stretched by 1.25.
fn slowed_copy(dir: &Path) -> PathBuf {
    copy_dir(&root().join("samples/kv-cache-published"), dir);
    for run in [1, 2] {
        let p = dir.join(format!("results/adp-{run}-L16.json"));
        let mut v: serde_json::Value =
            serde_json::from_slice(&fs::read(&p).expect("records")).expect("JSON");
        let recs = v.as_array_mut().expect("a list");
        let t0 = recs
            .iter()
            .filter_map(|r| r["start_time_ms"].as_f64())
            .fold(f64::INFINITY, f64::min);
        for r in recs.iter_mut() {
            let s = r["start_time_ms"].as_f64().expect("start");
            r["start_time_ms"] = serde_json::json!(t0 + (s - t0) * 1.25);
            for k in ["latency_ms", "ttft_ms", "tpot_ms"] {
                let x = r[k].as_f64().expect(k);
                r[k] = serde_json::json!(x * 1.25);
            }
        }
        fs::write(&p, serde_json::to_vec(&v).expect("bytes")).expect("write");
    }
    dir.to_path_buf()
}

#[test]
fn a_folder_against_itself_is_no_change_everywhere() {
    for sample in [
        "storage-published",
        "kv-cache-published",
        "spdk-raid-published",
    ] {
        let p = root().join("samples").join(sample);
        let (code, v) = compare_json(&[&p], &[&p], &[]);
        assert_eq!(code, 0, "{sample}");
        let rows = rows(&v);
        assert!(rows.len() > 10, "{sample}: {} rows", rows.len());
        // Never better or worse; no change where the interval is within the threshold,
        // inconclusive where a level's two runs cannot pin it that close, and then
        // centred on no change.
        for r in &rows {
            match r["change"].as_str() {
                Some("no-change") => {}
                Some("inconclusive") => {
                    let iv = r["interval_pct"].as_array().expect("an interval");
                    let (lo, hi) = (iv[0].as_f64().unwrap_or(0.0), iv[1].as_f64().unwrap_or(0.0));
                    assert!(
                        lo < 0.0 && hi > 0.0 && (lo + hi).abs() < 0.2 * (hi - lo),
                        "{r}"
                    );
                    assert!(r["base"]["runs"].as_u64() >= Some(2), "{r}");
                }
                other => panic!("{sample}: {other:?} in {r}"),
            }
            assert_eq!(r["delta_pct"].as_f64(), Some(0.0), "{r}");
        }
        assert_eq!(v["summary"]["unmatched"], 0);
        assert_eq!(v["setup"].as_array().map(Vec::len), Some(0), "{sample}");
        assert!(v["criteria"]
            .as_array()
            .expect("criteria")
            .iter()
            .all(|c| c["changed"] == false));
    }
}

#[test]
fn a_ladder_level_slowed_by_a_fifth_is_worse_there_and_nowhere_else() {
    let tmp = tempfile::tempdir().expect("tmp");
    let slow = slowed_copy(&tmp.path().join("slow"));
    let base = root().join("samples/kv-cache-published");
    let (code, v) = compare_json(&[&base], &[&slow], &[]);
    assert_eq!(code, 1, "a worse metric exits 1");
    for metric in ["output throughput", "TTFT p50", "generation rate"] {
        assert_eq!(
            change_of(&v, "kv-ladder", "adp · 16 clients", metric),
            "worse",
            "{metric}"
        );
    }
    let out = rows(&v)
        .into_iter()
        .find(|r| r["subject"] == "adp · 16 clients" && r["metric"] == "output throughput")
        .expect("row");
    assert!(
        (out["delta_pct"].as_f64().expect("pct") + 20.0).abs() < 0.01,
        "{out}"
    );
    // TTFT is lower-is-better: +25% is worse; the hit rates did not move.
    assert_eq!(
        change_of(&v, "kv-ladder", "adp · 16 clients", "GPU hit rate"),
        "no-change"
    );
    let worse: Vec<_> = rows(&v)
        .into_iter()
        .filter(|r| r["change"] == "worse")
        .collect();
    assert!(
        worse.iter().all(|r| r["subject"] == "adp · 16 clients"),
        "only the slowed level: {worse:?}"
    );
    // The other way round the same level is better.
    let (code, v) = compare_json(&[&slow], &[&base], &[]);
    assert_eq!(code, 0);
    assert_eq!(
        change_of(&v, "kv-ladder", "adp · 16 clients", "TTFT p50"),
        "better"
    );
    assert_eq!(v["summary"]["worse"], 0);
    // The criteria of both sides are listed together, the changed one first.
    let (_, v) = compare_json(&[&base], &[&slow], &[]);
    let first = &v["criteria"][0];
    assert_eq!(first["id"], "kv-dram.L16-gen");
    assert_eq!(
        (first["base"].as_str(), first["new"].as_str()),
        (Some("pass"), Some("FAIL"))
    );
}

#[test]
fn the_threshold_decides_what_counts() {
    let tmp = tempfile::tempdir().expect("tmp");
    let slow = slowed_copy(&tmp.path().join("slow"));
    let base = root().join("samples/kv-cache-published");
    let (code, v) = compare_json(&[&base], &[&slow], &["--threshold", "30"]);
    assert_eq!(v["summary"]["worse"], 0, "-20% and +25% are within 30%");
    // The exit status is then the criteria's: 1 only for one that no longer passes.
    let no_longer = v["criteria"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["base"] == "pass" && c["new"] != "pass");
    assert_eq!(code, i32::from(no_longer), "{}", v["criteria"]);
    assert_eq!(
        change_of(&v, "kv-ladder", "adp · 16 clients", "output throughput"),
        "no-change"
    );
    let r = run(&[
        "compare",
        base.to_str().unwrap_or(""),
        slow.to_str().unwrap_or(""),
        "--threshold",
        "-1",
    ]);
    assert_eq!(r.code, 2, "a negative threshold is refused: {}", r.stderr);
}

#[test]
fn the_spread_between_pooled_runs_is_the_noise() {
    let tmp = tempfile::tempdir().expect("tmp");
    let slow = slowed_copy(&tmp.path().join("slow"));
    let base = root().join("samples/kv-cache-published");
    // Base pooled from the original and the slowed copy: its runs disagree by ~20% at
    // that level, so the new runs' -11% against it cannot be told from the threshold:
    // inconclusive, with the interval of the runs and how many would settle it.
    let (_, v) = compare_json(&[&base, &slow], &[&slow], &[]);
    let row = rows(&v)
        .into_iter()
        .find(|r| r["subject"] == "adp · 16 clients" && r["metric"] == "output throughput")
        .expect("row");
    assert_eq!(row["change"], "inconclusive", "{row}");
    assert!(
        row["method"].as_str().expect("method").contains("Welch"),
        "{row}"
    );
    assert!(
        row["why"]
            .as_str()
            .expect("why")
            .contains("runs of each side would settle it"),
        "{row}"
    );
    assert_eq!(
        row["base"]["values"].as_array().map(Vec::len),
        Some(4),
        "every run listed"
    );
    assert!(
        row["base"]["noise_from"]
            .as_str()
            .expect("from")
            .contains("spread between"),
        "{row}"
    );
    assert!(row["noise_pct"].as_f64().expect("noise") > 15.0, "{row}");
    // The pooled value of a side is the geometric mean of its runs, so the change shown
    // is the centre of its interval (a t-interval on the log ratio), as in `analyze`.
    let geo = |side: &serde_json::Value| {
        let v: Vec<f64> = side["values"]
            .as_array()
            .expect("values")
            .iter()
            .filter_map(|x| x.as_f64())
            .collect();
        (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
    };
    for side in ["base", "new"] {
        let value = row[side]["value"].as_f64().expect("value");
        assert!(
            (value / geo(&row[side]) - 1.0).abs() < 1e-12,
            "{side}: {row}"
        );
    }
    let pct = |x: &serde_json::Value| (1.0 + x.as_f64().expect("a percent") / 100.0).ln();
    let centre = (pct(&row["interval_pct"][0]) + pct(&row["interval_pct"][1])) / 2.0;
    assert!((centre - pct(&row["delta_pct"])).abs() < 1e-9, "{row}");
    // With one run per side, fio's own bandwidth stddev is the noise (the loopback sample
    // was measured by fio, which logged bw_dev; the published one has no samples).
    let p = root().join("samples/storage-loopback");
    let (_, v) = compare_json(&[&p], &[&p], &[]);
    let bw = rows(&v)
        .into_iter()
        .find(|r| r["metric"] == "bandwidth")
        .expect("bandwidth row");
    assert!(
        bw["base"]["noise_from"]
            .as_str()
            .expect("from")
            .contains("bw_dev"),
        "{bw}"
    );
}

#[test]
fn published_against_loopback_is_worse_better_and_says_what_differs() {
    let (code, v) = compare_json(
        &[&root().join("samples/storage-published")],
        &[&root().join("samples/storage-loopback")],
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(
        change_of(
            &v,
            "storage",
            "adp · randwrite 8k × 8 jobs × QD 8",
            "bandwidth"
        ),
        "worse"
    );
    // A single unqueued read is faster on the loopback files than on the published drives.
    assert_eq!(
        change_of(
            &v,
            "storage",
            "raid10 · randread 8k × 1 jobs × QD 1",
            "IOPS"
        ),
        "better"
    );
    let setup = v["setup"].as_array().expect("setup");
    let whats: Vec<&str> = setup.iter().filter_map(|d| d["what"].as_str()).collect();
    assert!(
        whats.iter().any(|w| w.starts_with("fio runtime")),
        "{whats:?}"
    );
    assert!(
        whats.iter().any(|w| w.starts_with("devices per array")),
        "{whats:?}"
    );
    assert!(whats.contains(&"kernel"), "{whats:?}");
    assert!(setup.iter().all(|d| d["moves_numbers"] == true));
    let changed = v["criteria"]
        .as_array()
        .expect("criteria")
        .iter()
        .filter(|c| c["changed"] == true)
        .count();
    assert_eq!(changed, 5, "pass on one side, not comparable on the other");
}

#[test]
fn measurements_on_one_side_only_are_listed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let fewer = tmp.path().join("fewer");
    copy_dir(&root().join("samples/storage-published"), &fewer);
    let gone = fewer.join("results/adp/randwrite-8k-j8-d8.json");
    assert!(gone.exists());
    fs::remove_file(&gone).expect("rm");
    let (code, v) = compare_json(&[&root().join("samples/storage-published")], &[&fewer], &[]);
    assert_eq!(v["summary"]["worse"], 0, "nothing measured got worse");
    assert_eq!(
        code, 1,
        "but the criterion the job judged no longer passes (not measured)"
    );
    let un = v["unmatched"].as_array().expect("unmatched");
    assert!(!un.is_empty());
    assert!(un.iter().all(|u| u["side"] == "base only"));
    assert!(un.iter().any(
        |u| u["subject"] == "adp · randwrite 8k × 8 jobs × QD 8" && u["metric"] == "bandwidth"
    ));
    assert_eq!(v["summary"]["unmatched"].as_u64(), Some(un.len() as u64));
    // Two sides that share nothing compare nothing: that is not a pass.
    let (code, v) = compare_json(
        &[&root().join("samples/spdk-raid-published")],
        &[&root().join("samples/kv-cache-published")],
        &[],
    );
    assert_eq!(code, 2);
    assert_eq!(v["rows"].as_array().map(Vec::len), Some(0));
    assert!(v["summary"]["unmatched"].as_u64().is_some_and(|n| n > 0));
}

#[test]
fn a_bundle_compares_like_its_folder_and_reports_are_written() {
    let tmp = tempfile::tempdir().expect("tmp");
    let folder = root().join("samples/kv-cache-published");
    let tgz = tmp.path().join("support.tar.gz");
    let r = run(&[
        "bundle",
        folder.to_str().unwrap_or(""),
        "-o",
        tgz.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (code, v) = compare_json(&[&tgz], &[&folder], &[]);
    assert_eq!(code, 0);
    // The bundle compares exactly as its folder compares with itself.
    let (_, itself) = compare_json(&[&folder], &[&folder], &[]);
    let verdicts = |v: &serde_json::Value| -> Vec<(String, String)> {
        rows(v)
            .iter()
            .map(|r| {
                (
                    r["subject"].to_string() + &r["metric"].to_string(),
                    r["change"].to_string(),
                )
            })
            .collect()
    };
    assert_eq!(verdicts(&v), verdicts(&itself));
    assert!(rows(&v)
        .iter()
        .all(|r| r["delta_pct"].as_f64() == Some(0.0)));
    assert_eq!(v["base"][0], tgz.display().to_string());
    // -o DIR: compare.md with its sections and plots, and compare.pdf where typst runs.
    let slow = slowed_copy(&tmp.path().join("slow"));
    let out = tmp.path().join("cmp");
    let mut args = vec![
        "compare".to_string(),
        folder.display().to_string(),
        slow.display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ];
    let typst = pdf_tools();
    match &typst {
        Some(t) => args.extend(["--typst".into(), t.display().to_string()]),
        None => args.push("--no-pdf".into()),
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&refs);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = fs::read_to_string(out.join("compare.md")).expect("compare.md");
    for h in [
        "## What differs between the two setups",
        "## Criteria on each side",
        "## Measurements",
        "## Unmatched",
    ] {
        assert!(md.contains(h), "{h}");
    }
    assert!(md.contains("**WORSE**"));
    let plots: Vec<String> = fs::read_dir(out.join("plots"))
        .expect("plots")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        plots.iter().any(|p| p.starts_with("compare-ladder")),
        "{plots:?}"
    );
    assert!(out.join("plots/compare-kv-restore.svg").is_file());
    if typst.is_some() {
        let text = pdf_text(&out.join("compare.pdf")).expect("a PDF");
        assert!(text.contains("WORSE") && text.contains("What differs between the two setups"));
    }
}

#[test]
fn a_trend_has_one_column_per_input_in_order_or_by_time() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy_dir(&root().join("samples/kv-cache-published"), &a);
    copy_dir(&root().join("samples/kv-cache-failing"), &b);
    // b ran first.
    for (dir, when) in [(&a, "2026-11-20T10:00:00Z"), (&b, "2026-10-01T10:00:00Z")] {
        fs::create_dir_all(dir.join("manifests")).expect("mkdir");
        fs::write(
            dir.join("manifests/collect-kv.json"),
            format!("{{\"tool\": \"reprobench\", \"started\": \"{when}\", \"steps\": []}}"),
        )
        .expect("manifest");
    }
    let (sa, sb) = (a.display().to_string(), b.display().to_string());
    let r = run(&["analyze", &sa, &sb, "--trend", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["inputs"].as_array().map(Vec::len), Some(2));
    let t = &v["trend"];
    assert_eq!(t["order"], "as given");
    assert_eq!(t["inputs"][0]["input"], sa.as_str());
    let cached = t["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["id"] == "kv-restore.cached")
        .expect("row")
        .clone();
    assert_eq!(cached["statuses"], serde_json::json!(["pass", "FAIL"]));
    assert_eq!(cached["values"][1], 0.0);
    assert_eq!(
        cached["sparkline"].as_str().map(|s| s.chars().count()),
        Some(2)
    );
    let r = run(&[
        "analyze",
        &sa,
        &sb,
        "--trend",
        "--by-time",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(
        v["trend"]["inputs"][0]["input"],
        sb.as_str(),
        "the earlier run first"
    );
    assert!(v["trend"]["order"]
        .as_str()
        .expect("order")
        .starts_with("by the runs' start times"));
    let r = run(&["analyze", &sa, &sb, "--trend"]);
    assert!(
        r.stdout.contains("== Trend across 2 inputs"),
        "{}",
        r.stdout
    );
}

#[test]
fn other_vllm_arguments_are_listed_as_moving_the_numbers() {
    let tmp = tempfile::tempdir().expect("tmp");
    let other = tmp.path().join("other");
    copy_dir(&root().join("samples/kv-cache-published"), &other);
    let log = other.join("logs/adp-vllm.log");
    let text = fs::read_to_string(&log).expect("log");
    assert!(text.contains("'kv_cache_dtype': 'fp8'"));
    fs::write(
        &log,
        text.replace("'kv_cache_dtype': 'fp8'", "'kv_cache_dtype': 'auto'"),
    )
    .expect("w");
    let (_, v) = compare_json(
        &[&root().join("samples/kv-cache-published")],
        &[&other],
        &[],
    );
    let d = v["setup"]
        .as_array()
        .expect("setup")
        .iter()
        .find(|d| d["what"] == "vLLM argument kv_cache_dtype (adp)")
        .cloned()
        .unwrap_or_else(|| panic!("{}", v["setup"]));
    assert_eq!(
        (d["base"].as_str(), d["new"].as_str()),
        (Some("fp8"), Some("auto"))
    );
    assert_eq!(d["moves_numbers"], true);
}

#[test]
fn a_folder_of_campaigns_trends_in_name_order_and_exports_the_trend() {
    let tmp = tempfile::tempdir().expect("tmp");
    let all = tmp.path().join("campaigns");
    copy_dir(
        &root().join("samples/storage-published"),
        &all.join("2026-10"),
    );
    copy_dir(
        &root().join("samples/storage-loopback"),
        &all.join("2026-11"),
    );
    let out = tmp.path().join("frames");
    let r = run(&[
        "analyze",
        all.to_str().unwrap_or(""),
        "--campaigns",
        "--trend",
        "--export",
        out.to_str().unwrap_or(""),
    ]);
    assert!(
        r.stdout.contains("== Trend across 2 inputs (as given) =="),
        "{}",
        r.stdout
    );
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("storage.randwrite-8k-qd64"))
        .expect("a trend row");
    assert!(
        line.contains("(pass)") && line.contains("(not comparable)"),
        "{line}"
    );
    let csv = fs::read_to_string(out.join("trend.csv")).expect("trend.csv");
    let header = csv.lines().next().expect("header");
    assert_eq!(header, "position,input,started,criterion,unit,value,status");
    // The exit-status criterion counts files: not a measurement, not trended.
    assert_eq!(
        csv.lines().count(),
        1 + 2 * 5,
        "5 measured criteria x 2 campaigns"
    );
    assert!(!csv.contains("storage.exit-status"), "{csv}");
    assert!(fs::read_to_string(out.join("schema.md"))
        .expect("schema")
        .contains("## trend"));
    let r = run(&[
        "analyze",
        tmp.path().join("nothing").to_str().unwrap_or(""),
        "--campaigns",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// A new run whose job moved nothing is still WORSE (a gate must stop it), and the row's
/// why, in the JSON and under the text table, says the run is 0 and what that means.
/// Before, the text table said WORSE -100.0% and nothing else, and the JSON's why only
/// "-100.0% beyond the 5% threshold".
#[test]
fn a_new_run_that_moved_nothing_is_named_as_such_in_the_why_and_the_text() {
    let tmp = tempfile::tempdir().expect("tmp");
    let new = tmp.path().join("zero");
    copy_dir(&root().join("samples/storage-published"), &new);
    edit_json(&new.join("results/adp/randwrite-8k-j8-d8.json"), |d| {
        scale_fio_counts(d, 0.0)
    });
    let base = root().join("samples/storage-published");
    let (_, v) = compare_json(&[&base], &[&new], &[]);
    let subject = "adp · randwrite 8k × 8 jobs × QD 8";
    assert_eq!(change_of(&v, "storage", subject, "bandwidth"), "worse");
    let row = rows(&v)
        .into_iter()
        .find(|r| r["subject"] == subject && r["metric"] == "bandwidth")
        .expect("the row");
    let why = row["why"].as_str().unwrap_or("");
    assert!(
        why.contains("new's run is 0 MB/s: a run that moved nothing failed or never started"),
        "{why}"
    );
    // Rows whose runs moved data say none of it, and a hit rate of 0 is not a rate.
    for r in rows(&v).iter().filter(|r| r["subject"] != subject) {
        assert!(!r["why"].to_string().contains("moved nothing"), "{r}");
    }
    let text = run(&["compare", s(&base), s(&new)]).stdout;
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("  {subject} · bandwidth: WORSE:")))
        .unwrap_or_else(|| panic!("no why line:\n{text}"));
    assert!(line.contains("new's run is 0 MB/s"), "{line}");
    // Only rows not judged "no change" get a why line.
    assert_eq!(
        text.lines()
            .filter(|l| l.contains(" · bandwidth: ") || l.contains(" · IOPS: "))
            .count(),
        2,
        "{text}"
    );
}

/// A gate must stop a run whose criteria went from pass to FAIL, whatever its numbers
/// say. Before, the KV sample against its failing copy printed "0 better, 0 worse" and
/// exited 0 with six criteria gone from pass to FAIL.
#[test]
fn criteria_that_no_longer_pass_make_compare_exit_1_and_are_counted() {
    let base = root().join("samples/kv-cache-published");
    let new = root().join("samples/kv-cache-failing");
    let r = run(&["compare", s(&base), s(&new)]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("criteria that pass in the base do not in the new"),
        "{}",
        r.stdout
    );
    let r = run(&["compare", s(&base), s(&base)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("do not in the new"), "{}", r.stdout);
}
