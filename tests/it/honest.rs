//! No verdict or observation without data, and no verdict on a run that did not follow the
//! procedure: one folder per case found by trying the tool as a new user would.

use std::fs;
use std::path::Path;

use crate::common::*;

fn storage_copy(tmp: &Path) -> std::path::PathBuf {
    let d = tmp.join("run");
    copy_dir(&root().join("samples/storage-published"), &d);
    d
}

// ---- storage ----

#[test]
fn a_scaled_down_mixed_run_is_not_comparable_and_shows_both_values() {
    // The case from the field: the helper with --runtime=3 and numjobs=8 instead of 128.
    let tmp = tempfile::tempdir().expect("tmp");
    let d = storage_copy(tmp.path());
    for array in ["raid10", "adp"] {
        edit_json(
            &d.join(format!("results/{array}/randrw-8k-j128-d8.json")),
            |v| {
                v["global options"]["numjobs"] = "8".into();
                v["global options"]["runtime"] = "3".into();
                for dir in ["read", "write"] {
                    // A 3 s run at the same rate: a twentieth of the bytes and I/Os (fio
                    // computes the bandwidth from them and the runtime).
                    let d = &mut v["jobs"][0][dir];
                    let was = d["runtime"].as_u64().unwrap_or(60_000).max(1);
                    for key in ["io_bytes", "io_kbytes", "total_ios"] {
                        if let Some(x) = d[key].as_u64() {
                            d[key] = (x * 3000 / was).into();
                        }
                    }
                    d["runtime"] = 3000.into();
                }
            },
        );
    }
    let (code, v) = analyze_json(&d, &[]);
    assert_eq!(code, 1);
    let mixed = verdict(&v, "storage.randrw-8k-qd1024");
    assert_eq!(mixed["status"], "not-comparable", "{mixed}");
    let n = note(&mixed);
    assert!(n.contains("numjobs 8 (procedure: 128)"), "{n}");
    assert!(n.contains("runtime 3 s (procedure: 60 s)"), "{n}");
    assert!(n.contains("no steady state"), "{n}");
    // The published value stays beside it; the other criteria still judge.
    assert_eq!(mixed["published"], "4.2x (13,224 vs 3,162 MB/s)");
    assert_eq!(verdict(&v, "storage.randwrite-8k-qd64")["status"], "pass");
    let devs = v["suites"][0]["deviations"].to_string();
    assert!(devs.contains("\"parameter\":\"numjobs\""), "{devs}");
    assert!(devs.contains("\"procedure\":\"128\""), "{devs}");
    assert!(devs.contains("\"ran\":\"8\""), "{devs}");
    // The report shows what ran beside the procedure's commands.
    let out = tmp.path().join("out");
    run(&[
        "report",
        d.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    let md = fs::read_to_string(out.join("report.md")).expect("report.md");
    let dev = md
        .find("## Deviations from the procedure")
        .expect("deviations section");
    let verdicts = md.find("## Verdicts").expect("verdicts");
    let env = md.find("## Environment").unwrap_or(md.len());
    assert!(
        verdicts < dev && dev < env,
        "deviations right after the verdicts"
    );
    assert!(md.contains("--numjobs=8"), "the command that ran");
    assert!(md.contains("--numjobs=128"), "the procedure's command");
}

#[test]
fn a_job_that_ran_another_rw_than_its_name_never_passes_silently() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = storage_copy(tmp.path());
    edit_json(&d.join("results/adp/randwrite-8k-j8-d8.json"), |v| {
        v["global options"]["rw"] = "randread".into();
    });
    let (_, v) = analyze_json(&d, &[]);
    let w = verdict(&v, "storage.randwrite-8k-qd64");
    assert_eq!(w["status"], "not-comparable", "{w}");
    assert!(
        note(&w).contains("is named `randwrite-8k-j8-d8` but ran randread"),
        "{w}"
    );
}

#[test]
fn a_zero_io_job_never_passes_a_bandwidth_criterion() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = storage_copy(tmp.path());
    edit_json(&d.join("results/raid10/read-1m-j8-d4.json"), |v| {
        for key in ["io_bytes", "io_kbytes", "total_ios", "runtime"] {
            v["jobs"][0]["read"][key] = 0.into();
        }
    });
    let (_, v) = analyze_json(&d, &[]);
    let r = verdict(&v, "storage.read-1m-qd32");
    assert_eq!(r["status"], "inconclusive", "{r}");
    assert!(note(&r).contains("moved no data"), "{r}");
}

/// Puts fio's interruption line before the JSON, as `fio --output` leaves it on Ctrl-C.
fn cut_short(path: &Path) {
    let text = fs::read_to_string(path).expect("read");
    fs::write(path, format!("fio: terminating on signal 2\n{text}")).expect("write");
}

#[test]
fn an_interrupted_fio_run_is_not_a_measurement_and_not_a_clean_exit() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = storage_copy(tmp.path());
    cut_short(&d.join("results/adp/randwrite-8k-j8-d8.json"));
    let (code, v) = analyze_json(&d, &[]);
    assert_eq!(code, 1);
    let w = verdict(&v, "storage.randwrite-8k-qd64");
    assert_eq!(w["status"], "not-comparable", "{w}");
    assert!(note(&w).contains("interrupted"), "{w}");
    let exit = verdict(&v, "storage.exit-status");
    assert_eq!(exit["status"], "fail", "{exit}");
    assert!(note(&exit).contains("terminating on signal 2"), "{exit}");
    // The other workloads still judge.
    assert_eq!(verdict(&v, "storage.read-1m-qd32")["status"], "pass");
}

#[test]
fn a_file_without_options_gives_unknown_not_fio_defaults() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = storage_copy(tmp.path());
    edit_json(&d.join("results/adp/write-1m-j8-d4.json"), |v| {
        if let Some(m) = v.as_object_mut() {
            m.remove("global options");
        }
    });
    let (_, v) = analyze_json(&d, &[]);
    let w = verdict(&v, "storage.write-1m-qd32");
    assert_ne!(w["status"], "pass", "{w}");
    assert!(note(&w).contains("fio options unknown"), "{w}");
}

#[test]
fn usable_capacity_is_derived_never_measured() {
    let (_, v) = analyze_json(&root().join("samples/storage-loopback"), &[]);
    let o = observation(&v, "storage.usable-capacity");
    let measured = o["measured"].as_str().unwrap_or_default();
    assert!(
        !measured.contains("TB"),
        "capacity is not a measurement: {o}"
    );
    assert!(note(&o).starts_with("derived, not measured"), "{o}");
    // Without iostat logs, nothing about the drives is measured.
    let tmp = tempfile::tempdir().expect("tmp");
    let d = storage_copy(tmp.path());
    for array in ["raid10", "adp"] {
        fs::remove_dir_all(d.join(format!("results/{array}/iostat"))).expect("rm");
    }
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(observation(&v, "storage.usable-capacity")["measured"], "-");
}

// ---- kv-restore ----

fn kv_copy(tmp: &Path) -> std::path::PathBuf {
    let d = tmp.join("run");
    copy_dir(&root().join("samples/kv-cache-published"), &d);
    d
}

#[test]
fn a_failed_restore_request_is_a_failure_of_the_request_not_a_measurement() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = kv_copy(tmp.path());
    // The second restore failed (an error body: the prompt was too long).
    fs::write(
        d.join("restore/adp.txt"),
        "time 47.930000 s  {\"prompt_tokens\":196531,\"cached\":0}\n\
         time 2.118532 s  {\"prompt_tokens\":196531,\"cached\":196480}\n\
         time 0.012000 s  {\"prompt_tokens\":null,\"cached\":null}\n\
         time 2.116210 s  {\"prompt_tokens\":196531,\"cached\":196480}\n",
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let c = verdict(&v, "kv-restore.cached");
    assert_eq!(c["status"], "inconclusive", "{c}");
    assert!(note(&c).contains("line 3: prompt_tokens is null"), "{c}");
    assert!(!note(&c).contains("enable-prompt-tokens-details"), "{c}");
    // Its 0.01 s is not a fast restore.
    let t = verdict(&v, "kv-restore.time");
    assert_eq!(t["status"], "inconclusive", "{t}");
    assert!(
        !t["measured"].as_str().unwrap_or("").contains("0.01"),
        "{t}"
    );
}

#[test]
fn a_null_cached_count_cannot_pass_cached_is_zero() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = kv_copy(tmp.path());
    fs::write(
        d.join("restore/gpu-only.txt"),
        "time 47.71 s  {\"prompt_tokens\":196531,\"cached\":null}\n\
         time 47.69 s  {\"prompt_tokens\":196531,\"cached\":null}\n\
         time 47.74 s  {\"prompt_tokens\":196531,\"cached\":null}\n",
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let p = verdict(&v, "kv-restore.plain-recomputes");
    assert_eq!(p["status"], "not-measured", "{p}");
    assert!(note(&p).contains("does not report cached tokens"), "{p}");
}

#[test]
fn another_tensor_parallelism_makes_the_restore_time_not_comparable() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = kv_copy(tmp.path());
    for variant in ["adp", "gpu-only"] {
        let p = d.join(format!("logs/{variant}-vllm.log"));
        let t = fs::read_to_string(&p).expect("r");
        fs::write(
            &p,
            t.replace("'tensor_parallel_size': 8", "'tensor_parallel_size': 4"),
        )
        .expect("w");
    }
    let (_, v) = analyze_json(&d, &[]);
    let t = verdict(&v, "kv-restore.time");
    assert_eq!(t["status"], "not-comparable", "{t}");
    assert!(
        note(&t).contains("tensor_parallel_size 4 (procedure: 8)"),
        "{t}"
    );
    // Functional criteria still judge.
    assert_eq!(verdict(&v, "kv-restore.cached")["status"], "pass");
}

#[test]
fn a_log_without_arguments_gives_unknown_cells() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = kv_copy(tmp.path());
    for variant in ["adp", "gpu-only"] {
        let p = d.join(format!("logs/{variant}-vllm.log"));
        let t = fs::read_to_string(&p).expect("r");
        let kept: Vec<&str> = t
            .lines()
            .filter(|l| !l.contains("non-default args"))
            .collect();
        fs::write(&p, kept.join("\n")).expect("w");
    }
    let (_, v) = analyze_json(&d, &[]);
    let devs = v["suites"][0]["deviations"].to_string();
    assert!(
        devs.contains("\"parameter\":\"server arguments\""),
        "{devs}"
    );
    assert!(devs.contains("\"ran\":\"unknown\""), "{devs}");
}

// ---- kv-ladder ----

fn ladder_copy(tmp: &Path) -> std::path::PathBuf {
    let d = tmp.join("run");
    copy_dir(
        &root().join("samples/kv-cache-published/results"),
        &d.join("results"),
    );
    d
}

#[test]
fn a_run_with_failed_requests_fails_its_level_and_is_named() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = ladder_copy(tmp.path());
    let p = d.join("results/gpu-only-2-L2.log");
    let t = fs::read_to_string(&p).expect("r");
    fs::write(&p, t.replacen("num_failures=0", "num_failures=4", 1)).expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let l2 = verdict(&v, "kv-ladder.L2-parity");
    assert_eq!(l2["status"], "fail", "{l2}");
    assert!(
        note(&l2).contains("gpu-only-2-L2: 4 failed requests"),
        "{l2}"
    );
    assert!(
        note(&l2).contains(
            "medians of adp-1, adp-2 vs gpu-only-1 (left out of the medians: gpu-only-2-L2 (failed))"
        ),
        "a failing run feeds no median: {l2}"
    );
}

#[test]
fn a_ttft_spread_does_not_make_a_rates_only_level_inconclusive() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = ladder_copy(tmp.path());
    edit_json(&d.join("results/adp-2-L1.json"), |v| {
        for x in v.as_array_mut().into_iter().flatten() {
            let t = x["ttft_ms"].as_f64().unwrap_or(0.0);
            x["ttft_ms"] = (t * 1.5).into();
        }
    });
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(verdict(&v, "kv-ladder.L1-parity")["status"], "pass");
}

#[test]
fn missing_levels_give_no_observation_they_do_not_hold() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = ladder_copy(tmp.path());
    for e in fs::read_dir(d.join("results")).expect("list").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let keep =
            ["-L1.", "-L2.", "-L4."].iter().any(|l| name.contains(l)) && name.starts_with("adp");
        if !keep {
            fs::remove_file(e.path()).expect("rm");
        }
    }
    // gpu-only at 4 clients only: no 8-client level to have dropped at.
    copy_dir(
        &root().join("samples/kv-cache-published/results"),
        &tmp.path().join("all"),
    );
    for ext in ["json", "log", "pre.prom", "post.prom"] {
        fs::copy(
            tmp.path().join(format!("all/gpu-only-1-L4.{ext}")),
            d.join(format!("results/gpu-only-1-L4.{ext}")),
        )
        .expect("cp");
    }
    let (_, v) = analyze_json(&d, &[]);
    let fill = observation(&v, "kv-ladder.gpu-fill");
    let m = fill["measured"].as_str().unwrap_or_default();
    assert!(m.contains("no 8-client level of gpu-only"), "{m}");
    assert!(!m.contains("did not drop"), "{m}");
    let sla = observation(&v, "kv-ladder.sla")["measured"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        sla.contains("adp: at least 4 clients (the highest level measured"),
        "{sla}"
    );
    assert!(!sla.contains("none"), "{sla}");
}

#[test]
fn a_client_that_stopped_early_or_ran_another_load_is_not_comparable() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = ladder_copy(tmp.path());
    let p = d.join("results/adp-1-L16.log");
    let t = fs::read_to_string(&p).expect("r");
    fs::write(
        &p,
        t.replace("no_early_stop=True", "no_early_stop=False")
            + "30-11-2026 00:31:00 [INFO] - Sending termination signal to clients\n",
    )
    .expect("w");
    let p = d.join("results/gpu-only-1-L32.log");
    let t = fs::read_to_string(&p).expect("r");
    fs::write(&p, t.replace("limit_max_tokens=400", "limit_max_tokens=40")).expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let l16 = verdict(&v, "kv-ladder.L16-advantage");
    assert_eq!(l16["status"], "not-comparable", "{l16}");
    assert!(note(&l16).contains("early stop"), "{l16}");
    let l32 = verdict(&v, "kv-ladder.L32-advantage");
    assert_eq!(l32["status"], "not-comparable", "{l32}");
    assert!(
        note(&l32).contains("limit_max_tokens 40 (procedure: 400)"),
        "{l32}"
    );
    assert!(
        note(&l32).contains("limit_max_tokens (adp vs gpu-only)"),
        "the variants ran different loads: {l32}"
    );
    assert_eq!(verdict(&v, "kv-ladder.L1-parity")["status"], "pass");
}

// ---- spdk-raid ----

fn spdk_copy(tmp: &Path) -> std::path::PathBuf {
    let d = tmp.join("run");
    copy_dir(&root().join("samples/spdk-raid-published"), &d);
    d
}

#[test]
fn malloc_bdevs_are_counted_but_never_compared_with_drives() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = spdk_copy(tmp.path());
    let members: Vec<String> = (0..8).map(|i| format!("Malloc{i}")).collect();
    let mut config = vec![];
    for m in &members {
        config.push(serde_json::json!({"method": "bdev_malloc_create", "params": {"name": m, "num_blocks": 262144, "block_size": 512}}));
    }
    config.push(serde_json::json!({"method": "bdev_raid_create", "params": {"name": "raid5", "raid_level": "raid5f", "strip_size_kb": 64, "base_bdevs": members}}));
    let doc = serde_json::json!({"subsystems": [{"subsystem": "bdev", "config": config}]});
    fs::write(d.join("spdk/raid5f-8/config.json"), doc.to_string()).expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let s = v.to_string();
    assert!(!s.contains("builds 0 drives"), "malloc members are counted");
    let r = verdict(&v, "spdk-raid.raid5f-8.random-read");
    assert_eq!(r["status"], "not-comparable", "{r}");
    assert!(
        note(&r).contains("member bdevs malloc bdevs (procedure: NVMe drives)"),
        "{r}"
    );
}

#[test]
fn an_offline_array_never_passes_the_degraded_criterion() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = spdk_copy(tmp.path());
    let deg = d.join("spdk/xinnor-8/degraded");
    fs::create_dir_all(&deg).expect("mkdir");
    // Clean-looking runs, but two of eight members gone: RAID5 survives one.
    fs::copy(
        d.join("spdk/xinnor-8/randread-8k-j16-d32.json"),
        deg.join("randread-8k-j16-d32.json"),
    )
    .expect("cp");
    fs::write(
        deg.join("bdev_raid_get_bdevs.json"),
        r#"[{"name": "raid5", "strip_size_kb": 64, "state": "offline", "raid_level": "raid5", "num_base_bdevs": 8, "num_base_bdevs_discovered": 6, "num_base_bdevs_operational": 6, "base_bdevs_list": []}]"#,
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let x = verdict(&v, "spdk-raid.xinnor-8.degraded");
    assert_eq!(x["status"], "fail", "{x}");
    assert!(note(&x).contains("down, not degraded"), "{x}");
    // An array that shows every member operational did not run degraded.
    fs::write(
        deg.join("bdev_raid_get_bdevs.json"),
        r#"[{"name": "raid5", "strip_size_kb": 64, "state": "online", "raid_level": "raid5", "num_base_bdevs": 8, "num_base_bdevs_discovered": 8, "num_base_bdevs_operational": 8, "base_bdevs_list": []}]"#,
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    assert_eq!(
        verdict(&v, "spdk-raid.xinnor-8.degraded")["status"],
        "not-comparable"
    );
}

#[test]
fn an_interrupted_spdk_fio_run_feeds_no_share() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = spdk_copy(tmp.path());
    let (_, before) = analyze_json(&d, &[]);
    let id = "spdk-raid.xinnor-8.random-read";
    assert_ne!(verdict(&before, id)["status"], "not-measured");
    cut_short(&d.join("spdk/xinnor-8/randread-8k-j64-d32.json"));
    let (_, v) = analyze_json(&d, &[]);
    let r = verdict(&v, id);
    let files = r["files"].to_string();
    assert!(
        !files.contains("j64"),
        "the cut-short run no longer counts: {r}"
    );
    let devs = v.to_string();
    assert!(devs.contains("terminating on signal 2"), "named: {devs}");
}
