//! Every number around the verdicts traced to what the files determine: one folder per
//! case a new user met (set-aside runs, guessed array members, mixed units, nothing
//! judged, pooled medians, observations without caveats, deviations too broad or missed,
//! guessed shapes, shares on the wrong basis, advice that contradicts the files, facts
//! ignored), each made from a sample or a real run.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;

fn copy_of(sample: &str, tmp: &Path) -> PathBuf {
    let d = tmp.join("run");
    copy_dir(&root().join("samples").join(sample), &d);
    d
}

fn skipped_reason(v: &serde_json::Value, file: &str) -> String {
    v["skipped"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["file"] == file)
        .and_then(|s| s["reason"].as_str())
        .unwrap_or_default()
        .to_string()
}

// ---- 1. set-aside files ----

#[test]
fn a_run_the_collector_set_aside_is_never_judged_and_bundles_keep_it_as_evidence() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("storage-loopback", tmp.path());
    let (code0, before) = analyze_json(&d, &[]);
    // As the collector leaves an interrupted run (real fio output) beside the resumed one,
    // and where it now moves them.
    let job = d.join("results/raid10/randrw-8k-j128-d8.json");
    fs::copy(
        &job,
        d.join("results/raid10/randrw-8k-j128-d8.json.interrupted"),
    )
    .expect("cp");
    let aside = d.join("results/.reprobench/interrupted/raid10");
    fs::create_dir_all(&aside).expect("mkdir");
    fs::copy(&job, aside.join("randrw-8k-j128-d8.json")).expect("cp");
    let (code, after) = analyze_json(&d, &[]);
    assert_eq!(code, code0);
    assert_eq!(statuses(&after), statuses(&before), "same verdicts");
    let exit = verdict(&after, "storage.exit-status");
    assert_eq!(
        exit["measured"],
        verdict(&before, "storage.exit-status")["measured"]
    );
    for f in [
        "results/raid10/randrw-8k-j128-d8.json.interrupted",
        "results/.reprobench/interrupted/raid10/randrw-8k-j128-d8.json",
    ] {
        assert!(
            skipped_reason(&after, f).contains("set aside (interrupted)"),
            "{f}: {}",
            after["skipped"]
        );
    }
    let text = after.to_string();
    assert!(!text.contains("2 runs named"), "no duplicate run");
    // The bundle keeps them, as what the collector set aside, never as a suite's read.
    let out = tmp.path().join("b.tar.gz");
    let r = run(&[
        "bundle",
        d.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let files = tar_contents(&out);
    let manifest: serde_json::Value =
        serde_json::from_slice(&files["manifest.json"]).expect("manifest");
    let why = |p: &str| {
        manifest["files"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f["path"].as_str().is_some_and(|x| x.ends_with(p)))
            .map(|f| f["why"].as_str().unwrap_or_default().to_string())
            .unwrap_or_else(|| panic!("{p} is in the bundle: {manifest}"))
    };
    for p in [
        "raid10/randrw-8k-j128-d8.json.interrupted",
        ".reprobench/interrupted/raid10/randrw-8k-j128-d8.json",
    ] {
        let w = why(p);
        assert!(
            w.contains("set aside") && !w.contains("read by"),
            "{p}: {w}"
        );
    }
}

// ---- 2. array members from the evidence ----

/// The published sample with an idle `sda` line in every iostat sample.
fn with_idle_sda(d: &Path) {
    for array in ["raid10", "adp"] {
        for e in fs::read_dir(d.join(format!("results/{array}/iostat")))
            .expect("ls")
            .flatten()
        {
            let t = fs::read_to_string(e.path()).expect("read");
            let mut out = String::new();
            for line in t.lines() {
                out.push_str(line);
                out.push('\n');
                if line.starts_with("nvme3n1") {
                    let zeros = line
                        .split_whitespace()
                        .skip(1)
                        .map(|_| "0.00")
                        .collect::<Vec<_>>();
                    out.push_str(&format!("sda {}\n", zeros.join(" ")));
                }
            }
            fs::write(e.path(), out).expect("write");
        }
    }
}

#[test]
fn members_come_from_mdstat_never_from_whichever_devices_iostat_lists() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("storage-published", tmp.path());
    with_idle_sda(&d);
    let (_, v) = analyze_json(&d, &[]);
    let text = serde_json::to_string(&limits(&v)).expect("json");
    assert!(!text.contains("5 member"), "sda is no member: {text}");
    let l = limits(&v)
        .into_iter()
        .find(|l| l["subject"] == "raid10/write-1m-j8-d4")
        .expect("limit");
    assert!(
        l["bound"]
            .as_str()
            .unwrap_or("")
            .starts_with("4 member drive(s) moved"),
        "{l}"
    );
    assert!(
        l["source"]
            .as_str()
            .unwrap_or("")
            .starts_with("member drives: `md126` in `results/system/mdstat.txt`"),
        "{l}"
    );
    let b = observation(&v, "storage.drive-balance.raid10");
    assert!(
        b["measured"].as_str().unwrap_or("").starts_with("4 drives"),
        "{b}"
    );
    assert!(!b["measured"].as_str().unwrap_or("").contains("sda"), "{b}");
    // Without /proc/mdstat nothing says which drives /dev/md126 has: unknown, not five.
    fs::remove_file(d.join("results/system/mdstat.txt")).expect("rm");
    let (_, v) = analyze_json(&d, &[]);
    for l in limits(&v) {
        let bound = l["bound"].as_str().unwrap_or("");
        assert!(bound.starts_with("unknown:"), "{l}");
        assert!(l["bound_value"].is_null(), "{l}");
    }
    let b = observation(&v, "storage.drive-balance.raid10");
    assert!(
        b["measured"]
            .as_str()
            .unwrap_or("")
            .starts_with("unknown: fio wrote to `/dev/md126`"),
        "{b}"
    );
    let c = observation(&v, "storage.usable-capacity");
    assert_eq!(c["measured"], "-", "{c}");
}

#[test]
fn fios_own_disk_util_names_an_md_devices_members() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("storage-published", tmp.path());
    fs::remove_file(d.join("results/system/mdstat.txt")).expect("rm");
    with_idle_sda(&d);
    // What fio writes for a job on an md device: the array with aggr_* figures, then
    // each member disk.
    let md = serde_json::json!({"name": "md126", "read_ios": 0, "write_ios": 1, "util": 0.0,
        "aggr_read_ios": 0, "aggr_write_ios": 1, "aggr_util": 90.0});
    let disk =
        |n: &str| serde_json::json!({"name": n, "read_ios": 0, "write_ios": 1, "util": 90.0});
    edit_json(&d.join("results/raid10/write-1m-j8-d4.json"), |v| {
        v["disk_util"] = serde_json::json!([
            md,
            disk("nvme0n1"),
            disk("nvme1n1"),
            disk("nvme2n1"),
            disk("nvme3n1")
        ]);
    });
    let (_, v) = analyze_json(&d, &[]);
    let l = limits(&v)
        .into_iter()
        .find(|l| l["subject"] == "raid10/write-1m-j8-d4")
        .expect("limit");
    assert!(
        l["bound"]
            .as_str()
            .unwrap_or("")
            .starts_with("4 member drive(s) moved"),
        "{l}"
    );
    assert_eq!(
        l["source"], "member drives: `md126`'s member disks in fio's disk_util",
        "{l}"
    );
}

#[test]
fn a_loop_device_and_the_disk_under_it_are_not_both_members_real_fio() {
    // The loopback sample is real fio and iostat on loop devices over files on this
    // machine's disk: its iostat logs show that disk moving the same data again.
    let (_, v) = analyze_json(&root().join("samples/storage-loopback"), &[]);
    for l in limits(&v) {
        let bound = l["bound"].as_str().unwrap_or("");
        if l["bound_value"].is_null() {
            continue;
        }
        assert!(bound.starts_with("4 member drive(s) moved"), "{l}");
        assert_eq!(
            l["source"], "member drives: the drives fio's filename names",
            "{l}"
        );
    }
    let text =
        serde_json::to_string(&observation(&v, "storage.drive-balance.raid10")).expect("json");
    assert!(!text.contains("vda") && !text.contains("sda"), "{text}");
}

// ---- 3. units ----

#[test]
fn every_derived_bandwidth_sits_beside_its_source_in_both_units() {
    let (_, v) = analyze_json(&root().join("samples/storage-published"), &[]);
    let l = limits(&v)
        .into_iter()
        .find(|l| l["subject"] == "adp/randread-8k-j32-d32")
        .expect("limit");
    // fio's 19,589 MB/s (decimal) is 18,682 MiB/s; the drives moved the same.
    assert_eq!(l["measured"], "fio 19,589 MB/s (18,682 MiB/s)", "{l}");
    assert!(
        l["bound"]
            .as_str()
            .unwrap_or("")
            .contains("moved 19,589 MB/s (18,682 MiB/s)"),
        "{l}"
    );
    let (fio, drives) = (
        l["measured_value"].as_f64().unwrap_or(0.0),
        l["bound_value"].as_f64().unwrap_or(0.0),
    );
    assert!(
        (fio - drives).abs() / fio < 0.001,
        "one unit: {fio} vs {drives}"
    );
    // Per drive, in the balance observation, too.
    let b = observation(&v, "storage.drive-balance.adp");
    assert!(
        b["measured"]
            .as_str()
            .unwrap_or("")
            .contains("nvme0n1 1,733 MB/s (1,653 MiB/s)"),
        "{b}"
    );
}

// ---- 4. nothing judged; the SPDK tree ----

/// A real SPDK results tree: `results/<array>/` runs naming `configs/<array>.json` in
/// their `spdk_json_conf`, RPC outputs and logs beside.
fn spdk_tree(tmp: &Path) -> PathBuf {
    let d = tmp.join("bench");
    let s = root().join("samples/spdk-raid-published/spdk");
    for (name, src) in [("raid5f", "raid5f-8"), ("raw", "raw-8")] {
        fs::create_dir_all(d.join("results").join(name)).expect("mkdir");
        fs::create_dir_all(d.join("configs")).expect("mkdir");
        fs::create_dir_all(d.join("rpc")).expect("mkdir");
        for e in fs::read_dir(s.join(src)).expect("ls").flatten() {
            if e.path().is_dir() {
                continue;
            }
            let file = e.file_name().to_string_lossy().into_owned();
            let text = fs::read_to_string(e.path()).expect("read");
            match file.as_str() {
                "config.json" => fs::write(d.join("configs").join(format!("{name}.json")), text),
                f if f.starts_with("bdev_raid") => fs::write(d.join("rpc").join(f), text),
                _ => fs::write(
                    d.join("results").join(name).join(&file),
                    text.replace(
                        &format!("/home/xinnor/spdk/{src}/config.json"),
                        &format!("/home/lab/bench/configs/{name}.json"),
                    ),
                ),
            }
            .expect("write");
        }
    }
    fs::create_dir_all(d.join("logs")).expect("mkdir");
    fs::write(
        d.join("logs/spdk_tgt.log"),
        "Starting SPDK v26.05 / DPDK 24.03.0 initialization...\n",
    )
    .expect("w");
    d
}

#[test]
fn a_real_spdk_tree_is_read_through_spdk_json_conf() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = spdk_tree(tmp.path());
    let (code, v) = analyze_json(&d, &[]);
    let rr = verdict(&v, "spdk-raid.raid5f.random-read");
    assert_eq!(rr["status"], "pass", "{rr}");
    assert!(
        rr["criterion"]
            .as_str()
            .unwrap_or("")
            .contains("raid5f, 8 drives"),
        "{rr}"
    );
    assert!(
        code == 1,
        "not every criterion is met (no degraded runs): {code}"
    );
    let files = v["suites"][0]["files_read"].to_string();
    assert!(files.contains("configs/raid5f.json"), "{files}");
}

#[test]
fn a_run_where_no_criterion_was_judged_exits_2_with_the_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = spdk_tree(tmp.path());
    // Without the configs nothing gives the drive count: nothing can be judged.
    fs::remove_dir_all(d.join("configs")).expect("rm");
    fs::remove_dir_all(d.join("rpc")).expect("rm");
    let r = run(&["analyze", d.to_str().unwrap_or("")]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("no criterion was judged"), "{}", r.stderr);
    // One arm of a comparison judges nothing either.
    let one = tmp.path().join("one");
    copy_dir(
        &root().join("samples/storage-published/results/raid10"),
        &one.join("results/raid10"),
    );
    let (code, _) = analyze_json(&one, &[]);
    assert_eq!(code, 2, "every criterion not measured is not a pass");
}

// ---- 5. medians ----

#[test]
fn failing_and_early_stopped_runs_never_feed_a_median() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run");
    copy_dir(
        &root().join("samples/kv-cache-published/results"),
        &d.join("results"),
    );
    let (_, before) = analyze_json(&d, &[]);
    let p = d.join("results/gpu-only-2-L2.log");
    let t = fs::read_to_string(&p).expect("r");
    fs::write(&p, t.replacen("num_failures=0", "num_failures=5", 1)).expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let l2 = verdict(&v, "kv-ladder.L2-parity");
    assert_eq!(l2["status"], "fail");
    // The median of gpu-only at 2 clients is gpu-only-1's alone now: the measured
    // ratio changes, and the note says which runs fed it.
    assert_ne!(
        l2["measured"],
        verdict(&before, "kv-ladder.L2-parity")["measured"],
        "{l2}"
    );
    assert!(
        note(&l2).contains("vs gpu-only-1 (left out of the medians: gpu-only-2-L2 (failed))"),
        "{l2}"
    );
}

// ---- 6. observations through the deviation rules ----

#[test]
fn the_qd1_observation_on_short_runs_is_marked_not_comparable() {
    let (_, v) = analyze_json(&root().join("samples/storage-loopback"), &[]);
    let o = observation(&v, "storage.qd1-read-latency");
    assert!(
        note(&o).starts_with("not comparable with the published value: runtime 4 s"),
        "{o}"
    );
    for l in limits(&v).iter().filter(|l| !l["bound_value"].is_null()) {
        assert!(
            l["deviates"]
                .as_str()
                .unwrap_or("")
                .starts_with("runtime 4 s"),
            "{l}"
        );
    }
}

// ---- 7. deviations: too broad, missed ----

#[test]
fn a_long_other_prompt_changes_the_time_criterion_not_the_cached_share() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("kv-cache-published", tmp.path());
    for v in ["adp", "gpu-only"] {
        let p = d.join(format!("restore/{v}.txt"));
        let t = fs::read_to_string(&p).expect("r");
        fs::write(
            &p,
            t.replace("196531", "116642").replace("196480", "116608"),
        )
        .expect("w");
    }
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(verdict(&v, "kv-restore.cached")["status"], "pass");
    assert_eq!(verdict(&v, "kv-restore.time")["status"], "not-comparable");
    // A prompt under 100 chunks can lose more than 1% to whole-chunk rounding: where a
    // restore missed 99% (5,888 of 5,985), the miss may be the rounding, not the card.
    for v in ["adp", "gpu-only"] {
        let p = d.join(format!("restore/{v}.txt"));
        let t = fs::read_to_string(&p).expect("r");
        fs::write(&p, t.replace("116642", "5985").replace("116608", "5888")).expect("w");
    }
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(verdict(&v, "kv-restore.cached")["status"], "not-comparable");
    // Where every restore still reached 99%, the short prompt changed nothing it judges.
    for v in ["adp", "gpu-only"] {
        let p = d.join(format!("restore/{v}.txt"));
        let t = fs::read_to_string(&p).expect("r");
        fs::write(&p, t.replace("5985", "5937")).expect("w");
    }
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(verdict(&v, "kv-restore.cached")["status"], "pass");
}

#[test]
fn spdk_full_stripe_runs_without_offset_increment_are_flagged() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = spdk_tree(tmp.path());
    for e in fs::read_dir(d.join("results/raid5f"))
        .expect("ls")
        .flatten()
    {
        let t = fs::read_to_string(e.path()).expect("r");
        fs::write(
            e.path(),
            t.replace("\"offset_increment\"", "\"was_offset_increment\""),
        )
        .expect("w");
    }
    let (_, v) = analyze_json(&d, &[]);
    let read = verdict(&v, "spdk-raid.raid5f.full-stripe-read");
    assert_eq!(read["status"], "not-comparable", "{read}");
    assert!(note(&read).contains("offset_increment"), "{read}");
}

// ---- 8. shapes, signals, pasted runs ----

#[test]
fn a_fio_2_write_only_file_without_options_has_an_unknown_shape() {
    // fio 2.x files record no options (here: a real fio 2.15 file with its options
    // removed and its read figures moved to the write side, as a write-only job).
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run/results");
    for a in ["raid10", "adp"] {
        fs::create_dir_all(d.join(a)).expect("mkdir");
        let p = d.join(a).join("write-8k.json");
        fs::copy(
            root().join("tests/fixtures/fio-shapes/fio-2.15-randread-8k.json"),
            &p,
        )
        .expect("cp");
        edit_json(&p, |v| {
            if let Some(m) = v.as_object_mut() {
                m.remove("global options");
            }
            let job = &mut v["jobs"][0];
            let read = job["read"].clone();
            job["write"] = read.clone();
            if let Some(r) = job["read"].as_object_mut() {
                for (_, x) in r.iter_mut() {
                    if x.is_number() {
                        *x = 0.into();
                    }
                }
            }
        });
    }
    let r = run(&[
        "analyze",
        d.parent().map(|p| p.to_str().unwrap_or("")).unwrap_or(""),
        "--detail",
    ]);
    assert!(!r.stdout.contains("read ? 1x1"), "{}", r.stdout);
    assert!(
        r.stdout.contains("unknown (no options in the file)"),
        "{}",
        r.stdout
    );
}

#[test]
fn fios_signal_line_anywhere_marks_the_run_cut_short() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("storage-loopback", tmp.path());
    let p = d.join("results/adp/randwrite-8k-j8-d8.json");
    let t = fs::read_to_string(&p).expect("r");
    // After the JSON, as `2>&1` into the file leaves it when the signal comes late.
    fs::write(&p, format!("{t}fio: terminating on signal 2\n")).expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let e = verdict(&v, "storage.exit-status");
    assert_eq!(e["status"], "fail", "{e}");
    assert!(note(&e).contains("terminating on signal 2"), "{e}");
    let r = run(&["analyze", d.to_str().unwrap_or(""), "--detail"]);
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with("adp/randwrite-8k-j8-d8 ") && l.contains("randwrite 8k"))
        .unwrap_or("");
    assert!(
        row.contains("interrupted"),
        "the results row says so: {row}"
    );
}

#[test]
fn two_runs_pasted_into_one_file_are_not_status_reports() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("storage-loopback", tmp.path());
    let (_, before) = analyze_json(&d, &[]);
    let p = d.join("results/adp/randwrite-8k-j8-d8.json");
    let other = fs::read_to_string(d.join("results/adp/write-1m-j8-d4.json")).expect("r");
    let t = fs::read_to_string(&p).expect("r");
    fs::write(&p, format!("{other}{t}")).expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let w = verdict(&v, "storage.randwrite-8k-qd64");
    assert!(note(&w).contains("2 separate runs"), "{w}");
    assert_eq!(w["status"], "not-comparable", "{w}");
    // Real status reports of one run (--status-interval) stay one run.
    let s = root().join("tests/fixtures/fio/status-interval.json");
    let r = run(&["analyze", s.to_str().unwrap_or(""), "--detail"]);
    assert!(r.stdout.contains("status reports"), "{}", r.stdout);
    assert!(!r.stdout.contains("separate runs"), "{}", r.stdout);
    let _ = before;
}

// ---- 9. shares ----

#[test]
fn a_share_is_given_only_for_the_run_its_criterion_judged() {
    let r = run(&[
        "analyze",
        root()
            .join("samples/spdk-raid-published")
            .to_str()
            .unwrap_or(""),
        "--detail",
    ]);
    for line in r
        .stdout
        .lines()
        .filter(|l| l.starts_with("randread 8k 1x1"))
    {
        assert!(
            !line.contains('%'),
            "a QD-1 run is no share of the QD-32 maximum: {line}"
        );
    }
    assert!(
        r.stdout.contains("have no raw-drive run of their shape"),
        "{}",
        r.stdout
    );
}

// ---- 10. advice ----

#[test]
fn advice_never_contradicts_the_verdict_it_is_attached_to() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("kv-cache-published", tmp.path());
    for v in ["adp", "gpu-only"] {
        fs::write(
            d.join(format!("restore/{v}.txt")),
            "time 0.120000 s  {\"error\":{\"message\":\"This model's maximum context length is 200000 tokens. However, you requested 296531 tokens\",\"code\":400}}\n".repeat(3),
        )
        .expect("w");
    }
    let (_, v) = analyze_json(&d, &[]);
    let plain = verdict(&v, "kv-restore.plain-recomputes");
    assert_ne!(plain["status"], "pass");
    let advice = plain["check_next"].to_string();
    assert!(
        !advice.contains("reported cached tokens"),
        "nothing was reported: {advice}"
    );
    assert!(
        advice.contains("adjust LINES"),
        "the procedure's own fix: {advice}"
    );
    assert!(
        plain["measured"]
            .as_str()
            .unwrap_or("")
            .starts_with("- (3 of 3 requests failed)"),
        "{plain}"
    );
    assert!(
        note(&verdict(&v, "kv-restore.cached")).contains("maximum context length"),
        "the server's words"
    );
    // An offline SPDK array is down, not the article's degraded finding.
    let (_, s) = analyze_json(&root().join("samples/spdk-raid-published"), &[]);
    for x in s["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["verdicts"].as_array().cloned().unwrap_or_default())
    {
        let advice = x["check_next"].to_string();
        if note(&x).contains("it is down, not degraded") {
            assert!(!advice.contains("procedure's own finding"), "{x}");
            assert!(advice.contains("was down, not degraded"), "{x}");
        }
    }
}

// ---- 11. facts ----

#[test]
fn the_gateway_log_gives_the_connector_release() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_of("kv-cache-published", tmp.path());
    fs::remove_dir_all(d.join("compose")).expect("rm");
    let (_, v) = analyze_json(&d, &[]);
    let row = v["conformance"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["rows"].as_array().cloned().unwrap_or_default())
        .find(|r| r["part"] == "Connector and gateway release")
        .expect("row");
    assert_eq!(row["yours"], "6.1.1", "{row}");
    assert_eq!(row["source"], "logs/adp-gateway.log:1", "{row}");
}

// ---- 12. small contradictions ----

#[test]
fn small_contradictions_are_gone() {
    let (_, v) = analyze_json(&root().join("samples/storage-published"), &[]);
    let e = verdict(&v, "storage.exit-status");
    assert_eq!(
        e["files"].as_array().map(Vec::len),
        Some(12),
        "the 12 files it counted: {e}"
    );
    // One OS error, said once.
    let r = run(&["analyze", "/nonexistent-input"]);
    assert_eq!(
        r.stderr.matches("No such file or directory").count(),
        1,
        "{}",
        r.stderr
    );
    // The reference-setup table has a header for its status column.
    let r = run(&[
        "analyze",
        root()
            .join("samples/storage-loopback")
            .to_str()
            .unwrap_or(""),
    ]);
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("part ") && l.contains(" status ") && l.ends_with("from")),
        "{}",
        r.stdout
    );
}

// ---- client against server ----

/// The deviations of every suite that name `parameter`.
fn deviations_named(v: &serde_json::Value, parameter: &str) -> Vec<serde_json::Value> {
    in_suites(v, "deviations")
        .filter(|d| d["parameter"] == parameter)
        .cloned()
        .collect()
}

/// The client's median TTFT of each level is held against the server's own histogram
/// (`vllm:time_to_first_token_seconds`, between the level's snapshots). The real engine's
/// ladder agrees (its client sits up to 29 ms above the server's median bucket); the same
/// folder with one level's client records slowed three times, or sped up four times,
/// says that the load generator and the server disagree, for that level only.
#[test]
fn a_client_whose_ttft_the_servers_histogram_contradicts_is_a_deviation() {
    const PARAMETER: &str = "time to first token, client against server";
    let real = root().join("tests/fixtures/real-engine/kv-ladder");
    let (_, v) = analyze_json(&real, &[]);
    assert!(
        deviations_named(&v, PARAMETER).is_empty(),
        "the real engine agrees with its client"
    );
    for (factor, says) in [(3.0, "0.26"), (0.25, "0.02")] {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path().join("run");
        copy_dir(&real, &d);
        let json = d.join("results/adp-1-L4.json");
        let mut records: serde_json::Value =
            serde_json::from_slice(&fs::read(&json).expect("records")).expect("json");
        for r in records.as_array_mut().expect("a list") {
            let t = r["ttft_ms"].as_f64().expect("ttft_ms");
            r["ttft_ms"] = serde_json::json!(t * factor);
        }
        fs::write(&json, serde_json::to_vec(&records).expect("json")).expect("write");
        let (_, v) = analyze_json(&d, &[]);
        let found = deviations_named(&v, PARAMETER);
        assert_eq!(found.len(), 1, "{found:?}");
        let dev = &found[0];
        assert_eq!(dev["subjects"], serde_json::json!(["adp-1-L4"]), "{dev}");
        assert!(dev["ran"].to_string().contains(says), "{dev}");
        assert!(
            dev["procedure"].to_string().contains("(0.06, 0.1] s"),
            "{dev}"
        );
        assert!(dev["effect"].to_string().contains("disagree"), "{dev}");
        assert!(
            dev["files"].to_string().contains("adp-1-L4.pre.prom"),
            "{dev}"
        );
    }
}

// ---- where a restore's hits came from ----

/// The real engine's test 1 folder carries `/metrics` before and after every ask. A restore
/// whose counters show GPU prefix-cache hits (the restart left the prompt in GPU memory)
/// makes the cached share and the restore time not comparable, for that line; a missing
/// snapshot leaves that restore unchecked, said; without any snapshots (a folder made by
/// hand, as the procedure takes none) the verdicts stand and say the origin was not checked.
#[test]
fn a_restore_the_gpu_prefix_cache_served_is_not_a_restore_from_the_card() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run");
    copy_dir(&root().join("tests/fixtures/real-engine/kv-restore"), &d);
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(statuses(&v)["kv-restore.cached"], "pass");
    assert!(
        !v.to_string().contains("not read:"),
        "every snapshot is read (the cold ask's and plain vLLM's are kept as evidence): {}",
        v["skipped"]
    );
    // The third ask (line 3): the 5,888 hits counted as the GPU's, none as the connector's.
    let post = d.join("restore/adp.ask3.post.prom");
    let text = fs::read_to_string(&post).expect("snapshot");
    let moved: String = text
        .lines()
        .map(|l| {
            if l.starts_with("vllm:prefix_cache_hits_total{") {
                l.replace(" 0.0", " 5888.0")
            } else if l.starts_with("vllm:external_prefix_cache_hits_total{") {
                l.replace(" 5888.0", " 0.0")
            } else {
                l.to_string()
            }
        })
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    assert_ne!(moved, text, "the counters were found");
    fs::write(&post, moved).expect("write");
    let (_, v) = analyze_json(&d, &[]);
    let cached = verdict(&v, "kv-restore.cached");
    assert_eq!(cached["status"], "not-comparable", "{cached}");
    let n = note(&cached);
    assert!(
        n.contains("line 3: 5888 tokens from the GPU prefix cache, 0 from the connector")
            && n.contains("restored from the card at lines 2, 4"),
        "{n}"
    );
    let time = verdict(&v, "kv-restore.time");
    assert!(
        note(&time).contains("line 3: 5888 tokens from the GPU prefix cache"),
        "the restore time is not the card's either: {time}"
    );
    assert!(cached["files"]
        .to_string()
        .contains("restore/adp.ask3.post.prom"));
    // One snapshot gone: that restore is not checked, and says so.
    fs::write(&post, &text).expect("restore");
    fs::remove_file(d.join("restore/adp.ask4.pre.prom")).expect("rm");
    let (_, v) = analyze_json(&d, &[]);
    let cached = verdict(&v, "kv-restore.cached");
    assert_eq!(cached["status"], "pass");
    let n = note(&cached);
    assert!(
        n.contains("restored from the card at lines 2, 3")
            && n.contains("was not checked at line 4"),
        "{n}"
    );
    // A snapshot that does not read: skipped with its reason, that restore not checked.
    fs::write(
        d.join("restore/adp.ask4.pre.prom"),
        "vllm:prefix_cache_hits_total{a=\"1\" fast\n",
    )
    .expect("write");
    let (_, v) = analyze_json(&d, &[]);
    let n = note(&verdict(&v, "kv-restore.cached"));
    assert!(
        n.contains("line 4: `restore/adp.ask4.pre.prom` does not read"),
        "{n}"
    );
    assert!(
        v["skipped"]
            .to_string()
            .contains("restore/adp.ask4.pre.prom"),
        "skipped with its reason: {}",
        v["skipped"]
    );
    // A snapshot for a fifth ask the transcript does not have (a line lost, or two asks
    // on one line): asks and snapshots cannot be paired, so none is checked.
    fs::copy(
        d.join("restore/adp.ask3.pre.prom"),
        d.join("restore/adp.ask4.pre.prom"),
    )
    .expect("cp");
    fs::copy(
        d.join("restore/adp.ask3.pre.prom"),
        d.join("restore/adp.ask5.pre.prom"),
    )
    .expect("cp");
    let (_, v) = analyze_json(&d, &[]);
    let cached = verdict(&v, "kv-restore.cached");
    assert_eq!(cached["status"], "pass", "{cached}");
    let n = note(&cached);
    assert!(
        n.contains("cannot be paired") && !n.contains("restored from the card"),
        "{n}"
    );
    fs::remove_file(d.join("restore/adp.ask5.pre.prom")).expect("rm");
    // A snapshot named for a transcript that is not there: not read, and says which.
    fs::copy(
        d.join("restore/adp.ask3.pre.prom"),
        d.join("restore/other.ask2.pre.prom"),
    )
    .expect("cp");
    let (_, v) = analyze_json(&d, &[]);
    let skipped = v["skipped"].to_string();
    assert!(
        skipped.contains("restore/other.ask2.pre.prom")
            && skipped.contains("not read: a /metrics snapshot named for an ask"),
        "{skipped}"
    );
    // None at all: as before, and it says the origin was not checked.
    for e in fs::read_dir(d.join("restore")).expect("dir").flatten() {
        if e.path().to_string_lossy().ends_with(".prom") {
            fs::remove_file(e.path()).expect("rm");
        }
    }
    let (_, v) = analyze_json(&d, &[]);
    let cached = verdict(&v, "kv-restore.cached");
    assert_eq!(cached["status"], "pass");
    assert!(
        note(&cached).contains("where the hits came from was not checked: no /metrics snapshots"),
        "{cached}"
    );
}
