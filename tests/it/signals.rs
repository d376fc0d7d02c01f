//! Stopping a collection with a signal, as a scheduler, `timeout`, a closed ssh session or
//! Ctrl-C do: real fio on a loop device, each of SIGINT, SIGTERM and SIGHUP sent to the
//! tool's PID and to its whole process group during the second fio step. The running step
//! stops within a second with its children, the finished step is kept as it was, only the
//! cut step is marked (with its signal), its output is set aside where no suite reads it,
//! and the exit status is 128+N. Then a resume gives the folder one run gives.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::*;

const JOBS: [&str; 4] = ["--only", "randwrite-8k-j8-d8", "--only", "read-1m-j8-d4"];

fn collect_args<'a>(dev: &'a str, out: &'a str, runtime: &'a str) -> Vec<&'a str> {
    let mut a = vec![
        "collect",
        "storage",
        "--array",
        "raid10",
        "--dev",
        dev,
        "-o",
        out,
        "--size",
        "32m",
        "--runtime",
        runtime,
        "--time-based",
    ];
    a.extend(JOBS);
    a
}

fn manifest(out: &Path) -> serde_json::Value {
    fs::read(out.join("manifests/storage-raid10.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn step<'a>(m: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    m["steps"].as_array()?.iter().find(|s| s["name"] == name)
}

/// Processes whose command line names `needle` (fio and iostat of the collection).
fn running_with(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Ok(cmd) = fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(needle) && !cmd.contains("reprobench") {
                out.push(cmd);
            }
        }
    }
    out
}

#[test]
fn each_stopping_signal_to_the_pid_or_the_group_stops_the_step_and_keeps_the_rest_real_fio() {
    if !need("fio") || !need("iostat") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(dev) = loop_device(&tmp.path().join("dev.img"), 64, &[]) else {
        return;
    };
    for (i, (sig, name)) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
    ]
    .into_iter()
    .enumerate()
    {
        for group in [false, true] {
            let out = tmp.path().join(format!("out-{i}-{group}"));
            let o = out.to_str().unwrap_or("");
            let err_path = tmp.path().join(format!("stderr-{i}-{group}"));
            let mut child = bin()
                .args(collect_args(dev.path(), o, "3"))
                .stdout(Stdio::null())
                .stderr(fs::File::create(&err_path).expect("stderr file"))
                .process_group(0)
                .spawn()
                .expect("spawn");
            let said = || fs::read_to_string(&err_path).unwrap_or_default();
            // Wait until the first fio step is done and the second is running; a
            // collection that ends before that is a failure with what it printed.
            let until = Instant::now() + Duration::from_secs(120);
            loop {
                let m = manifest(&out);
                if step(&m, "raid10/randwrite-8k-j8-d8").is_some_and(|s| s["result"] == "ok") {
                    break;
                }
                if let Ok(Some(st)) = child.try_wait() {
                    panic!(
                        "collection ended before its second step ({st}):\n{}\n{m}",
                        said()
                    );
                }
                if Instant::now() > until {
                    let _ = child.kill();
                    panic!("first step not done after 120 s:\n{}\n{m}", said());
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            std::thread::sleep(Duration::from_millis(1000));
            let first = fs::read(out.join("raid10/randwrite-8k-j8-d8.json"))
                .unwrap_or_else(|e| panic!("first step's result: {e}\n{}", said()));
            let pid = child.id() as i32;
            let target = if group { -pid } else { pid };
            let sent = Instant::now();
            let rc = std::process::Command::new("kill")
                .arg(format!("-{name}"))
                .arg("--")
                .arg(target.to_string())
                .status()
                .expect("kill");
            assert!(rc.success());
            let status = child.wait().expect("wait");
            let took = sent.elapsed();
            let how = format!("{name} to the {}", if group { "group" } else { "pid" });
            assert!(
                took < Duration::from_secs(3),
                "{how}: stopped after {took:?}"
            );
            assert_eq!(status.code(), Some(128 + sig), "{how}: exit status");
            std::thread::sleep(Duration::from_millis(300));
            let left = running_with(dev.path());
            assert!(left.is_empty(), "{how}: still running: {left:?}");
            let m = manifest(&out);
            assert_eq!(m["signal"], name, "{how}: {m}");
            assert_eq!(m["interrupted"], true);
            let done = step(&m, "raid10/randwrite-8k-j8-d8").expect("first step");
            assert_eq!(
                done["result"], "ok",
                "{how}: the finished step is kept: {done}"
            );
            assert_eq!(
                fs::read(out.join("raid10/randwrite-8k-j8-d8.json")).expect("kept"),
                first,
                "{how}: its result untouched"
            );
            let cut = step(&m, "raid10/read-1m-j8-d4").expect("cut step");
            assert!(
                cut["result"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with(&format!("interrupted ({name})")),
                "{how}: {cut}"
            );
            assert!(
                !out.join("raid10/read-1m-j8-d4.json").exists(),
                "{how}: not left as a result"
            );
            assert!(
                !out.join("raid10/iostat/read-1m-j8-d4.iostat").exists(),
                "{how}: nor its iostat log"
            );
        }
    }
}

/// `analyze --format json` without what differs between two collections of the same
/// runs: timings, measured values and the input's name.
fn verdict_shape(dir: &Path) -> (Vec<(String, String)>, Vec<String>) {
    let (_, v) = analyze_json(dir, &[]);
    let statuses = statuses(&v).into_iter().collect();
    let mut files: Vec<String> = v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["files_read"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(String::from))
        .collect();
    files.sort();
    (statuses, files)
}

#[test]
fn interrupt_then_resume_gives_the_folder_one_run_gives_real_fio() {
    if !need("fio") || !need("iostat") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(dev) = loop_device(&tmp.path().join("dev.img"), 64, &[]) else {
        return;
    };
    // One go.
    let once = tmp.path().join("once");
    let r = run(&collect_args(dev.path(), once.to_str().unwrap_or(""), "2"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Interrupted at a point that depends on the clock (somewhere in the steps), resumed.
    let twice = tmp.path().join("twice");
    let t = twice.to_str().unwrap_or("");
    let mut child = bin()
        .args(collect_args(dev.path(), t, "2"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn");
    let delay = 500
        + (std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_millis())
            .unwrap_or(0) as u64)
            * 4;
    std::thread::sleep(Duration::from_millis(delay));
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let r = run(&collect_args(dev.path(), t, "2"));
    assert_eq!(r.code, 0, "the resume finishes: {}", r.stderr);
    assert_eq!(
        verdict_shape(&twice),
        verdict_shape(&once),
        "interrupted at {delay} ms"
    );
    // One result per run, and what was set aside is listed, never a result.
    for job in ["randwrite-8k-j8-d8", "read-1m-j8-d4"] {
        assert!(twice.join(format!("raid10/{job}.json")).is_file(), "{job}");
    }
    let m = manifest(&twice);
    for p in m["set_aside"].as_array().into_iter().flatten() {
        let p = p.as_str().unwrap_or("");
        assert!(p.starts_with(".reprobench/"), "{p}");
    }
}

/// The command lines of each step of a dry run or a replay: step name -> its commands
/// (comment lines left out).
fn commands_by_step(text: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("# ") {
            if !name.starts_with(' ') && !line.starts_with("#  ") {
                current = Some(name.to_string());
                continue;
            }
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(c) = &current {
            out.entry(c.clone())
                .or_insert_with(Vec::new)
                .push(line.to_string());
        }
    }
    out
}

#[test]
fn a_manifest_replays_to_the_same_commands_as_the_dry_run_real_fio() {
    if !need("fio") || !need("iostat") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(dev) = loop_device(&tmp.path().join("dev.img"), 64, &[]) else {
        return;
    };
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap_or("");
    let mut dry = collect_args(dev.path(), o, "1");
    dry.push("--dry-run");
    let dry = run(&dry);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let r = run(&collect_args(dev.path(), o, "1"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let m = out.join("manifests/storage-raid10.json");
    let replay = run(&["collect", "replay", m.to_str().unwrap_or(""), "--dry-run"]);
    assert_eq!(replay.code, 0, "{}", replay.stderr);
    let (want, got) = (
        commands_by_step(&dry.stdout),
        commands_by_step(&replay.stdout),
    );
    for job in ["raid10/randwrite-8k-j8-d8", "raid10/read-1m-j8-d4"] {
        assert!(
            want[job]
                .iter()
                .any(|l| l.starts_with("fio ") && l.contains("--buffer_compress_percentage=67")),
            "{job}: {:?}",
            want[job]
        );
        assert_eq!(
            got.get(job),
            want.get(job),
            "{job}: the replay is the dry run"
        );
    }
    assert!(
        replay.stdout.contains("collector storage-fio.sh sha256 "),
        "{}",
        replay.stdout
    );
    // Without --dry-run a replay says what it does instead.
    let r = run(&["collect", "replay", m.to_str().unwrap_or("")]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--dry-run"), "{}", r.stderr);
}

#[test]
fn dry_runs_print_the_commands_whatever_exists_and_say_what_is_missing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).expect("mkdir");
    let r = bin()
        .env("HOME", &home)
        .args([
            "collect",
            "kv-ladder",
            "--variant",
            "adp",
            "--run",
            "1",
            "--dry-run",
        ])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{text}");
    assert!(!text.contains("could not expand"), "{text}");
    assert!(
        text.contains("mkdir -p ") && text.contains("curl -fLo pg$book.txt"),
        "the preflight says how: {text}"
    );
    let load = home.join("bench/load");
    assert!(
        text.contains(&format!("-v {}:/work", load.display())),
        "$PWD is the workload folder: {text}"
    );
    assert!(!home.join("bench").exists(), "a dry run writes nothing");
    // SPDK: no --pcie in a dry run shows the article's drives.
    let r = run(&[
        "collect",
        "spdk-raid",
        "--dry-run",
        "-o",
        tmp.path().join("s").to_str().unwrap_or(""),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("0000:45:00.0"), "{}", r.stdout);
    assert!(
        r.stdout.contains("bdev_nvme_detach_controller"),
        "the article's removal"
    );
    let r = run(&[
        "collect",
        "spdk-raid",
        "-o",
        tmp.path().join("s").to_str().unwrap_or(""),
    ]);
    assert_eq!(r.code, 2, "a real run needs --pcie");
    // sysinfo: ib_read_bw is said to be missing, with how to get it.
    let r = run(&[
        "collect",
        "sysinfo",
        "--dry-run",
        "-o",
        tmp.path().join("y").to_str().unwrap_or(""),
    ]);
    assert!(
        r.stdout.contains("not collected: ib_read_bw.txt") && r.stdout.contains("--ib-peer HOST"),
        "{}",
        r.stdout
    );
    // storage: a --dev that is not the md device it builds skips the preparation, said.
    let r = run(&[
        "collect",
        "storage",
        "--array",
        "raid10",
        "--dev",
        "/dev/loop-none",
        "--dry-run",
        "-o",
        tmp.path().join("z").to_str().unwrap_or(""),
    ]);
    assert!(r.stdout.contains("the drive preparation (blkdiscard of each drive, mdadm --create /dev/md126, the [UUUU] check) is not done"), "{}", r.stdout);
}
