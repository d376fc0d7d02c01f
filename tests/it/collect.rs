//! End to end: the storage collector on stand-ins for the hardware (files and loop
//! devices; md RAID and the ADP card cannot exist here), its device checks and dry run.

use std::fs;
use std::process::Command;

use crate::common::*;
use reprobench::collect::guard::root_device;

#[test]
fn dry_run_prints_every_command_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dev = tmp.path().join("dev.img");
    fs::write(&dev, b"").expect("w");
    let out = tmp.path().join("results");
    let r = collect_storage(s(&dev), &out, &["--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .contains("# dry run: nothing runs and nothing is written"));
    // The helper's fio command, expanded, for each headline run: the procedure's flags.
    for (name, opts) in [
        ("precondition", "--readwrite=write --bs=128k --numjobs=8 --iodepth=8 --size=1g --runtime=60"),
        ("randread-8k-j32-d32", "--readwrite=randread --bs=8k --numjobs=32 --iodepth=32 --size=3800000000000 --runtime=60"),
        ("randrw-8k-j128-d8", "--readwrite=randrw --bs=8k --numjobs=128 --iodepth=8 --rwmixread=70 --size=3800000000000 --runtime=60"),
        ("randwrite-8k-j8-d8", "--readwrite=randwrite --bs=8k --numjobs=8 --iodepth=8 --size=3800000000000 --runtime=60"),
        ("read-1m-j8-d4", "--readwrite=read --bs=1m --numjobs=8 --iodepth=4 --size=3800000000000 --runtime=60"),
        ("write-1m-j8-d4", "--readwrite=write --bs=1m --numjobs=8 --iodepth=4 --size=3800000000000 --runtime=60"),
    ] {
        let fio = format!(
            "fio --random_generator=tausworthe64 --per_job_logs=0 --buffer_compress_chunk=4096 --buffer_compress_percentage=67 --refill_buffers=1 --direct=1 --group_reporting=1 --randrepeat=0 --norandommap=1 --ioengine=libaio {opts} --filename={} --name={name} --output-format=json --output={}/raid10/{name}.json",
            s(&dev),
            s(&out)
        );
        assert!(
            r.stdout.lines().any(|l| l.trim_start_matches("sudo -E ") == fio),
            "{name}: {fio}\n{}",
            r.stdout
        );
        assert!(r.stdout.contains(&format!("iostat -xm 1 > {}/raid10/iostat/{name}.iostat &", s(&out))));
    }
    assert!(
        r.stdout.contains("63 runs") || r.stdout.matches("# raid10/").count() == 64,
        "{}",
        r.stdout
    );
    assert!(!out.exists(), "a dry run creates nothing");
}

#[test]
fn the_root_filesystem_device_is_refused_even_in_a_dry_run() {
    let Some(root) = root_device() else {
        skipped("/ is not on a block device here: nothing to refuse");
        return;
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("results");
    let r = collect_storage(&root, &out, &["--dry-run"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("mounted at / (the root filesystem)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("--confirm-device cannot change that"),
        "in use is never overridable: {}",
        r.stderr
    );
    assert!(!out.exists());
}

#[test]
fn a_device_with_a_filesystem_signature_needs_exact_confirmation() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(dev) = loop_device(&tmp.path().join("fs.img"), 16, &[]) else {
        return;
    };
    let mkfs = Command::new("mkfs.ext4").arg("-q").arg(&dev.0).status();
    if !mkfs.is_ok_and(|s| s.success()) {
        skipped("no mkfs.ext4 here");
        return;
    }
    let d = s(&dev.0).to_string();
    let out = tmp.path().join("results");
    let r = collect_storage(&d, &out, &["--dry-run"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("carries a ext4 signature"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(&format!("--confirm-device {d}")),
        "{}",
        r.stderr
    );
    let r = collect_storage(&d, &out, &["--dry-run", "--confirm-device", "/dev/other"]);
    assert_eq!(r.code, 2, "confirming another device confirms nothing");
    let r = collect_storage(&d, &out, &["--dry-run", "--confirm-device", &d]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("warning: `loop"), "{}", r.stderr);
}

#[test]
fn a_real_collection_on_a_loop_device_is_read_by_analyze() {
    if !need_all(&["fio", "iostat"]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let loopdev = Loop::new(&tmp.path().join("dev.img"), 64);
    let dev = match &loopdev {
        Some(l) => l.0.clone(),
        None => {
            let f = tmp.path().join("file-dev.img");
            fs::write(&f, vec![0u8; 64 << 20]).expect("w");
            f
        }
    };
    let out = tmp.path().join("results");
    let r = collect_storage(
        s(&dev),
        &out,
        &[
            "--size",
            "32m",
            "--runtime",
            "1",
            "--time-based",
            "--only",
            "randwrite-8k-j8-d8",
            "--only",
            "read-1m-j8-d4",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    for f in [
        "raid10/randwrite-8k-j8-d8.json",
        "raid10/read-1m-j8-d4.json",
        "raid10/iostat/read-1m-j8-d4.iostat",
        "manifests/storage-raid10.json",
        "system/uname.txt",
        "manifest.json",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifests/storage-raid10.json")).expect("m"))
            .expect("json");
    assert_eq!(manifest["parameters"]["dev"], s(&dev));
    assert!(manifest["tool"]
        .as_str()
        .is_some_and(|t| t.starts_with("reprobench ")));
    assert!(manifest["host"].is_string());
    let steps = manifest["steps"].as_array().expect("steps");
    let fio_steps: Vec<_> = steps
        .iter()
        .filter(|x| x["name"].as_str().is_some_and(|n| n.starts_with("raid10/")))
        .collect();
    assert_eq!(fio_steps.len(), 2);
    for st in &fio_steps {
        assert_eq!(st["result"], "ok", "{st}");
        assert_eq!(st["exit"], "0");
        assert!(st["start"].as_str().is_some_and(|t| t.ends_with('Z')));
        assert!(st["command"]
            .as_str()
            .is_some_and(|c| c.contains("storage-fio.sh")));
    }
    // A missing program is recorded as missing, not an error.
    assert!(steps
        .iter()
        .any(|x| x["name"] == "sysinfo/pliocli-system-get_status.txt"
            && x["result"]
                .as_str()
                .is_some_and(|r| r.starts_with("missing"))));
    // Run again: everything is done, nothing reruns; with one result gone, only it.
    let r = collect_storage(
        s(&dev),
        &out,
        &[
            "--size",
            "32m",
            "--runtime",
            "1",
            "--time-based",
            "--only",
            "randwrite-8k-j8-d8",
            "--only",
            "read-1m-j8-d4",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("0 steps ok") || r.stdout.contains(" 0 failed"),
        "{}",
        r.stdout
    );
    let before = fs::read(out.join("raid10/read-1m-j8-d4.json")).expect("r");
    fs::remove_file(out.join("raid10/randwrite-8k-j8-d8.json")).expect("rm");
    let r = collect_storage(
        s(&dev),
        &out,
        &[
            "--size",
            "32m",
            "--runtime",
            "1",
            "--time-based",
            "--only",
            "randwrite-8k-j8-d8",
            "--only",
            "read-1m-j8-d4",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        out.join("raid10/randwrite-8k-j8-d8.json").is_file(),
        "the missing run was redone"
    );
    assert_eq!(
        fs::read(out.join("raid10/read-1m-j8-d4.json")).expect("r"),
        before,
        "the finished run was kept"
    );
    let (_, v) = analyze_json(&out, &[]);
    // Only raid10 was collected: "both arrays exit 0" is not measured, and says why.
    let exit = verdict(&v, "storage.exit-status");
    assert_eq!(exit["status"], "not-measured", "{exit}");
    assert!(note(&exit).contains("no results of adp"), "{exit}");
    assert!(
        exit["measured"]
            .as_str()
            .unwrap_or("")
            .ends_with("result files clean"),
        "{exit}"
    );
    let files = v["suites"][0]["files_read"].to_string();
    assert!(
        files.contains("raid10/iostat/read-1m-j8-d4.iostat"),
        "{files}"
    );
}

/// The stand-in vLLM server (tests/stand-ins/openai_server.py) on a loopback port; killed
/// when dropped, and it stops by itself after a minute anyway.
struct StandInServer {
    child: std::process::Child,
    port: u16,
}

impl StandInServer {
    fn start(external: bool) -> Option<StandInServer> {
        use std::io::BufRead;
        let mut cmd = Command::new("python3");
        cmd.arg(root().join("tests/stand-ins/openai_server.py"))
            .args(["--seconds", "60"]);
        if external {
            cmd.arg("--external");
        }
        let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().ok()?;
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take()?)
            .read_line(&mut line)
            .ok()?;
        let port = line.trim().parse().ok()?;
        Some(StandInServer { child, port })
    }
}

impl Drop for StandInServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn kv_ladder_collector_against_a_stand_in_server_and_a_fake_docker() {
    if !need_all(&["python3", "jq", "curl"]) {
        return;
    }
    let Some(server) = StandInServer::start(true) else {
        assert!(std::env::var_os("CI").is_none(), "CI has python3");
        skipped("no python3");
        return;
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let work = tmp.path().join("load");
    fs::create_dir_all(&work).expect("mkdir");
    fs::write(
        work.join("agents.json"),
        r#"{"filetype": "generate_conversations", "num_conversations": 96}"#,
    )
    .expect("w");
    for book in ["pg1184.txt", "pg2600.txt", "pg135.txt"] {
        fs::write(work.join(book), "Call me Ishmael.\n").expect("w");
    }
    let path = format!(
        "{}:{}",
        root().join("tests/stand-ins").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let url = format!("http://127.0.0.1:{}", server.port);
    let out = bin()
        .env("PATH", &path)
        .env("SCRAPE_S", "1")
        .args([
            "collect",
            "kv-ladder",
            "--variant",
            "adp",
            "--run",
            "1",
            "--levels",
            "1,2",
            "--pause",
            "0",
        ])
        .args(["--workdir", s(&work), "--url", &url])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The procedure's own steps ran: run.txt tagged, level.json scaled by jq.
    let level: serde_json::Value =
        serde_json::from_slice(&fs::read(work.join("level.json")).expect("level.json"))
            .expect("json");
    assert_eq!(
        level["num_conversations"], 6,
        "3 x 2 clients at the last level"
    );
    assert_eq!(
        fs::read_to_string(work.join("run.txt"))
            .expect("run.txt")
            .trim(),
        "Benchmark adp, run 1, 2 clients."
    );
    let (_, v) = analyze_json(&work.join("results"), &[]);
    let ladder = v["suites"]
        .as_array()
        .and_then(|s| s.iter().find(|x| x["name"] == "kv-ladder"))
        .expect("kv-ladder");
    let table = ladder["preformatted"][0]["text"].as_str().unwrap_or("");
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{table}");
    assert!(
        rows[0].starts_with("adp-1                  1        3"),
        "{table}"
    );
    let tail: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(
        tail[tail.len() - 4..],
        ["75", "%", "50", "%"],
        "hit rates from the stand-in's counters: {table}"
    );
    let failures = ladder["tables"][0]["rows"][1][8].as_str().unwrap_or("");
    assert_eq!(
        failures, "0",
        "failure counts come from stderr, kept by 2>&1"
    );
    assert!(work.join("manifests/kv-ladder-adp-1.json").is_file());
    // Over time: the collector kept a /metrics series beside each level, beside the
    // procedure's snapshots, and analyze reads it into the level's charts.
    for n in [1, 2] {
        let series = fs::read_to_string(work.join(format!("results/adp-1-L{n}.series.prom")))
            .expect("the series file");
        assert!(series.starts_with("# scrape "), "{series}");
        assert!(series.contains("vllm:kv_cache_usage_perc"), "{series}");
        assert!(work.join(format!("results/adp-1-L{n}.pre.prom")).is_file());
    }
    let charts: Vec<&str> = ladder["charts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert!(
        charts.contains(&"kv-ladder-L2-usage"),
        "a chart over time per level: {charts:?}"
    );
}

#[test]
fn kv_ladder_collector_dry_run_and_missing_inputs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let r = run(&[
        "collect",
        "kv-ladder",
        "--variant",
        "adp",
        "--workdir",
        s(tmp.path()),
        "--dry-run",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The procedure's ladder() command for each level, flag for flag.
    for p in [1u32, 2, 4, 8, 16, 32] {
        let docker = format!(
            "docker run --rm --network host -v {dir}:/work -w /work -v /models:/models:ro adp-bench-client --model /models/GLM-5.3-FP8 --served-model-name glm-5.3 --url http://127.0.0.1:8000 --input-file level.json --seed 520052 --num-clients {p} --max-active-conversations {} --limit-min-tokens 400 --limit-max-tokens 400 --request-timeout-sec 3600 --no-early-stop --stats-json-output results/adp-1-L{p}.json 2>&1 | tee results/adp-1-L{p}.log",
            2 * p,
            dir = s(tmp.path())
        );
        assert!(r.stdout.contains(&docker), "{docker}\n{}", r.stdout);
        assert!(r.stdout.contains(&format!(
            "jq '.num_conversations = {}' agents.json > level.json",
            3 * p
        )));
        assert!(r.stdout.contains(&format!(
            "curl -s http://127.0.0.1:8000/metrics > results/adp-1-L{p}.pre.prom"
        )));
    }
    assert!(r.stdout.contains("sleep 15"), "{}", r.stdout);
    let r = run(&[
        "collect",
        "kv-ladder",
        "--variant",
        "adp",
        "--workdir",
        s(tmp.path()),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("agents.json"), "{}", r.stderr);
    assert!(!tmp.path().join("results").exists(), "nothing ran");
}
