//! End to end: the binary on the bundled samples and on fixtures made by real fio.

use std::fs;
use std::process::Command as Process;

use crate::common::*;

const HEADLINES: [&str; 5] = [
    "storage.randwrite-8k-qd64",
    "storage.randrw-8k-qd1024",
    "storage.randread-8k-qd1024",
    "storage.read-1m-qd32",
    "storage.write-1m-qd32",
];

#[test]
fn published_sample_passes_every_criterion() {
    let (code, v) = analyze_json(&root().join("samples/storage-published"), &[]);
    let st = statuses(&v);
    for id in HEADLINES.iter().chain(&["storage.exit-status"]) {
        assert_eq!(
            st.get(*id).map(String::as_str),
            Some("pass"),
            "{id}: {st:?}"
        );
    }
    assert_eq!(code, 0);
    let text = run(&[
        "analyze",
        root()
            .join("samples/storage-published")
            .to_str()
            .unwrap_or(""),
    ]);
    assert_eq!(text.code, 0);
    assert!(
        text.stdout.contains("6.41x (6,934 vs 1,082 MB/s)"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("6 pass, 0 fail"));
    let detail = run(&[
        "analyze",
        "--detail",
        root()
            .join("samples/storage-published")
            .to_str()
            .unwrap_or(""),
    ]);
    assert!(
        detail.stdout.contains(
            "Published figures\n  storage.randwrite-8k-qd64: reproduced: within ±10% of the published (one point, no interval)"
        ),
        "{}",
        detail.stdout
    );
    // The terminal says what the published figures were held with: here a point each.
    assert!(
        text.stdout.contains(
            "Published figures (±10% band): 5 reproduced, each on one point with no interval"
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn missing_adp_side_is_not_measured_not_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_dir(
        &root().join("samples/storage-published/results/raid10"),
        &tmp.path().join("results/raid10"),
    );
    let (code, v) = analyze_json(tmp.path(), &[]);
    let st = statuses(&v);
    for id in HEADLINES {
        assert_eq!(st[id], "not-measured", "{id}");
    }
    assert_eq!(
        st["storage.exit-status"], "not-measured",
        "both arrays are needed"
    );
    assert_eq!(code, 2, "nothing judged is not a pass");
}

#[test]
fn loopback_sample_is_not_comparable_and_says_why() {
    // 4 s runs on four loop devices striped by fio itself: every headline verdict is
    // "not comparable", with the runtime and the devices as the reasons.
    let (code, v) = analyze_json(&root().join("samples/storage-loopback"), &[]);
    let st = statuses(&v);
    for id in HEADLINES {
        assert_eq!(st[id], "not-comparable", "{id}");
    }
    assert_eq!(st["storage.exit-status"], "pass");
    assert_eq!(code, 1, "not comparable is not a pass");
    let verdict = v["suites"][0]["verdicts"][0]["note"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(verdict.contains("would have been FAIL"), "{verdict}");
    assert!(
        verdict.contains("runtime 4 s (procedure: 60 s)"),
        "{verdict}"
    );
    let devs = v["suites"][0]["deviations"]
        .as_array()
        .expect("deviations as data")
        .clone();
    let runtime = devs
        .iter()
        .find(|d| d["parameter"] == "runtime" && d["ran"] == "4")
        .expect("the runtime deviation");
    assert_eq!(runtime["procedure"], "60");
    assert_eq!(runtime["unit"], "s");
    assert_eq!(runtime["changes_comparison"], true);
    assert!(runtime["files"].as_array().is_some_and(|f| !f.is_empty()));
    assert_eq!(v["summary"]["not-comparable"], 5);
}

#[test]
fn users_own_array_and_job_names_are_matched_by_options() {
    let tmp = tempfile::tempdir().expect("tmp");
    let src = root().join("samples/storage-published/results");
    for (from, to) in [("raid10", "md-baseline"), ("adp", "card")] {
        fs::create_dir_all(tmp.path().join(to)).expect("mkdir");
        for e in fs::read_dir(src.join(from)).expect("list").flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") {
                let text = fs::read_to_string(e.path()).expect("read");
                let stem = name.trim_end_matches(".json");
                let renamed = text.replace(&format!("\"{stem}\""), "\"my-job\"");
                fs::write(tmp.path().join(to).join(format!("mine-{name}")), renamed)
                    .expect("write");
            }
        }
    }
    let (code, v) = analyze_json(
        tmp.path(),
        &["--baseline", "md-baseline", "--candidate", "card"],
    );
    let st = statuses(&v);
    for id in HEADLINES {
        assert_eq!(st[id], "pass", "{id}");
    }
    assert_eq!(code, 0);
    let (_, v) = analyze_json(tmp.path(), &[]);
    assert_eq!(statuses(&v)["storage.randwrite-8k-qd64"], "not-measured");
}

fn script_text(v: &serde_json::Value) -> String {
    v["suites"][0]["preformatted"][0]["text"]
        .as_str()
        .expect("the script table")
        .to_string()
}

#[test]
fn script_table_matches_the_saved_output_of_the_procedure_script() {
    // tests/fixtures/procedure-table.expected was printed by the procedure's own script
    // (tests/fixtures/procedure-storage-table.py) over the same real-fio files.
    let expected = fs::read_to_string(root().join("tests/fixtures/procedure-table.expected"))
        .expect("saved output");
    let (_, v) = analyze_json(&root().join("tests/fixtures/fio/procedure"), &[]);
    assert_eq!(script_text(&v), expected.trim_end());
}

#[test]
fn script_table_matches_the_procedure_script_run_live() {
    if !need("python3") {
        return;
    }
    let python = "python3";
    for sample in [
        "samples/storage-published/results",
        "samples/storage-loopback/results",
    ] {
        let dir = root().join(sample);
        let mut files: Vec<String> = Vec::new();
        for arr in fs::read_dir(&dir)
            .expect("list")
            .flatten()
            .filter(|e| e.path().is_dir())
        {
            for f in fs::read_dir(arr.path()).expect("list").flatten() {
                let n = f.file_name().to_string_lossy().into_owned();
                if n.ends_with(".json") {
                    files.push(format!("{}/{n}", arr.file_name().to_string_lossy()));
                }
            }
        }
        let out = Process::new(python)
            .arg(root().join("tests/fixtures/procedure-storage-table.py"))
            .args(&files)
            .current_dir(&dir)
            .output()
            .expect("python runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (_, v) = analyze_json(&dir, &[]);
        assert_eq!(
            script_text(&v),
            String::from_utf8_lossy(&out.stdout).trim_end(),
            "{sample}"
        );
    }
}

#[test]
fn real_fio_field_cases_are_read_and_explained() {
    let (code, v) = analyze_json(&root().join("tests/fixtures/fio"), &[]);
    assert_eq!(code, 1);
    let notes = v["suites"][0]["preformatted"][0]["notes"].to_string();
    for expect in [
        "`note-prefix.json`: text before the JSON",
        "`status-interval.json`: more than one JSON document",
        "`numjobs-no-group.json`: 3 jobs[] entries",
        "`job-error.json`: job `badio` ended with error 22",
        "`lat-percentiles.json`: read percentiles are only in lat_ns",
        "`zero-sized.json`: text before the JSON",
    ] {
        assert!(notes.contains(expect), "missing `{expect}` in {notes}");
    }
    let exit = |v: &serde_json::Value| {
        v["suites"][0]["verdicts"]
            .as_array()
            .expect("verdicts")
            .iter()
            .find(|x| x["id"] == "storage.exit-status")
            .expect("exit verdict")
            .clone()
    };
    // The criterion covers the compared arrays (raid10, adp) only, and says which
    // folders it left alone.
    let e = exit(&v);
    assert_eq!(e["status"], "fail");
    let note = e["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("refused/adp/randread-bogus.json"),
        "missing JSON is named: {note}"
    );
    assert!(
        !note.contains("badio"),
        "another folder's job is not judged: {note}"
    );
    assert!(note.contains("not judged here: fio"), "{note}");
    let skipped = v["skipped"].to_string();
    assert!(skipped.contains("numjobs-zero.json"), "{skipped}");
    // Named as a side, the top folder's failures are judged.
    let (_, v) = analyze_json(
        &root().join("tests/fixtures/fio"),
        &["--baseline", "fio", "--candidate", "adp"],
    );
    let note = exit(&v)["note"].as_str().unwrap_or_default().to_string();
    assert!(note.contains("job `badio` error 22"), "{note}");
    assert!(note.contains("zerosize` moved no data"), "{note}");
}

#[test]
fn bad_input_is_skipped_with_file_and_line_and_never_modified() {
    let tmp = tempfile::tempdir().expect("tmp");
    let arr = tmp.path().join("results/raid10");
    fs::create_dir_all(arr.join("iostat")).expect("mkdir");
    let good = root().join("samples/storage-published/results/raid10/randwrite-8k-j8-d8.json");
    fs::copy(&good, arr.join("randwrite-8k-j8-d8.json")).expect("copy");
    let text = fs::read_to_string(&good).expect("read");
    fs::write(arr.join("empty.json"), "").expect("w");
    fs::write(arr.join("truncated.json"), &text[..text.len() / 2]).expect("w");
    fs::write(
        arr.join("junk.json"),
        [0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0],
    )
    .expect("w");
    fs::write(arr.join("other.json"), "{\"hello\": \"world\"}\n").expect("w");
    fs::write(
        arr.join("iostat/bad.iostat"),
        "Linux x\n\navg-cpu: %user\n1 2\n",
    )
    .expect("w");
    std::os::unix::fs::symlink("loop", arr.join("loop")).expect("symlink loop");
    std::os::unix::fs::symlink(tmp.path().join("results"), arr.join("up")).expect("dir loop");
    std::os::unix::fs::symlink("/nonexistent/x.json", arr.join("dangling.json")).expect("link");
    let before = snapshot(tmp.path());

    let (code, v) = analyze_json(tmp.path(), &[]);
    assert_eq!(code, 2, "one array judges no criterion");
    let skipped: Vec<String> = v["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .map(|s| format!("{} {} {}", s["file"], s["line"], s["reason"]))
        .collect();
    let all = skipped.join("\n");
    for expect in [
        "empty.json\" null \"empty file\"",
        "truncated.json\"",
        "junk.json\" null \"binary data",
        "other.json\" 1 \"valid JSON, but not fio output",
        "bad.iostat\" 4 \"expected 1 avg-cpu value (one per name of its header)",
        "loop\" null \"symbolic link loop",
        "up\" null \"symbolic link to the folder",
        "dangling.json\" null \"broken symbolic link",
    ] {
        assert!(all.contains(expect), "missing `{expect}` in\n{all}");
    }
    assert!(all.contains("truncated JSON"), "{all}");
    // The good file was still analyzed.
    assert!(v["suites"][0]["files_read"]
        .to_string()
        .contains("randwrite-8k-j8-d8.json"));
    assert_eq!(
        before,
        snapshot(tmp.path()),
        "the input folder is never written to"
    );
}

#[test]
fn an_unreadable_file_is_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("tmp");
    let arr = tmp.path().join("adp");
    fs::create_dir_all(&arr).expect("mkdir");
    fs::copy(
        root().join("samples/storage-published/results/adp/read-1m-j8-d4.json"),
        arr.join("read-1m-j8-d4.json"),
    )
    .expect("copy");
    let locked = arr.join("locked.json");
    fs::write(&locked, "{}").expect("w");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod");
    if fs::read(&locked).is_ok() {
        skipped(
            "running as root: permissions do not stop reads; the dangling-link case covers this",
        );
        return;
    }
    let (_, v) = analyze_json(tmp.path(), &[]);
    assert!(v["skipped"].to_string().contains("locked.json"));
}

#[test]
fn unusable_input_exits_2_with_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    fs::write(tmp.path().join("notes.txt"), "nothing to see").expect("w");
    fs::write(
        tmp.path().join("chart.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .expect("w");
    let r = run(&["analyze", tmp.path().to_str().unwrap_or("")]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no results any suite can read"),
        "{}",
        r.stderr
    );
    // What each file was taken for: an image is no text.
    assert!(
        r.stderr
            .contains("chart.png (binary data), notes.txt (text)"),
        "{}",
        r.stderr
    );
    let r = run(&["analyze", "/nonexistent/folder"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("cannot read `/nonexistent/folder`"),
        "{}",
        r.stderr
    );
    let r = run(&["analyze"]);
    assert_eq!(r.code, 2, "usage errors exit 2");
}

#[test]
fn export_writes_parquet_and_csv_frames() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("frames");
    let r = run(&[
        "analyze",
        root()
            .join("samples/storage-published")
            .to_str()
            .unwrap_or(""),
        "--export",
        out.to_str().unwrap_or(""),
    ]);
    assert_eq!(r.code, 0);
    for name in [
        "fio_groups",
        "iostat_devices",
        "iostat_cpu",
        "storage_pairs",
    ] {
        let pq = fs::read(out.join(format!("{name}.parquet"))).expect("parquet written");
        assert_eq!(&pq[..4], b"PAR1");
        assert_eq!(&pq[pq.len() - 4..], b"PAR1");
    }
    let csv = fs::read_to_string(out.join("fio_groups.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 1 + 12, "a header and one row per run");
    assert!(csv.lines().any(
        |l| l.contains(",storage,adp,randwrite-8k-j8-d8,results/adp/randwrite-8k-j8-d8.json,")
    ));
    let pairs = fs::read_to_string(out.join("storage_pairs.csv")).expect("pairs");
    assert_eq!(
        pairs.lines().count(),
        1 + 6,
        "the six shapes run on both arrays"
    );
}

#[test]
fn report_writes_markdown_with_verdicts_tables_and_skipped_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("in");
    copy_dir(
        &root().join("samples/storage-published/results"),
        &input.join("results"),
    );
    fs::write(
        // Sorted after the other results: the procedure's script prints their rows, then
        // stops on this one.
        input.join("results/adp/zz-broken.json"),
        "{\"fio version\": \"fio-3.33\", \"jobs\": [",
    )
    .expect("w");
    let out = tmp.path().join("out");
    let r = run(&[
        "report",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 1, "the broken file fails the exit-status criterion");
    let md = fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(md.contains("| ✅ pass | Random write, 8 KB"), "{md}");
    assert!(md.contains(
        "| ❌ **FAIL** | Both arrays (raid10 and adp): every fio job exits with status 0"
    ));
    assert!(md.contains("None found: every parameter the files record matches the procedure."));
    assert!(
        md.contains("fio --random_generator=tausworthe64 --per_job_logs=0"),
        "the commands that ran: {md}"
    );
    assert!(md.contains("adp/randrw-8k-j128-d8                   13224   1614.3"));
    assert!(
        md.contains("| `results/adp/zz-broken.json` | 1 | truncated JSON"),
        "{md}"
    );
    assert!(
        md.contains("results/adp/zz-broken.json`: not readable as fio output")
            && md.contains("the script stops here"),
        "{md}"
    );
    let verdicts = md.find("## Verdicts").expect("verdicts");
    let tables = md.find("The procedure's table").expect("table");
    assert!(verdicts < tables, "the verdict summary comes first");
}

#[test]
fn a_live_fio_run_with_the_procedure_helper_options_is_read_like_the_script() {
    if !need("fio") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let data = tmp.path().join("data.img");
    fs::write(&data, vec![0u8; 16 << 20]).expect("scratch file");
    for (array, rw) in [("raid10", "randwrite"), ("adp", "randwrite")] {
        let out = tmp.path().join("results").join(array);
        fs::create_dir_all(&out).expect("mkdir");
        let status = Process::new("fio")
            .args([
                "--random_generator=tausworthe64",
                "--per_job_logs=0",
                "--buffer_compress_chunk=4096",
                "--buffer_compress_percentage=67",
                "--refill_buffers=1",
                "--group_reporting=1",
                "--randrepeat=0",
                "--norandommap=1",
                "--ioengine=psync",
                &format!("--readwrite={rw}"),
                "--bs=8k",
                "--numjobs=2",
                "--iodepth=1",
                "--size=8m",
                "--runtime=1",
                "--time_based=1",
            ])
            .arg(format!("--filename={}", data.display()))
            .args(["--name=randwrite-8k-j8-d8", "--output-format=json"])
            .arg(format!(
                "--output={}",
                out.join("randwrite-8k-j8-d8.json").display()
            ))
            .status()
            .expect("fio runs");
        assert!(status.success());
    }
    let (_, v) = analyze_json(tmp.path(), &[]);
    let st = statuses(&v);
    assert_eq!(st["storage.exit-status"], "pass");
    // Matched by name, run with another shape and runtime: not comparable, with both
    // values in the note and in the deviations.
    let verdict = v["suites"][0]["verdicts"][0].clone();
    assert_eq!(verdict["status"], "not-comparable");
    let note = verdict["note"].as_str().unwrap_or("").to_string();
    assert!(note.contains("numjobs 2 (procedure: 8)"), "{note}");
    assert!(
        note.contains("iodepth (effective) 1 (procedure: 8)"),
        "{note}"
    );
    assert!(note.contains("runtime 1 s (procedure: 60 s)"), "{note}");
    if let Ok(out) = Process::new("python3")
        .arg(root().join("tests/fixtures/procedure-storage-table.py"))
        .args([
            "results/adp/randwrite-8k-j8-d8.json",
            "results/raid10/randwrite-8k-j8-d8.json",
        ])
        .current_dir(tmp.path())
        .output()
    {
        assert_eq!(
            script_text(&v),
            String::from_utf8_lossy(&out.stdout).trim_end()
        );
    }
}

/// A copy of a fio result with every job's bandwidth scaled by `factor`.
fn scaled_copy(from: &std::path::Path, to: &std::path::Path, factor: f64) {
    let mut d: serde_json::Value =
        serde_json::from_slice(&fs::read(from).expect("fio result")).expect("fio JSON");
    scale_fio_counts(&mut d, factor);
    fs::write(to, serde_json::to_vec(&d).expect("json")).expect("write");
}

fn headline(dir: &std::path::Path, id: &str) -> (i32, serde_json::Value) {
    let (code, v) = analyze_json(dir, &[]);
    let found = v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["verdicts"].as_array().cloned().unwrap_or_default())
        .find(|x| x["id"] == id)
        .expect("the verdict");
    (code, found)
}

/// Repeats are pooled, every run is listed, and the status follows the 95% interval of
/// the ratio: two runs of one job that differ twofold are not a confident pass; three
/// consistent runs a side are, with a narrow interval; one run a side is judged on the
/// point, as the procedure's script does, with no interval.
#[test]
fn repeated_runs_are_pooled_listed_and_judged_by_their_interval() {
    let tmp = tempfile::tempdir().expect("tmp");
    let job = "randwrite-8k-j8-d8";
    let id = "storage.randwrite-8k-qd64";
    let (_, single) = headline(&root().join("samples/storage-published"), id);
    assert_eq!(single["status"], "pass");
    assert!(single.get("interval").is_none(), "{single}");
    // The published sample is the published number: reproduced, on the point alone.
    assert_eq!(single["reproduction"]["status"], "reproduced", "{single}");
    assert_eq!(
        single["reproduction"]["basis"], "one point, no interval",
        "{single}"
    );

    let two = tmp.path().join("two");
    copy_dir(&root().join("samples/storage-published"), &two);
    let adp = two.join("results/adp");
    let run2 = adp.join(format!("{job}-run2.json"));
    scaled_copy(&adp.join(format!("{job}.json")), &run2, 1.9);
    // As `collect storage --repeat` writes it: fio's job is named like its file.
    edit_json(&run2, |v| {
        for j in v["jobs"].as_array_mut().into_iter().flatten() {
            j["jobname"] = serde_json::json!(format!("{job}-run2"));
        }
    });
    let (code, v) = headline(&two, id);
    assert_eq!(v["status"], "inconclusive", "{v}");
    let note = v["note"].as_str().unwrap_or("");
    assert!(
        note.contains(&format!("run 1 `results/adp/{job}.json`")),
        "{note}"
    );
    assert!(
        note.contains(&format!("run 2 `results/adp/{job}-run2.json`")),
        "{note}"
    );
    assert!(note.contains("runs of each side would settle it"), "{note}");
    assert_eq!(v["interval"]["runs"], serde_json::json!([1, 2]), "{v}");
    // The terminal's summary gives the reason, not the first side's runs.
    let summary = run(&["analyze", s(&two)]).stdout;
    assert!(
        summary.contains("the interval straddles the threshold: about"),
        "{summary}"
    );
    assert_eq!(code, 1);
    assert_ne!(v["reproduction"]["status"], "reproduced", "{v}");
    // The tables count every run too: the results table lists each run under its
    // number, first run first, and the matched table shows what the verdict pooled.
    let text = run(&["analyze", s(&two), "--detail"]).stdout;
    let first = text.find(&format!("adp/{job} (run 1)"));
    let second = text.find(&format!("adp/{job} (run 2)"));
    assert!(
        matches!((first, second), (Some(a), Some(b)) if a < b),
        "{text}"
    );
    let pooled = text
        .lines()
        .find(|l| l.starts_with("randwrite") && l.contains("8x8"))
        .unwrap_or("");
    assert!(pooled.contains("(2 runs)"), "{pooled}");
    // 6934 and 1.9 x 6934 MB/s: their geometric mean, not either run.
    let mean = (6934.0f64 * 6934.0 * 1.9).sqrt().round();
    let mean = reprobench::model::units::grouped(&format!("{mean}"));
    assert!(pooled.contains(&format!("{mean} (2 runs)")), "{pooled}");

    let three = tmp.path().join("three");
    copy_dir(&root().join("samples/storage-published"), &three);
    for array in ["adp", "raid10"] {
        let d = three.join("results").join(array);
        for (n, f) in [(2, 1.01), (3, 0.99)] {
            scaled_copy(
                &d.join(format!("{job}.json")),
                &d.join(format!("{job}-run{n}.json")),
                f,
            );
        }
    }
    let (_, v) = headline(&three, id);
    assert_eq!(v["status"], "pass", "{v}");
    let (low, high) = (
        v["interval"]["low"].as_f64().unwrap_or(0.0),
        v["interval"]["high"].as_f64().unwrap_or(f64::MAX),
    );
    let estimate = v["measured_value"].as_f64().unwrap_or(0.0);
    assert!(low < estimate && estimate < high && high / low < 1.1, "{v}");
    assert!(
        v["interval"]["method"]
            .as_str()
            .unwrap_or("")
            .contains("Welch"),
        "{v}"
    );
    assert_eq!(v["reproduction"]["status"], "reproduced", "{v}");
    assert_eq!(
        v["reproduction"]["basis"], "95% interval over the runs",
        "{v}"
    );

    // A pass is not a reproduction: three consistent ADP runs at 0.8 of the published
    // clear "at least 4x" at about 5.1x and do not reproduce the published 6.4x.
    let lower = tmp.path().join("lower");
    copy_dir(&three, &lower);
    let d = lower.join("results/adp");
    for n in ["", "-run2", "-run3"] {
        let f = d.join(format!("{job}{n}.json"));
        scaled_copy(&f, &f, 0.8);
    }
    let (_, v) = headline(&lower, id);
    assert_eq!(v["status"], "pass", "{v}");
    assert_eq!(v["reproduction"]["status"], "not-reproduced", "{v}");
    let label = v["reproduction"]["label"].as_str().unwrap_or("");
    assert!(
        label.contains("0.80 times the published, less than ±10%"),
        "{label}"
    );
}

/// A repeat far from its siblings (a run at 0.4 MB/s beside runs near 7,000) is named,
/// with how far apart it is, as the reason the verdict is inconclusive; no number of runs
/// is promised to settle it (the spread is not noise), and the interval's bounds are shown
/// only as far as they mean something (`below 0.01x`, not `0.00x`), the JSON keeping the
/// numbers. Repeats a few percent apart say none of this.
/// fio computes a direction's bandwidth from its bytes and runtime, and never writes a
/// negative amount: a file whose bandwidth is 1e300 B/s beside bytes and a runtime that
/// say 6,934 MB/s, or whose bandwidth is negative, is named as changed and not used.
/// Before, the first passed at "924,214,...(300 digits)x" and two negative sides passed
/// with no measured value.
#[test]
fn a_bandwidth_fio_did_not_compute_is_refused_with_its_file_and_the_verdict_is_not_a_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cases: [(&str, &str, f64); 2] = [
        ("big", "randwrite-8k-j8-d8", 1e300),
        ("negative", "randread-8k-j32-d32", -1.0),
    ];
    for (name, job, factor) in cases {
        let dir = tmp.path().join(name);
        copy_dir(&root().join("samples/storage-published"), &dir);
        for array in ["adp", "raid10"] {
            edit_json(&dir.join(format!("results/{array}/{job}.json")), |d| {
                for j in d["jobs"].as_array_mut().into_iter().flatten() {
                    for side in ["read", "write"] {
                        for key in ["bw", "bw_bytes", "iops"] {
                            if let Some(x) = j[side][key].as_f64().filter(|x| *x > 0.0) {
                                let v = if factor > 0.0 { factor } else { -x };
                                j[side][key] = serde_json::json!(v);
                            }
                        }
                    }
                }
            });
        }
        let (code, a) = analyze_json(&dir, &[]);
        for verdict in a["suites"][0]["verdicts"].as_array().into_iter().flatten() {
            let measured = verdict["measured"].to_string();
            assert!(!measured.contains("000,000,000,000"), "{name}: {verdict}");
            if verdict["status"] == "pass" {
                assert!(
                    !verdict["measured_value"].is_null() || verdict["id"] == "storage.exit-status",
                    "{name}: {verdict}"
                );
            }
        }
        let skipped = a["skipped"].to_string();
        let expected = if factor > 0.0 {
            "bandwidth of 1.00e300 B/s, where fio computes"
        } else {
            "a negative amount: fio writes none"
        };
        assert!(
            skipped.contains(&format!("results/adp/{job}.json")),
            "{name}: {skipped}"
        );
        assert!(skipped.contains(expected), "{name}: {skipped}");
        assert_ne!(code, 0, "{name}: a file refused is not an all-pass run");
    }
}

/// A job that moved no data is advised as one: read its output and rerun it. Before, its
/// ratio's advice was "run more repetitions" and the failed exit status's included the
/// drives' ceiling and discarding blocks, which say nothing about a job that did not run.
#[test]
fn a_job_that_moved_no_data_is_advised_to_be_read_and_rerun_not_repeated() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("zero");
    copy_dir(&root().join("samples/storage-published"), &dir);
    edit_json(&dir.join("results/adp/randwrite-8k-j8-d8.json"), |d| {
        scale_fio_counts(d, 0.0)
    });
    let (_, v) = headline(&dir, "storage.randwrite-8k-qd64");
    assert_eq!(v["status"], "inconclusive", "{v}");
    assert!(v["note"].to_string().contains("moved no data"), "{v}");
    let steps = v["check_next"].to_string();
    assert!(
        steps.contains("A job moved no data: read its fio output"),
        "{steps}"
    );
    assert!(!steps.contains("Run more repetitions"), "{steps}");
    let (_, exit) = headline(&dir, "storage.exit-status");
    assert_eq!(exit["status"], "fail", "{exit}");
    let steps = exit["check_next"].to_string();
    assert!(steps.contains("read its fio output"), "{steps}");
    assert!(!steps.contains("Physical limits"), "{steps}");
    assert!(!steps.contains("blkdiscard"), "{steps}");
}

#[test]
fn a_repeat_far_from_the_others_is_named_and_no_runs_are_promised_to_settle_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let job = "randwrite-8k-j8-d8";
    let id = "storage.randwrite-8k-qd64";
    let dir = tmp.path().join("apart");
    copy_dir(&root().join("samples/storage-published"), &dir);
    let adp = dir.join("results/adp");
    scaled_copy(
        &adp.join(format!("{job}.json")),
        &adp.join(format!("{job}-run2.json")),
        1.05,
    );
    scaled_copy(
        &adp.join(format!("{job}.json")),
        &adp.join(format!("{job}-run3.json")),
        0.00006,
    );
    let (_, v) = headline(&dir, id);
    assert_eq!(v["status"], "inconclusive", "{v}");
    let note = v["note"].as_str().unwrap_or("");
    assert!(
        note.starts_with(&format!(
            "repeats 17,500-fold apart (0.416 vs 7,281 MB/s): run 3 `results/adp/{job}-run3.json` and run 2 `results/adp/{job}-run2.json`"
        )),
        "{note}"
    );
    assert!(
        note.contains("more runs would dilute the odd one, not explain it"),
        "{note}"
    );
    assert_eq!(v["interval"]["apart"], true, "{v}");
    // The advice is to read that run, not to run more.
    let steps = v["check_next"].to_string();
    assert!(steps.contains("read the odd run's fio output"), "{steps}");
    assert!(!steps.contains("Run more repetitions"), "{steps}");
    assert!(!note.contains("would settle it"), "{note}");
    let measured = v["measured"].as_str().unwrap_or("");
    assert!(
        measured.contains("95% CI below 0.01x to above 100x"),
        "{measured}"
    );
    let (low, high) = (
        v["interval"]["low"].as_f64().unwrap_or(1.0),
        v["interval"]["high"].as_f64().unwrap_or(1.0),
    );
    assert!(low < 0.01 && high > 100.0, "{v}");

    // Repeats 5% apart: an interval with its numbers, and no word of disagreement.
    let close = tmp.path().join("close");
    copy_dir(&root().join("samples/storage-published"), &close);
    let adp = close.join("results/adp");
    scaled_copy(
        &adp.join(format!("{job}.json")),
        &adp.join(format!("{job}-run2.json")),
        1.05,
    );
    let (_, v) = headline(&close, id);
    let note = v["note"].as_str().unwrap_or("");
    assert!(!note.contains("apart"), "{note}");
    assert!(
        v["interval"].get("apart").is_none(),
        "left out when false: {v}"
    );
    let measured = v["measured"].as_str().unwrap_or("");
    assert!(
        measured.contains("95% CI ") && !measured.contains("below") && !measured.contains("above"),
        "{measured}"
    );
}

/// A copied result file is one run, not a repeat: byte-identical runs would give a
/// spread of zero and an interval of no width. A repeat keeps the number its file gives
/// (run 3 with no run 2 is run 3), and repeats by another fio version are said to be.
#[test]
fn a_copied_run_counts_once_and_repeats_keep_their_numbers_and_versions() {
    let tmp = tempfile::tempdir().expect("tmp");
    let job = "randwrite-8k-j8-d8";
    let id = "storage.randwrite-8k-qd64";
    let dir = tmp.path().join("copies");
    copy_dir(&root().join("samples/storage-published"), &dir);
    let adp = dir.join("results/adp");
    let original = adp.join(format!("{job}.json"));
    for n in [2, 3] {
        fs::copy(&original, adp.join(format!("{job}-run{n}.json"))).expect("copy");
    }
    let (_, v) = headline(&dir, id);
    assert!(v.get("interval").is_none(), "copies give no interval: {v}");
    let (_, whole) = analyze_json(&dir, &[]);
    let skipped = whole["skipped"].as_array().cloned().unwrap_or_default();
    for n in [2, 3] {
        let file = format!("results/adp/{job}-run{n}.json");
        assert!(
            skipped.iter().any(|x| x["file"] == file.as_str()
                && x["reason"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with(&format!("the same run as `results/adp/{job}.json`"))),
            "{skipped:?}"
        );
    }

    // The reason says what matched: these files carry no fio timestamp (0).
    let reason = skipped
        .iter()
        .find(|x| x["file"] == format!("results/adp/{job}-run2.json").as_str())
        .and_then(|x| x["reason"].as_str())
        .unwrap_or("")
        .to_string();
    assert!(reason.contains("no fio timestamp in either"), "{reason}");

    // fio's job named otherwise than the files (`--name=test`): the unnumbered file is
    // still run 1, the one kept.
    let named = tmp.path().join("named");
    copy_dir(&root().join("samples/storage-published"), &named);
    let d = named.join("results/adp");
    edit_json(&d.join(format!("{job}.json")), |v| {
        for j in v["jobs"].as_array_mut().into_iter().flatten() {
            j["jobname"] = serde_json::json!("test");
        }
    });
    fs::copy(
        d.join(format!("{job}.json")),
        d.join(format!("{job}-run2.json")),
    )
    .expect("copy");
    // The same numbers under another job's name is another job, not a copy.
    let other = d.join("another-job.json");
    fs::copy(d.join(format!("{job}.json")), &other).expect("copy");
    edit_json(&other, |v| {
        for j in v["jobs"].as_array_mut().into_iter().flatten() {
            j["jobname"] = serde_json::json!("another-job");
        }
    });
    let (_, whole) = analyze_json(&named, &[]);
    let skipped = whole["skipped"].as_array().cloned().unwrap_or_default();
    let copies: Vec<&str> = skipped
        .iter()
        .filter(|x| {
            x["reason"]
                .as_str()
                .unwrap_or("")
                .starts_with("the same run as")
        })
        .filter_map(|x| x["file"].as_str())
        .collect();
    assert_eq!(
        copies,
        vec![format!("results/adp/{job}-run2.json")],
        "{skipped:?}"
    );

    // Run 2 gone, run 3 a real repeat by a newer fio: listed as run 3, versions said.
    fs::remove_file(adp.join(format!("{job}-run2.json"))).expect("rm");
    let run3 = adp.join(format!("{job}-run3.json"));
    scaled_copy(&original, &run3, 1.02);
    edit_json(&run3, |v| v["fio version"] = serde_json::json!("fio-3.41"));
    let (_, v) = headline(&dir, id);
    let note = v["note"].as_str().unwrap_or("");
    assert!(
        note.contains(&format!("run 3 `results/adp/{job}-run3.json`")),
        "{note}"
    );
    assert!(!note.contains("run 2"), "{note}");
    assert!(
        note.contains("adp's runs were made by fio-3.33 and fio-3.41: pooled as repeats"),
        "{note}"
    );
    assert_eq!(v["interval"]["runs"], serde_json::json!([1, 2]), "{v}");
}

/// Repeats that agree to the last digit (a copy with another timestamp) have no spread:
/// no interval of no width, the point judges and the note says why. A copy in the other
/// array's folder is that run, not a run of the other array. A run that is not a result
/// shows no number.
#[test]
fn runs_that_agree_to_the_last_digit_give_no_interval_and_a_copy_elsewhere_is_no_run() {
    let tmp = tempfile::tempdir().expect("tmp");
    let job = "randwrite-8k-j8-d8";
    let id = "storage.randwrite-8k-qd64";
    let dir = tmp.path().join("same");
    copy_dir(&root().join("samples/storage-published"), &dir);
    let adp = dir.join("results/adp");
    let run2 = adp.join(format!("{job}-run2.json"));
    fs::copy(adp.join(format!("{job}.json")), &run2).expect("copy");
    edit_json(&run2, |v| v["timestamp"] = serde_json::json!(1_796_000_000));
    let (_, v) = headline(&dir, id);
    assert!(v.get("interval").is_none(), "{v}");
    assert_eq!(v["status"], "pass", "{v}");
    assert!(note(&v).contains("the runs agree to the last digit"), "{v}");
    assert_eq!(v["reproduction"]["basis"], "one point, no interval", "{v}");

    let dir = tmp.path().join("elsewhere");
    copy_dir(&root().join("samples/storage-published"), &dir);
    fs::copy(
        dir.join(format!("results/adp/{job}.json")),
        dir.join(format!("results/raid10/{job}-run2.json")),
    )
    .expect("copy");
    let (_, whole) = analyze_json(&dir, &[]);
    let copied = whole["skipped"].as_array().cloned().unwrap_or_default();
    assert!(
        copied.iter().any(
            |x| x["file"] == format!("results/raid10/{job}-run2.json").as_str()
                && x["reason"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with(&format!("the same run as `results/adp/{job}.json`"))
        ),
        "{copied:?}"
    );
    let (_, v) = headline(&dir, id);
    assert_eq!(v["status"], "pass", "{v}");
    assert!(v.get("interval").is_none(), "{v}");

    let dir = tmp.path().join("failed");
    copy_dir(&root().join("samples/storage-published"), &dir);
    edit_json(&dir.join(format!("results/adp/{job}.json")), |v| {
        for j in v["jobs"].as_array_mut().into_iter().flatten() {
            j["error"] = serde_json::json!(5);
        }
    });
    let (_, v) = headline(&dir, id);
    assert_eq!(v["status"], "inconclusive", "{v}");
    assert!(v["measured_value"].is_null(), "{v}");
    assert_eq!(v["measured"], "-", "{v}");
}

/// Two result trees of one procedure (`results/`, `results-newfio/`) are two campaigns:
/// not pooled, and the verdict says which tree it judged and how to judge the other.
#[test]
fn another_result_tree_is_another_campaign_not_a_repeat() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("trees");
    copy_dir(&root().join("samples/storage-published"), &dir);
    copy_dir(&dir.join("results"), &dir.join("results-newfio"));
    // The other tree's runs are runs of their own (a byte copy would be the same runs,
    // counted once).
    for array in ["adp", "raid10"] {
        for e in fs::read_dir(dir.join("results-newfio").join(array)).expect("ls") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "json") {
                scaled_copy(&p, &p, 1.01);
            }
        }
    }
    let (_, v) = headline(&dir, "storage.randwrite-8k-qd64");
    assert!(v.get("interval").is_none(), "not pooled: {v}");
    // The tables tell the trees apart by path, and each tree's runs are read with that
    // tree's own evidence (its `system/mdstat.txt`), not the other's.
    let text = run(&["analyze", s(&dir), "--detail"]).stdout;
    for tree in ["results", "results-newfio"] {
        let row = format!("\n{tree}/adp/randwrite-8k-j8-d8 ");
        assert!(text.contains(&row), "no row {row:?}: {text}");
        // Where a tree's raid10 limits' member drives come from, said once for them.
        let bound: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("member drives:"))
            .filter(|l| l.contains(&format!("[{tree}/raid10/")))
            .collect();
        assert!(!bound.is_empty(), "{text}");
        for l in bound {
            assert!(l.contains(&format!("`{tree}/system/mdstat.txt`")), "{l}");
        }
    }
    assert!(!text.contains("which drives are behind it"), "{text}");
    // Only the candidate in the second tree (which sorts first): both sides are still
    // judged from the tree that holds both, never one from each.
    let lone = tmp.path().join("lone");
    copy_dir(&root().join("samples/storage-published"), &lone);
    copy_dir(&lone.join("results/adp"), &lone.join("results-newfio/adp"));
    let job = lone.join("results-newfio/adp/randwrite-8k-j8-d8.json");
    scaled_copy(&job, &job, 0.5);
    let (_, sample) = headline(
        &root().join("samples/storage-published"),
        "storage.randwrite-8k-qd64",
    );
    let (_, v) = headline(&lone, "storage.randwrite-8k-qd64");
    assert_eq!(v["measured"], sample["measured"], "{v}");
    assert!(
        v["note"]
            .as_str()
            .unwrap_or("")
            .contains("`results-newfio`"),
        "{v}"
    );
    let note = v["note"].as_str().unwrap_or("");
    assert!(
        note.contains("another result tree is another campaign"),
        "{note}"
    );
    assert!(note.contains("`results-newfio`"), "{note}");
}

/// A result file this reader cannot read (here a FIFO where fio's JSON was; as a user,
/// permission denied) says nothing of how fio exited: "every fio job exits with status 0"
/// is inconclusive and names the file, never failed ("fio wrote no JSON"), and the
/// other files are still judged.
#[test]
fn an_unreadable_result_is_the_readers_problem_not_fios() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("st");
    copy_dir(&root().join("samples/storage-published"), &dir);
    let json = dir.join("results/adp/randwrite-8k-j8-d8.json");
    std::fs::remove_file(&json).expect("rm");
    nix::unistd::mkfifo(&json, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let (_, v) = analyze_json(&dir, &[]);
    let x = verdict(&v, "storage.exit-status");
    assert_eq!(x["status"], "inconclusive", "{x}");
    let note = x["note"].as_str().unwrap_or("");
    assert!(
        note.contains("randwrite-8k-j8-d8.json") && note.contains("could not be read"),
        "{note}"
    );
    assert!(!note.contains("fio wrote no JSON"), "{note}");
    // A result fio cut off mid-write is fio's: still a fail.
    let (_, v) = analyze_json(&root().join("samples/storage-published"), &[]);
    assert_eq!(verdict(&v, "storage.exit-status")["status"], "pass");
    std::fs::remove_file(&json).expect("rm fifo");
    let text = std::fs::read_to_string(
        root().join("samples/storage-published/results/adp/randwrite-8k-j8-d8.json"),
    )
    .expect("json");
    std::fs::write(&json, &text[..text.len() / 2]).expect("write");
    let (_, v) = analyze_json(&dir, &[]);
    assert_eq!(verdict(&v, "storage.exit-status")["status"], "fail");
}

/// Evidence is checked for plausibility before it is used: an iostat log with far more
/// one-second samples than its job ran (another run's log renamed beside it) is not this
/// job's, so it is skipped with the reason and says nothing about the job's drives.
#[test]
fn an_iostat_log_longer_than_its_job_is_not_that_jobs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("st");
    copy_dir(&root().join("samples/storage-published"), &dir);
    let log = dir.join("results/adp/iostat/randwrite-8k-j8-d8.iostat");
    let text = std::fs::read_to_string(&log).expect("iostat");
    let at = text.find("avg-cpu").expect("a block");
    let (head, blocks) = text.split_at(at);
    // 25 times its samples: 275 one-second samples beside a 60 s job.
    std::fs::write(&log, format!("{head}{}", blocks.repeat(25))).expect("write");
    let (_, v) = analyze_json(&dir, &[]);
    let skipped = v["skipped"].to_string();
    assert!(
        skipped.contains("randwrite-8k-j8-d8.iostat")
            && skipped.contains("not this job's iostat log"),
        "{skipped}"
    );
    // The untouched sample uses its log.
    let (_, v) = analyze_json(&root().join("samples/storage-published"), &[]);
    assert!(!v["skipped"].to_string().contains("not this job's"));
}

/// An iostat log from another day or another machine, renamed beside a job (its length
/// plausible), is not that job's either: its banner's date is compared with when fio
/// wrote the job's result (in any locale's order), and its host with the host the rest
/// of the array folder's logs name. Built from the sample measured here (real fio and
/// iostat), the way a mixed-up folder happens: one log's banner from elsewhere.
#[test]
fn an_iostat_log_dated_or_hosted_elsewhere_is_not_that_jobs() {
    let sample = root().join("samples/storage-loopback");
    let (_, v) = analyze_json(&sample, &[]);
    assert!(
        !v["skipped"].to_string().contains("not this job's"),
        "the measured sample's logs are its own: {}",
        v["skipped"]
    );
    let rel = "results/adp/iostat/randread-8k-j1-d1.iostat";
    let original = std::fs::read_to_string(sample.join(rel)).expect("iostat");
    let (banner, rest) = original.split_once('\n').expect("a banner line");
    assert!(banner.contains("(vm)"), "{banner}");
    for (other_banner, says) in [
        // Another year, day first: no reading of it is near 2026-11-30.
        (
            "Linux 4.15.0-213-generic (vm) \t14/03/2019 \t_x86_64_\t(16 CPU)",
            "its banner is dated 2019-03-14",
        ),
        // The same day on another host.
        (
            "Linux 6.18.44-fc-v657 (lab-old) \t2026-11-30 \t_x86_64_\t(2 CPU)",
            "its banner names host `lab-old`",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("st");
        copy_dir(&sample, &dir);
        std::fs::write(dir.join(rel), format!("{other_banner}\n{rest}")).expect("write");
        let (_, v) = analyze_json(&dir, &[]);
        let skipped: Vec<&serde_json::Value> = v["skipped"]
            .as_array()
            .expect("skipped")
            .iter()
            .filter(|s| {
                s["file"]
                    .as_str()
                    .is_some_and(|f| f.ends_with("randread-8k-j1-d1.iostat"))
            })
            .collect();
        assert_eq!(skipped.len(), 1, "{}", v["skipped"]);
        let reason = skipped[0]["reason"].as_str().unwrap_or("");
        assert!(
            reason.contains("not this job's iostat log") && reason.contains(says),
            "{reason}"
        );
        // Only that log: the folder's other logs are still read.
        assert_eq!(
            v["skipped"].to_string().matches("not this job's").count(),
            1,
            "{}",
            v["skipped"]
        );
    }
}

/// The procedure's table is what its script prints, also where the script does not read
/// what reprobench reads: fio 2.x output (no `bw_bytes`, latencies in µs) prints 0 MB/s
/// and `-`, and a `fio --client` file (`client_stats`, no `jobs`) stops the script with
/// a KeyError after the header and the rows sorted before it. Compared with the script
/// run live on the same folder (its stdout, whatever its exit status).
#[test]
fn script_table_is_what_the_script_prints_on_old_fio_and_where_it_stops() {
    if !need("python3") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let results = tmp.path().join("st/results");
    let shapes = root().join("tests/fixtures/fio-shapes");
    let loopback = root().join("samples/storage-loopback/results");
    fs::create_dir_all(results.join("adp")).expect("mkdir");
    fs::create_dir_all(results.join("raid10")).expect("mkdir");
    for (from, to) in [
        (
            loopback.join("adp/randread-8k-j1-d1.json"),
            "adp/randread-8k-j1-d1.json",
        ),
        (
            shapes.join("fio-2.15-randread-8k.json"),
            "raid10/a-fio2-randread.json",
        ),
        (
            shapes.join("client-server-one.json"),
            "raid10/b-client-randread.json",
        ),
        (
            loopback.join("raid10/randread-8k-j1-d1.json"),
            "raid10/randread-8k-j1-d1.json",
        ),
    ] {
        fs::copy(&from, results.join(to)).expect("copy");
    }
    let files = [
        "adp/randread-8k-j1-d1.json",
        "raid10/a-fio2-randread.json",
        "raid10/b-client-randread.json",
        "raid10/randread-8k-j1-d1.json",
    ];
    let out = Process::new("python3")
        .arg(root().join("tests/fixtures/procedure-storage-table.py"))
        .args(files)
        .current_dir(&results)
        .output()
        .expect("python runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("KeyError: 'jobs'"),
        "{stderr}"
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        printed.lines().count(),
        3,
        "header, adp and the fio 2.x row: {printed}"
    );
    let (_, v) = analyze_json(&tmp.path().join("st"), &[]);
    assert_eq!(script_text(&v), printed.trim_end());
    let notes = v["suites"][0]["preformatted"][0]["notes"].to_string();
    for expect in [
        "`results/raid10/a-fio2-randread.json`: fio 2.x units",
        "`results/raid10/b-client-randread.json`: fio --client output",
        "KeyError: 'jobs'",
        "the 2 row(s) of the files sorted before this one",
        "none for this file or the 1 after it",
    ] {
        assert!(notes.contains(expect), "{expect}: {notes}");
    }
    // A result fio cut off mid-write, sorted first: the script stops on it at once (a
    // JSONDecodeError), printing only its header; reprobench says so and why.
    let text = fs::read_to_string(results.join("adp/randread-8k-j1-d1.json")).expect("json");
    fs::write(results.join("adp/a-cut.json"), &text[..text.len() / 2]).expect("write");
    let out = Process::new("python3")
        .arg(root().join("tests/fixtures/procedure-storage-table.py"))
        .args(["adp/a-cut.json"].iter().chain(files.iter()))
        .current_dir(&results)
        .output()
        .expect("python runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("JSONDecodeError"), "{stderr}");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(printed.lines().count(), 1, "only the header: {printed}");
    let (_, v) = analyze_json(&tmp.path().join("st"), &[]);
    assert_eq!(script_text(&v), printed.trim_end());
    let notes = v["suites"][0]["preformatted"][0]["notes"].to_string();
    assert!(
        notes.contains("`results/adp/a-cut.json`: not readable as fio output")
            && notes.contains("only its header"),
        "{notes}"
    );
    assert!(
        notes.contains("(past where the script stops)"),
        "the fio 2.x file's note says the script never reached it: {notes}"
    );
}

/// An iostat log whose member drives' write MB/s in each sample is scaled by a factor
/// from `factors` (in turn, by sample), the columns kept as iostat writes them.
fn jitter_iostat(log: &std::path::Path, factors: &[f64]) {
    let text = fs::read_to_string(log).expect("iostat");
    // 60 one-second samples of the job's first busy sample, as a 60 s run writes them
    // (the sample's own log is 11 samples: too short a window for batches).
    let at = text.find("avg-cpu").expect("a block");
    let (head, rest) = text.split_at(at);
    let busy = rest
        .split_inclusive("\n\n\n")
        .find(|b| {
            b.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 8
                    && f[0].starts_with("nvme")
                    && f[8].parse::<f64>().is_ok_and(|w| w > 100.0)
            })
        })
        .expect("a busy sample");
    let busy = if busy.ends_with("\n\n\n") {
        busy.to_string()
    } else {
        format!("{}\n\n", busy.trim_end_matches('\n'))
    };
    let text = format!("{head}{}", busy.repeat(60));
    let mut block = 0usize;
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("avg-cpu") {
            block += 1;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let busy = fields.len() > 8
            && fields[0].starts_with("nvme")
            && fields[8].parse::<f64>().is_ok_and(|w| w > 100.0);
        if busy {
            let w: f64 = fields[8].parse().unwrap_or(0.0);
            let f = factors[block % factors.len()];
            let mut cols: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
            cols[8] = format!("{:.2}", w * f);
            out.push_str(&format!("{:<12}", cols[0]));
            for c in &cols[1..] {
                out.push_str(&format!(" {c:>9}"));
            }
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    fs::write(log, out).expect("write");
}

/// One run a side with per-second series: the interval comes from within each run (batch
/// means over its steady window), is named as such, and the status follows it: clear of
/// the threshold it judges; straddling it, it is inconclusive and says to repeat the runs.
/// A series without any spread (the published sample's, made from published figures)
/// gives no interval: the point is judged, as the procedure's script does.
#[test]
fn one_run_a_side_is_judged_by_an_interval_from_within_the_runs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let job = "randwrite-8k-j8-d8";
    let id = "storage.randwrite-8k-qd64";
    let dir = tmp.path().join("jitter");
    copy_dir(&root().join("samples/storage-published"), &dir);
    let pattern = [
        0.95, 1.04, 0.99, 1.06, 0.97, 1.02, 0.94, 1.05, 1.0, 0.98, 1.03,
    ];
    for array in ["adp", "raid10"] {
        jitter_iostat(
            &dir.join(format!("results/{array}/iostat/{job}.iostat")),
            &pattern,
        );
    }
    let (_, sample) = headline(&root().join("samples/storage-published"), id);
    let (_, v) = headline(&dir, id);
    assert_eq!(
        v["measured_value"], sample["measured_value"],
        "the point is the script's"
    );
    assert_eq!(v["status"], "pass", "{v}");
    let method = v["interval"]["method"].as_str().unwrap_or("");
    assert!(
        method.starts_with("within one run a side: batch means"),
        "{v}"
    );
    let (low, high) = (
        v["interval"]["low"].as_f64().unwrap_or(0.0),
        v["interval"]["high"].as_f64().unwrap_or(0.0),
    );
    let x = v["measured_value"].as_f64().unwrap_or(0.0);
    assert!(low < x && x < high && low > 4.0, "{v}");
    assert!(
        v["note"]
            .as_str()
            .unwrap_or("")
            .contains("says nothing of how runs differ"),
        "{v}"
    );
    // The same spread about the threshold: ADP at 0.625 of its bandwidth (about 4.01x).
    let near = tmp.path().join("near");
    copy_dir(&dir, &near);
    let f = near.join(format!("results/adp/{job}.json"));
    scaled_copy(&f, &f, 0.625);
    let (_, v) = headline(&near, id);
    let (low, high) = (
        v["interval"]["low"].as_f64().unwrap_or(f64::NAN),
        v["interval"]["high"].as_f64().unwrap_or(f64::NAN),
    );
    assert!(
        low < 4.0 && 4.0 < high,
        "the interval straddles 4x here: {v}"
    );
    assert_eq!(v["status"], "inconclusive", "{v}");
    assert!(
        v["note"]
            .as_str()
            .unwrap_or("")
            .contains("repeat the runs (`collect storage --until-settled`)"),
        "{v}"
    );
    assert!(sample.get("interval").is_none(), "{sample}");
}

/// A RAID10 that ran with a member missing (`[4/3] [UU_U]` in the kernel's mdstat) is
/// not the array the procedure measures: a deviation that makes its ratios not
/// comparable, naming the file and line. Before, analyze read that file for the member
/// drives and said nothing, and every criterion passed.
#[test]
fn a_degraded_md_array_in_mdstat_makes_its_ratios_not_comparable() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("degraded");
    copy_dir(&root().join("samples/storage-published"), &dir);
    let mdstat = dir.join("results/system/mdstat.txt");
    let text = fs::read_to_string(&mdstat).expect("mdstat");
    assert!(text.contains("[UUUU]"), "{text}");
    fs::write(&mdstat, text.replace("[4/4] [UUUU]", "[4/3] [UU_U]")).expect("w");
    let (code, v) = headline(&dir, "storage.randwrite-8k-qd64");
    assert_eq!(v["status"], "not-comparable", "{v}");
    assert!(v["note"].to_string().contains("UU_U"), "{v}");
    assert_ne!(code, 0);
    let (_, whole) = headline(
        &root().join("samples/storage-published"),
        "storage.randwrite-8k-qd64",
    );
    assert_eq!(whole["status"], "pass");
}
