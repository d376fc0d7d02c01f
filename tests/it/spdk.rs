//! End to end: SPDK config and job generation against reviewed files and the article's own
//! configs, and the spdk-raid suite on the article's tables and on broken inputs.

use std::fs;
use std::path::Path;

use crate::common::*;

const A8: &str = "0000:02:00.0,0000:45:00.0,0000:03:00.0,0000:81:00.0,0000:84:00.0,0000:41:00.0,0000:46:00.0,0000:44:00.0";

fn fixture(name: &str) -> String {
    fs::read_to_string(root().join("tests/fixtures/spdk").join(name)).expect("fixture")
}

#[test]
fn configs_match_the_reviewed_files_byte_for_byte() {
    for (raid, file) in [
        ("raid5f", "raid5f-8.json"),
        ("xinnor:5", "xinnor5-8.json"),
        ("none", "raw-8.json"),
    ] {
        let r = run(&["spdk", "config", "--pcie", A8, "--raid", raid]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stdout, fixture(file), "{raid}");
    }
}

#[test]
fn configs_for_the_articles_sixteen_drives_equal_the_articles_configs() {
    for (raid, file) in [
        ("raid5f", "article-raid5f-16.json"),
        ("xinnor:5", "article-xinnor5-16.json"),
    ] {
        let article: serde_json::Value =
            serde_json::from_str(&fixture(file)).expect("article json");
        let addrs: Vec<String> = article["subsystems"]
            .as_array()
            .expect("subsystems")
            .iter()
            .flat_map(|s| s["config"].as_array().cloned().unwrap_or_default())
            .filter(|m| m["method"] == "bdev_nvme_attach_controller")
            .map(|m| m["params"]["traddr"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(addrs.len(), 16);
        let r = run(&["spdk", "config", "--pcie", &addrs.join(","), "--raid", raid]);
        let ours: serde_json::Value = serde_json::from_str(&r.stdout).expect("our json");
        assert_eq!(ours, article, "{raid}");
    }
}

#[test]
fn job_files_match_the_reviewed_set_and_sub_stripe_raid5f_writes_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let r = run(&[
        "spdk",
        "jobs",
        "--drives",
        "8",
        "--raid",
        "raid5f",
        "--spdk-conf",
        "/home/xinnor/spdk_config_raid5_8.json",
        "-o",
        tmp.path().to_str().unwrap_or(""),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.matches("left out: refused").count(),
        8,
        "{}",
        r.stdout
    );
    let want = root().join("tests/fixtures/spdk/jobs-raid5f-8");
    let mut names: Vec<String> = fs::read_dir(&want)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut got: Vec<String> = fs::read_dir(tmp.path())
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    got.sort();
    assert_eq!(got, names);
    for n in &names {
        assert_eq!(
            fs::read(tmp.path().join(n)).expect("ours"),
            fs::read(want.join(n)).expect("reviewed"),
            "{n}"
        );
    }
    let r = run(&[
        "spdk",
        "jobs",
        "--drives",
        "16",
        "--raid",
        "raid5f",
        "--spdk-conf",
        "c.json",
        "-o",
        tmp.path().join("one").to_str().unwrap_or(""),
        "--rw",
        "write",
        "--bs",
        "448k",
        "--numjobs",
        "2",
        "--iodepth",
        "16",
    ]);
    assert_eq!(r.code, 2, "448k is not a 16-drive stripe");
    assert!(r.stderr.contains("use bs=960k"), "{}", r.stderr);
    assert!(
        !tmp.path().join("one").exists(),
        "nothing written for a refused job"
    );
}

fn table_rows(v: &serde_json::Value, title: &str) -> Vec<Vec<String>> {
    let s = v["suites"]
        .as_array()
        .and_then(|s| s.iter().find(|x| x["name"] == "spdk-raid"))
        .expect("suite");
    let t = s["tables"]
        .as_array()
        .and_then(|t| t.iter().find(|x| x["title"] == title))
        .expect("table");
    t["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            r.as_array()
                .expect("row")
                .iter()
                .map(|c| c.as_str().unwrap_or("").to_string())
                .collect()
        })
        .collect()
}

#[test]
fn the_published_sample_reproduces_the_articles_tables_and_verdicts() {
    let (code, v) = analyze_json(&root().join("samples/spdk-raid-published"), &[]);
    assert_eq!(code, 1, "the article's own numbers do not pass everything");
    let x16 = table_rows(&v, "xinnor-16: 16 drives");
    let row = |rows: &[Vec<String>], run: &str| {
        rows.iter()
            .find(|r| r[0] == run)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        row(&x16, "randwrite 8k 16x32")[1..4],
        ["1031k", "495.88", "3359"]
    );
    assert_eq!(
        row(&x16, "randrw 8k 32x32 70/30")[1..4],
        ["1731k/742k", "300.64/676.08", "2835/5932"]
    );
    assert_eq!(row(&x16, "write 960k 4x16")[1], "37.8 GB/s");
    let r8 = table_rows(&v, "raid5f-8: 8 drives");
    assert_eq!(row(&r8, "randread 8k 1x1")[1..4], ["14.3k", "69.43", "139"]);
    assert_eq!(row(&r8, "read 448k 1x16")[1], "22.7 GB/s");
    assert!(row(&r8, "randwrite 8k 16x32")[7].starts_with("not supported without FTL"));
    // Every published value equals the measured one in the sample.
    for rows in [&x16, &r8] {
        for r in rows.iter().filter(|r| r[4] != "-") {
            assert_eq!(r[1], r[4], "{r:?}");
        }
    }
    assert_eq!(
        verdict(&v, "spdk-raid.raid5f-8.random-read")["status"],
        "pass"
    );
    assert_eq!(
        verdict(&v, "spdk-raid.raid5f-16.full-stripe-read")["status"],
        "pass"
    );
    let x = verdict(&v, "spdk-raid.xinnor-16.random-read");
    assert_eq!(x["status"], "fail", "5099k of 5682k is 89.7%: {x}");
    assert!(x["measured"].as_str().unwrap_or("").starts_with("89.7%"));
    let d = verdict(&v, "spdk-raid.raid5f-8.degraded");
    assert_eq!(d["status"], "fail");
    assert!(d["note"].as_str().unwrap_or("").contains("error 5"));
    let w = verdict(&v, "spdk-raid.raid5f-8.full-stripe-write");
    assert_eq!(
        w["status"], "not-measured",
        "the article has no raw write baseline"
    );
    // Storage does not mistake the SPDK runs for its own.
    assert!(v["suites"]
        .as_array()
        .expect("suites")
        .iter()
        .all(|s| s["name"] != "storage"));
}

fn copy_sample(tmp: &Path) -> std::path::PathBuf {
    let dest = tmp.join("run");
    copy_dir(&root().join("samples/spdk-raid-published"), &dest);
    dest
}

#[test]
fn a_missing_raw_baseline_makes_shares_not_measured_not_zero() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    fs::remove_dir_all(d.join("spdk/raw-8")).expect("rm");
    fs::remove_dir_all(d.join("spdk/raw-16")).expect("rm");
    let (_, v) = analyze_json(&d, &[]);
    let r = verdict(&v, "spdk-raid.raid5f-8.random-read");
    assert_eq!(r["status"], "not-measured");
    assert_eq!(r["measured"], "-");
    assert!(v.to_string().contains("no raw-drive baseline"));
}

#[test]
fn bdevperf_results_are_read_and_failed_io_is_named() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    let deg = d.join("spdk/xinnor-8/degraded");
    fs::create_dir_all(&deg).expect("mkdir");
    fs::write(
        deg.join("randread-bdevperf.json"),
        r#"{"results": [{"job": "raid5", "core_mask": "0x1", "workload": "randread", "status": "finished", "queue_depth": 32, "io_size": 8192, "runtime": 3.000068, "iops": 340909.6, "mibps": 2663.36, "io_failed": 0, "io_timeout": 0, "avg_latency_us": 93.81, "min_latency_us": 6.99, "max_latency_us": 4133.81}], "core_count": 1}"#,
    )
    .expect("w");
    // Clean jobs, but nothing shows a member was removed: no pass on that.
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(
        verdict(&v, "spdk-raid.xinnor-8.degraded")["status"],
        "inconclusive"
    );
    fs::write(
        deg.join("bdev_raid_get_bdevs.json"),
        r#"[{"name": "raid5", "strip_size_kb": 64, "state": "online", "raid_level": "raid5", "num_base_bdevs": 8, "num_base_bdevs_discovered": 7, "num_base_bdevs_operational": 7, "base_bdevs_list": []}]"#,
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(verdict(&v, "spdk-raid.xinnor-8.degraded")["status"], "pass");
    fs::write(
        deg.join("write-bdevperf.json"),
        r#"{"results": [{"job": "raid5", "core_mask": "0x1", "workload": "write", "status": "finished", "queue_depth": 16, "io_size": 458752, "runtime": 3.0, "iops": 0, "mibps": 0, "io_failed": 1234, "io_timeout": 0, "avg_latency_us": 3463.0, "min_latency_us": 0, "max_latency_us": 1456.0}], "core_count": 1}"#,
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.xinnor-8.degraded");
    assert_eq!(x["status"], "fail");
    assert!(
        x["note"]
            .as_str()
            .unwrap_or("")
            .contains("write-bdevperf.json"),
        "{x}"
    );
}

#[test]
fn a_config_for_another_drive_count_is_caught() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    fs::copy(
        d.join("spdk/raid5f-16/config.json"),
        d.join("spdk/raid5f-8/config.json"),
    )
    .expect("cp");
    let (_, v) = analyze_json(&d, &[]);
    let c = verdict(&v, "spdk-raid.raid5f-8.drive-count");
    assert_eq!(c["status"], "fail");
    assert!(c["measured"]
        .as_str()
        .unwrap_or("")
        .contains("builds 16 drives, the folder says 8"));
}

#[test]
fn a_full_stripe_job_whose_bs_is_not_a_stripe_is_not_counted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    let src = fs::read_to_string(d.join("spdk/xinnor-16/read-960k-j4-d16.json")).expect("r");
    fs::write(
        d.join("spdk/xinnor-16/read-448k-j4-d16.json"),
        src.replace("\"bs\" : \"960k\"", "\"bs\" : \"448k\""),
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    assert!(
        v.to_string().contains("bs=448k is not a whole stripe"),
        "noted"
    );
}

#[test]
fn a_degraded_array_state_is_read_from_bdev_raid_get_bdevs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    fs::write(
        d.join("spdk/raid5f-8/degraded/bdev_raid_get_bdevs.json"),
        r#"[{"name": "raid5", "uuid": "u", "strip_size_kb": 64, "state": "online", "raid_level": "raid5f", "superblock": false, "num_base_bdevs": 8, "num_base_bdevs_discovered": 7, "num_base_bdevs_operational": 7, "base_bdevs_list": [{"name": null, "uuid": "00000000-0000-0000-0000-000000000000", "is_configured": false, "data_offset": 0, "data_size": 0}]}]"#,
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let m = verdict(&v, "spdk-raid.raid5f-8.degraded")["measured"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        m.contains("array degraded (7 of 8 members operational)"),
        "{m}"
    );
}

/// Rewrites a published run's bandwidth (GB/s) in place, keeping fio's structure.
fn set_gbps(path: &Path, rw: &str, bs: &str, gbps: f64) {
    let text = fs::read_to_string(path).expect("run");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["global options"]["rw"] = rw.into();
    v["global options"]["bs"] = bs.into();
    let bytes = reprobench::fio::signature::parse_size(bs).expect("bs") as f64;
    let job = &mut v["jobs"][0];
    for d in ["read", "write"] {
        job[d]["bw_bytes"] = 0.into();
        job[d]["iops"] = 0.0.into();
        job[d]["io_bytes"] = 0.into();
        job[d]["total_ios"] = 0.into();
        job[d]["runtime"] = 0.into();
    }
    let side = if rw.contains("write") {
        "write"
    } else {
        "read"
    };
    job[side]["bw_bytes"] = ((gbps * 1e9) as u64).into();
    job[side]["iops"] = (gbps * 1e9 / bytes).into();
    job[side]["io_bytes"] = ((gbps * 1e9 * 60.0) as u64).into();
    job[side]["total_ios"] = ((gbps * 1e9 * 60.0 / bytes) as u64).into();
    job[side]["runtime"] = 60000.into();
    fs::write(path, serde_json::to_string_pretty(&v).expect("json")).expect("w");
}

#[test]
fn full_stripe_writes_are_judged_against_n_minus_one_raw_drives() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    let raw_write = d.join("spdk/raw-8/write-64k-j4-d16.json");
    fs::copy(d.join("spdk/raw-8/read-64k-j4-d16.json"), &raw_write).expect("cp");
    // 8 raw drives writing 22.0 GB/s: raid5f at 8 drives may reach 7/8 of it, 19.25 GB/s;
    // its best full-stripe write is 20.8 GB/s.
    set_gbps(&raw_write, "write", "64k", 22.0);
    let (_, v) = analyze_json(&d, &[]);
    let w = verdict(&v, "spdk-raid.raid5f-8.full-stripe-write");
    assert_eq!(w["status"], "pass", "{w}");
    assert!(
        w["measured"]
            .as_str()
            .unwrap_or("")
            .starts_with("108.1% (20.8 GB/s of 19.2 GB/s)"),
        "{w}"
    );
    // 28 GB/s raw: theory 24.5 GB/s, and 20.8 is 84.9% of it.
    set_gbps(&raw_write, "write", "64k", 28.0);
    let (_, v) = analyze_json(&d, &[]);
    let w = verdict(&v, "spdk-raid.raid5f-8.full-stripe-write");
    assert_eq!(w["status"], "fail", "{w}");
    assert!(
        w["measured"].as_str().unwrap_or("").starts_with("84.9%"),
        "{w}"
    );
}

#[test]
fn full_stripe_reads_below_ninety_percent_fail() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    for j in 2..=4 {
        fs::remove_file(d.join(format!("spdk/raid5f-8/read-448k-j{j}-d16.json"))).expect("rm");
    }
    let (_, v) = analyze_json(&d, &[]);
    let r = verdict(&v, "spdk-raid.raid5f-8.full-stripe-read");
    assert_eq!(r["status"], "fail", "22.7 of 28.6 GB/s: {r}");
    assert!(
        r["measured"].as_str().unwrap_or("").starts_with("79.4%"),
        "{r}"
    );
}

/// A folder of degraded runs named for its array (`raid5f-8_degraded/` beside
/// `raid5f-8/`, as people name them) is that array's degraded runs, never a healthy array
/// of its own: the verdicts are the article layout's (`raid5f-8/degraded/`).
#[test]
fn a_degraded_folder_named_for_its_array_is_its_degraded_runs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("sp");
    copy_dir(&root().join("samples/spdk-raid-published"), &dir);
    std::fs::rename(
        dir.join("spdk/raid5f-8/degraded"),
        dir.join("spdk/raid5f-8_degraded"),
    )
    .expect("rename");
    let (code, standard) = analyze_json(&root().join("samples/spdk-raid-published"), &[]);
    let (moved_code, moved) = analyze_json(&dir, &[]);
    assert_eq!(moved_code, code);
    assert_eq!(statuses(&moved), statuses(&standard));
    assert!(
        !moved.to_string().contains("raid5f-8_degraded ("),
        "no array of that name"
    );
}

/// Gives every fio run of the sample fio's bandwidth samples: `bw_dev` the fraction
/// `spread` of `bw_mean`, over 60 samples (what a 60-second run with fio's default
/// one-second sampling holds).
fn with_bandwidth_samples(dir: &Path, spread: f64) {
    let mut files = Vec::new();
    walk_files(&dir.join("spdk"), &mut files);
    for path in files {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let Some(jobs) = v.get_mut("jobs").and_then(|j| j.as_array_mut()) else {
            continue;
        };
        for job in jobs {
            for side in ["read", "write"] {
                let Some(d) = job.get_mut(side).filter(|d| d.is_object()) else {
                    continue;
                };
                let bw = d["bw_bytes"].as_f64().unwrap_or(0.0) / 1024.0;
                if bw > 0.0 {
                    d["bw_mean"] = bw.into();
                    d["bw_dev"] = (bw * spread).into();
                    d["bw_samples"] = 60.into();
                }
            }
        }
        fs::write(&path, serde_json::to_string_pretty(&v).expect("json")).expect("w");
    }
}

fn walk_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in fs::read_dir(dir).expect("dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            walk_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// The article runs each job once: a share's interval comes from within the runs, from
/// fio's bandwidth samples, and its status follows the interval; without samples the
/// point is judged and the suite says so once.
#[test]
fn a_share_from_one_run_a_side_is_judged_by_its_interval_from_fios_samples() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.xinnor-16.random-read");
    assert_eq!(x["status"], "fail", "89.7% without samples: {x}");
    assert!(x.get("interval").is_none(), "{x}");
    assert!(
        v.to_string()
            .contains("measured shares are judged on their point, with no interval"),
        "the suite says the points are judged"
    );
    // Samples spread by 20%: 89.7% with an interval of about ±7% straddles 90%.
    with_bandwidth_samples(&d, 0.20);
    let (code, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.xinnor-16.random-read");
    assert_eq!(x["status"], "inconclusive", "{x}");
    assert_eq!(code, 1);
    let i = &x["interval"];
    let (low, high) = (
        i["low"].as_f64().expect("low"),
        i["high"].as_f64().expect("high"),
    );
    assert!(low < 89.7 && 90.0 < high && high - low > 10.0, "{x}");
    assert_eq!(i["runs"], serde_json::json!([1, 1]), "{x}");
    assert!(
        i["method"]
            .as_str()
            .unwrap_or("")
            .contains("within one run a side"),
        "{x}"
    );
    assert!(note(&x).contains("straddles 90%"), "{x}");
    // Samples in the array's files only: the raw drives' give none, so no interval.
    let (_, v) = analyze_json(&d, &[]);
    let before = verdict(&v, "spdk-raid.xinnor-16.random-read");
    assert!(before.get("interval").is_some(), "{before}");
    let raw = copy_sample(&tmp.path().join("raw-only"));
    with_bandwidth_samples(&d, 0.20);
    for drives in ["raw-8", "raw-16"] {
        fs::remove_dir_all(d.join("spdk").join(drives)).expect("rm");
        copy_dir(&raw.join("spdk").join(drives), &d.join("spdk").join(drives));
    }
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.xinnor-16.random-read");
    assert!(x.get("interval").is_none(), "{x}");
    assert_eq!(x["status"], "fail", "the point: {x}");
    // Samples spread by 0.1%: the interval is narrow and the statuses are the points'.
    with_bandwidth_samples(&d, 0.001);
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.xinnor-16.random-read");
    assert_eq!(x["status"], "fail", "{x}");
    assert!(x["interval"]["high"].as_f64().expect("high") < 90.0, "{x}");
    let r = verdict(&v, "spdk-raid.raid5f-8.random-read");
    assert_eq!(r["status"], "pass", "{r}");
    assert!(r["interval"]["low"].as_f64().expect("low") >= 90.0, "{r}");
    assert!(!v.to_string().contains("judged on their point"));
}

/// A degraded raid5f-8 whose jobs ran clean (the published sample's fail, as raid5f did
/// in 2023): the healthy array's two runs as its degraded runs, and the state the
/// procedure asks for, 7 of 8 members operational.
fn degraded_state(d: &Path) {
    for job in ["randread-8k-j16-d32.json", "read-448k-j1-d16.json"] {
        fs::copy(
            d.join(format!("spdk/raid5f-8/{job}")),
            d.join(format!("spdk/raid5f-8/degraded/{job}")),
        )
        .expect("copy");
    }
    fs::write(
        d.join("spdk/raid5f-8/degraded/bdev_raid_get_bdevs.json"),
        r#"[{"name": "raid5", "uuid": "u", "strip_size_kb": 64, "state": "online", "raid_level": "raid5f", "superblock": false, "num_base_bdevs": 8, "num_base_bdevs_discovered": 7, "num_base_bdevs_operational": 7, "base_bdevs_list": []}]"#,
    )
    .expect("w");
}

/// A degraded job whose output is bdevperf's RPC error failed; one whose output was cut
/// off (bdevperf killed) is not known to be clean. Before, both files were only skipped,
/// and the criterion passed on the job left: "1 of 1 jobs clean".
#[test]
fn a_degraded_job_that_failed_or_was_cut_off_is_no_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    degraded_state(&d);
    let job = d.join("spdk/raid5f-8/degraded/read-448k-j1-d16.json");
    let whole = fs::read(&job).expect("job");
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(verdict(&v, "spdk-raid.raid5f-8.degraded")["status"], "pass");
    fs::write(
        &job,
        r#"{"error": {"code": -32603, "message": "bdevperf test failed"}}"#,
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.raid5f-8.degraded");
    assert_eq!(x["status"], "fail", "{x}");
    assert!(x["note"].to_string().contains("an SPDK RPC error"), "{x}");
    assert!(
        x["measured"].to_string().contains("1 of 2 jobs clean"),
        "{x}"
    );
    fs::write(&job, &whole[..2000]).expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.raid5f-8.degraded");
    assert_eq!(x["status"], "inconclusive", "{x}");
    assert!(
        x["note"].to_string().contains("not known to be clean"),
        "{x}"
    );
}

/// fio's `total_err` (the I/O errors it went on past with `continue_on_error`) makes a
/// run not clean: a degraded job with them fails its criterion, and a random-read share
/// whose best runs had them is not judged on the runs left. Before, the degraded job
/// passed ("every job completes with no error") and the share passed at 96.2%.
#[test]
fn io_errors_fio_went_on_past_make_a_run_not_clean() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = copy_sample(tmp.path());
    degraded_state(&d);
    let with_errors = |path: &Path| {
        edit_json(path, |v| {
            for job in v["jobs"].as_array_mut().into_iter().flatten() {
                let ios = job["read"]["total_ios"].as_u64().unwrap_or(1000);
                job["total_err"] = serde_json::json!(ios / 2);
                job["first_error"] = serde_json::json!(5);
            }
        })
    };
    with_errors(&d.join("spdk/raid5f-8/degraded/randread-8k-j16-d32.json"));
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.raid5f-8.degraded");
    assert_eq!(x["status"], "fail", "{x}");
    assert!(x["note"].to_string().contains("failed I/Os"), "{x}");
    for qd32 in ["j16-d32", "j32-d32", "j64-d32"] {
        with_errors(&d.join(format!("spdk/raid5f-8/randread-8k-{qd32}.json")));
    }
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.raid5f-8.random-read");
    assert_eq!(x["status"], "inconclusive", "{x}");
    assert!(
        x["note"]
            .to_string()
            .contains("3 random read run(s) failed and are not counted"),
        "{x}"
    );
}
