//! Every collector on stand-ins for the hardware (no GPU, Docker engine, ADP card or SPDK
//! here): a small OpenAI-compatible server with vLLM's metrics and cache behaviour, a fake
//! `docker compose` that restarts it (GPU cache lost, card kept), a stand-in SPDK tree and
//! fio. Each dry run prints the procedure's commands flag for flag; each collection
//! writes the layout the suites read, with a manifest, and resumes when run again.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

fn stand_ins() -> PathBuf {
    root().join("tests/stand-ins")
}

fn path_with_stand_ins() -> String {
    format!(
        "{}:{}",
        stand_ins().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A bench folder with one compose folder per variant, as the procedure's "Build it" asks
/// (image, --max-model-len and the connector's chunk_size of GLM-5.3's row), whose
/// `standin.env` tells the fake compose how to run the stand-in server.
struct Bench {
    _tmp: tempfile::TempDir,
    bench: PathBuf,
    load: PathBuf,
    url: String,
}

fn bench(variants: &[&str]) -> Bench {
    let tmp = tempfile::tempdir().expect("tmp");
    let bench = tmp.path().join("bench");
    let load = tmp.path().join("load");
    fs::create_dir_all(&load).expect("mkdir");
    fs::write(
        load.join("agents.json"),
        r#"{"filetype": "generate_conversations", "num_conversations": 96}"#,
    )
    .expect("w");
    for book in ["pg1184.txt", "pg2600.txt", "pg135.txt"] {
        fs::write(load.join(book), "Call me Ishmael.\n").expect("w");
    }
    let port = free_port();
    let card = tmp.path().join("card.json");
    for v in variants {
        let d = bench.join(v);
        fs::create_dir_all(&d).expect("mkdir");
        let mut compose = if *v == "lmcache" {
            // Test 3's LMCache image is its own (provided on request).
            String::from("services:\n  vllm:\n    image: lmcache/vllm-openai:v0.28.0-lmcache-0.5.5\n    command:\n      - --max-model-len=256000\n      - '--kv-transfer-config={\"kv_connector\":\"LMCacheMPConnector\",\"kv_role\":\"kv_both\"}'\n    environment:\n      - LMC_L1_GB=400\n      - LMC_XKV_HOST=gateway\n      - LMC_XKV_FRAG=131072\n      - VLLM_SERVER_DEV_MODE=1\n")
        } else {
            String::from("services:\n  vllm:\n    image: nexus.awide.io/awide-docker-hosted/awideai-cuda-vllm-openai:v0.28.0-6.1.1\n    command:\n      - --max-model-len=256000\n")
        };
        if *v == "adp" {
            compose.push_str("      - '--kv-transfer-config={\"kv_connector\":\"FusIOnXConnector\",\"kv_connector_extra_config\":{\"xkv_gateway_port\":5557,\"chunk_size\":128}}'\n      - HF_TOKEN=hf_standinstandinstandinstandin12\n    environment:\n      - VLLM_SERVER_DEV_MODE=1\n");
        }
        fs::write(d.join("compose.yaml"), compose).expect("w");
        let mut env = format!("PORT={port}\nMODEL=glm-5.3\nDEV_MODE=1\n");
        if *v != "gpu-only" {
            env.push_str(&format!("CARD={}\n", card.display()));
        }
        fs::write(d.join("standin.env"), env).expect("w");
    }
    Bench {
        _tmp: tmp,
        bench,
        load,
        url: format!("http://127.0.0.1:{port}"),
    }
}

/// `reprobench collect <what> --bench --workdir --url ...` with the stand-ins on PATH.
fn kv(b: &Bench, what: &str, extra: &[&str]) -> Run {
    let out = bin()
        .env("PATH", path_with_stand_ins())
        .env("READY_POLL", "0.1")
        .args([
            "collect",
            what,
            "--bench",
            s(&b.bench),
            "--workdir",
            s(&b.load),
            "--url",
            &b.url,
        ])
        .args(["--pause", "0"])
        .args(if extra.contains(&"--lines") {
            &[][..]
        } else {
            &["--lines", "1700"][..]
        })
        .args(extra)
        .output()
        .expect("runs");
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    r
}

fn have(program: &str) -> bool {
    reprobench::process::which(program).is_some()
}

fn python_ok() -> bool {
    let ok = have("python3") && have("jq") && have("curl");
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs python3, jq and curl"
        );
        skipped("python3, jq or curl missing");
    }
    ok
}

#[test]
fn collect_help_lists_every_collector() {
    let r = run(&["collect", "--help"]);
    for c in [
        "kv-restore",
        "kv-ladder",
        "kv-dram",
        "kv ",
        "storage",
        "spdk-raid",
        "sysinfo",
    ] {
        assert!(r.stdout.contains(c), "{c}: {}", r.stdout);
    }
}

#[test]
fn kv_restore_dry_run_is_the_procedure_s_test_1_in_order() {
    let b = bench(&["adp", "gpu-only"]);
    let r = kv(&b, "kv-restore", &["--dry-run", "--sysinfo", "false"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let t = &r.stdout;
    let url = &b.url;
    let gpu = s(&b.bench.join("gpu-only")).to_string();
    let adp = s(&b.bench.join("adp")).to_string();
    // The commands, in the procedure's order: plain vLLM's three recomputes, each
    // followed by a restart; then the connector's cold request and three restores.
    let up = |d: &str| format!("cd {d} && docker compose up -d");
    let restart = |d: &str| format!("cd {d} && docker compose restart vllm");
    let ready = format!("until curl -sf {url}/health >/dev/null; do sleep 0.1; done");
    let ask = format!("-w 'time %{{time_total}} s  ' {url}/v1/completions -H 'Content-Type: application/json' --data-binary @");
    let jq = "jq -c '.usage | {prompt_tokens, cached: .prompt_tokens_details.cached_tokens}'";
    let expected = [
        up(&gpu),
        ready.clone(),
        "python3 - 1700 >".to_string(),
        "jq -n --arg m glm-5.3 --rawfile p".to_string(),
        ask.clone(),
        restart(&gpu),
        ready.clone(),
        ask.clone(),
        restart(&gpu),
        ready.clone(),
        ask.clone(),
        restart(&gpu),
        ready.clone(),
        // The procedure's repeat of a slow first run, only if it was slow.
        "#   only if the first timed request in restore/gpu-only.txt".to_string(),
        ask.clone(),
        format!("cd {gpu} && docker compose logs vllm"),
        format!("cd {gpu} && docker compose down"),
        up(&adp),
        ready.clone(),
        ask.clone(),
        restart(&adp),
        ready.clone(),
        ask.clone(),
        restart(&adp),
        ready.clone(),
        ask.clone(),
        restart(&adp),
        ready.clone(),
        ask.clone(),
        "#   only if the first timed request in restore/adp.txt".to_string(),
        restart(&adp),
        ready.clone(),
        ask.clone(),
        format!("cd {adp} && docker compose logs gateway"),
        format!("cd {adp} && docker compose down"),
    ];
    let mut at = 0;
    for e in &expected {
        match t[at..].find(e.as_str()) {
            Some(i) => at += i + e.len(),
            None => panic!("`{e}` missing or out of order after byte {at}:\n{t}"),
        }
    }
    assert_eq!(
        t.matches(jq).count(),
        7 + 2,
        "seven ask lines in all, and a repeat of each variant's first if it was slow"
    );
    assert_eq!(
        t.matches("-d '{\"model\":\"glm-5.3\",\"prompt\":\"Hello\",\"max_tokens\":1}'")
            .count(),
        8 + 1,
        "ready's warm-up after every start (and the repeat's)"
    );
    assert_eq!(
        t.matches("#   only if ").count(),
        4,
        "the repeat's steps only"
    );
    assert!(!b.load.join("restore").exists(), "a dry run writes nothing");
}

#[test]
fn kv_restore_on_the_stand_ins_writes_test_1_and_resumes() {
    if !python_ok() {
        return;
    }
    let b = bench(&["adp", "gpu-only"]);
    let r = kv(&b, "kv-restore", &["--sysinfo", "false"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("[1/"),
        "plain progress lines off a terminal: {}",
        r.stderr
    );
    for f in [
        "restore/adp.txt",
        "restore/gpu-only.txt",
        "logs/adp-vllm.log",
        "logs/gpu-only-vllm.log",
        "logs/adp-gateway.log",
        "compose/adp/compose.yaml",
        "compose/gpu-only/compose.yaml",
        "manifests/kv-restore.json",
        "manifest.json",
    ] {
        assert!(b.load.join(f).is_file(), "{f}");
    }
    let adp = fs::read_to_string(b.load.join("restore/adp.txt")).expect("r");
    let lines: Vec<&str> = adp.lines().collect();
    // Cold and three restores; a fifth only when a loaded machine made restore 1 more
    // than 10% slower than restore 2 (the repeat rule, tested on its own below).
    let secs = transcript_seconds(&b.load.join("restore/adp.txt"));
    let slow_first = secs.len() >= 3 && secs[1] > 1.1 * secs[2];
    assert_eq!(lines.len(), if slow_first { 5 } else { 4 }, "{adp}");
    assert!(
        lines[0].ends_with("\"cached\":0}"),
        "the cold request computes: {adp}"
    );
    assert!(
        lines[1..].iter().all(|l| !l.ends_with("\"cached\":0}")),
        "restores come from the card: {adp}"
    );
    let plain = fs::read_to_string(b.load.join("restore/gpu-only.txt")).expect("r");
    let recomputes = plain
        .lines()
        .filter(|l| l.ends_with("\"cached\":0}"))
        .count();
    assert_eq!(recomputes, plain.lines().count(), "recomputes: {plain}");
    assert!((3..=4).contains(&recomputes), "recomputes: {plain}");
    // The suite reads it: the restores hit (>= 99% of the 13,600-token prompt).
    let (_, v) = analyze_json(&b.load, &[]);
    let st = statuses(&v);
    // The cached share does not depend on the prompt's length: 13,600 tokens are more
    // than 100 of GLM-5.3's 128-token chunks, so rounding cannot cost 1%. The time
    // criterion does, and says so.
    assert_eq!(st["kv-restore.cached"], "pass", "{v}");
    assert_eq!(
        st["kv-restore.time"], "not-comparable",
        "a 13,600-token prompt is not the procedure's ~196,000"
    );
    assert_eq!(st["kv-restore.plain-recomputes"], "pass");
    assert_eq!(st["kv-restore.connector"], "pass");
    assert_eq!(st["kv-restore.kv-cache-size"], "pass");
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(b.load.join("manifest.json")).expect("m")).expect("json");
    assert_eq!(
        manifest["model"], "glm-5.3",
        "the model picks the published numbers"
    );
    // Again: both transcripts are complete, nothing runs.
    let before = fs::read(b.load.join("restore/adp.txt")).expect("r");
    let r = kv(&b, "kv-restore", &["--sysinfo", "false"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("is complete"), "{}", r.stderr);
    assert_eq!(fs::read(b.load.join("restore/adp.txt")).expect("r"), before);
}

/// The procedure's repeat rule, collected: the stand-in card serves its first restore
/// ever 0.6 s slower (kernels compiling after the first start); the collector sees
/// restore 1 more than 10% slower than restore 2, restarts once more and asks again, and
/// the analysis uses the repeat. Plain vLLM's recomputes are even: its repeat is not
/// needed, and the manifest says why.
#[test]
fn kv_restore_on_the_stand_ins_repeats_a_slow_first_restore_itself() {
    if !python_ok() {
        return;
    }
    let b = bench(&["adp", "gpu-only"]);
    let env = b.bench.join("adp/standin.env");
    let mut text = fs::read_to_string(&env).expect("env");
    text.push_str("SLOW_FIRST_RESTORE=0.6\n");
    fs::write(&env, text).expect("w");
    let r = kv(&b, "kv-restore", &["--sysinfo", "false"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let adp = fs::read_to_string(b.load.join("restore/adp.txt")).expect("r");
    let secs = transcript_seconds(&b.load.join("restore/adp.txt"));
    assert_eq!(secs.len(), 5, "cold, three restores, the repeat: {adp}");
    assert!(
        secs[1] > 1.1 * secs[2],
        "restore 1 was the slow one: {secs:?}"
    );
    assert!(secs[4] < secs[1], "the repeat is not: {secs:?}");
    assert!(b.load.join("restore/adp.ask5.post.prom").is_file());
    let plain = fs::read_to_string(b.load.join("restore/gpu-only.txt")).expect("r");
    let psecs = transcript_seconds(&b.load.join("restore/gpu-only.txt"));
    // Even recomputes (0.4 s each): no repeat, unless a loaded machine slowed the first.
    let plain_slow = psecs.len() >= 2 && psecs[0] > 1.1 * psecs[1];
    assert_eq!(psecs.len(), if plain_slow { 4 } else { 3 }, "{plain}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(b.load.join("manifests/kv-restore.json")).expect("m"))
            .expect("json");
    let result = |name: &str| {
        manifest["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|st| st["name"] == name)
            .map(|st| st["result"].as_str().unwrap_or("").to_string())
            .unwrap_or_else(|| panic!("no step {name}: {manifest}"))
    };
    assert_eq!(result("adp: ask (restore 1 repeated)"), "ok");
    assert_eq!(result("adp: ready (for the repeat)"), "ok");
    let plain_repeat = result("gpu-only: ask (recompute 1 repeated)");
    if plain_slow {
        assert_eq!(plain_repeat, "ok");
    } else {
        assert!(
            plain_repeat.starts_with("not needed: the first timed request ("),
            "{manifest}"
        );
    }
    // The analysis uses the repeat in place of the slow first restore.
    let (_, v) = analyze_json(&b.load, &[]);
    let notes: Vec<&serde_json::Value> = in_suites(&v, "notes").collect();
    let said = notes.iter().filter_map(|n| n.as_str()).any(|n| {
        n.contains("`restore/adp.txt`: the first timed run") && n.contains("the repeat is used")
    });
    assert!(said, "{notes:?}");
}

#[test]
fn kv_restore_refuses_a_prompt_that_does_not_fit_and_a_wrong_compose_file() {
    let b = bench(&["adp", "gpu-only"]);
    let r = kv(
        &b,
        "kv-restore",
        &["--lines", "20000", "--sysinfo", "false"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("not below GLM-5.3 FP8's --max-model-len 256000"),
        "{}",
        r.stderr
    );
    let r = kv(
        &b,
        "kv-restore",
        &["--model", "deepseek-v4-flash", "--sysinfo", "false"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("v0.29.0-6.1.1") && r.stderr.contains("VLLM_USE_V2_MODEL_RUNNER=0"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("\"chunk_size\":512"), "{}", r.stderr);
    assert!(!b.load.join("restore").exists(), "nothing ran");
}

#[test]
fn kv_dram_stops_with_the_reason_when_reset_prefix_cache_is_not_there() {
    if !python_ok() {
        return;
    }
    let b = bench(&["adp", "lmcache"]);
    let env = b.bench.join("adp/standin.env");
    let t = fs::read_to_string(&env).expect("r");
    fs::write(&env, t.replace("DEV_MODE=1\n", "")).expect("w");
    let r = kv(
        &b,
        "kv-dram",
        &["--sysinfo", "false", "--levels", "8", "--runs", "1"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("answered 404: start vLLM with VLLM_SERVER_DEV_MODE=1"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("cleaning up: adp: docker compose down"),
        "the server is brought down: {}",
        r.stderr
    );
}

#[test]
fn kv_dram_refuses_compose_files_without_dev_mode_or_lmcache_settings_before_anything_runs() {
    if !python_ok() {
        return;
    }
    let b = bench(&["adp", "lmcache"]);
    let adp = b.bench.join("adp/compose.yaml");
    let t = fs::read_to_string(&adp).expect("r");
    fs::write(&adp, t.replace("      - VLLM_SERVER_DEV_MODE=1\n", "")).expect("w");
    let lm = b.bench.join("lmcache/compose.yaml");
    let t = fs::read_to_string(&lm).expect("r");
    fs::write(&lm, t.replace("LMC_XKV_FRAG=131072", "LMC_XKV_FRAG=4096")).expect("w");
    let r = kv(
        &b,
        "kv-dram",
        &["--sysinfo", "false", "--levels", "8", "--runs", "1"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("adp/compose.yaml` does not set VLLM_SERVER_DEV_MODE=1"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("does not have `LMC_XKV_FRAG=131072`"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("image"),
        "the LMCache image is not the product's: {}",
        r.stderr
    );
    assert!(!b.load.join("dram").exists(), "nothing ran");
}

#[test]
fn kv_dram_on_the_stand_ins_writes_test_3() {
    if !python_ok() {
        return;
    }
    let b = bench(&["adp", "lmcache"]);
    let r = kv(
        &b,
        "kv-dram",
        &["--sysinfo", "false", "--levels", "8", "--runs", "1"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for f in [
        "dram/adp-warm.txt",
        "dram/lmcache-warm.txt",
        "dram/adp-restart.txt",
        "dram/lmcache-restart.txt",
        "results/lmcache-1-L8.json",
        "logs/lmcache-vllm.log",
    ] {
        assert!(b.load.join(f).is_file(), "{f}");
    }
    let warm = fs::read_to_string(b.load.join("dram/lmcache-warm.txt")).expect("r");
    assert_eq!(warm.lines().count(), 4);
    let (_, v) = analyze_json(&b.load, &[]);
    assert!(statuses(&v).contains_key("kv-dram.restores-hit"));
}

#[test]
fn kv_end_to_end_with_sysinfo_fills_what_the_host_can_give_of_the_checklist() {
    if !python_ok() {
        return;
    }
    let b = bench(&["adp", "gpu-only"]);
    let r = kv(&b, "kv", &["--levels", "1,2", "--runs", "2"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for run in [1, 2] {
        for v in ["adp", "gpu-only"] {
            for l in [1, 2] {
                assert!(b
                    .load
                    .join(format!("results/{v}-{run}-L{l}.json"))
                    .is_file());
            }
        }
    }
    // ib_read_bw from a saved output, as a user without a peer at hand would give it.
    let saved = b.load.parent().expect("tmp").join("ib.txt");
    fs::write(
        &saved,
        "---\n #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]\n 65536 1000 96.52 96.48\n",
    )
    .expect("w");
    let r = run(&[
        "collect",
        "sysinfo",
        "-o",
        s(&b.load),
        "--ib-read-bw",
        s(&saved),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = b.load.parent().expect("tmp").join("support.tar.gz");
    let r = run(&["bundle", s(&b.load), "-o", s(&out), "--no-pdf"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for line in r.stdout.lines().filter(|l| l.starts_with("| MISSING |")) {
        // Only what this host cannot give is missing: the card's and NVMe tools.
        let host_lacks = (line.contains("pliocli") && !have("pliocli"))
            || (line.contains("nvme list-subsys") && !have("nvme"));
        assert!(
            host_lacks,
            "missing although the host could give it: {line}\n{}",
            r.stdout
        );
    }
    assert!(
        r.stdout
            .contains("| present | AI Key-Value Caching | both compose files |"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("| present | AI Key-Value Caching | ib_read_bw output"),
        "{}",
        r.stdout
    );
}

#[test]
fn spdk_raid_dry_run_and_a_run_on_a_stand_in_spdk() {
    if !python_ok() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let spdk = stand_ins().join("spdk");
    let pcie: Vec<String> = (0..8).map(|i| format!("0000:4{i}:00.0")).collect();
    // A stand-in sysfs: the controllers exist, bound to no kernel driver (as after SPDK's
    // setup.sh), so the guard finds no kernel namespace in use.
    let sys = tmp.path().join("sys");
    for a in &pcie {
        fs::create_dir_all(sys.join("bus/pci/devices").join(a)).expect("mkdir");
    }
    let out = tmp.path().join("out");
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = vec![
            "collect",
            "spdk-raid",
            "--spdk-dir",
            s(&spdk),
            "--fio-plugin",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        v.push(s(&spdk.join("build/fio/spdk_bdev")).into());
        v.extend([
            "--fio".into(),
            s(&spdk.join("fio")).into(),
            "--pcie".into(),
            pcie.join(","),
            "--drives".into(),
            "8".into(),
        ]);
        v.extend([
            "--arrays".into(),
            "raw,raid5f".into(),
            "--runtime".into(),
            "900".into(),
            "--degraded-runtime".into(),
            "1".into(),
            "-o".into(),
            s(&out).into(),
        ]);
        v.extend(extra.iter().map(|x| x.to_string()));
        v
    };
    let dry = bin().args(args(&["--dry-run"])).output().expect("runs");
    let text = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    assert!(
        text.contains(&format!(
            "env LD_PRELOAD={} {} ",
            s(&spdk.join("build/fio/spdk_bdev")),
            s(&spdk.join("fio"))
        )),
        "{text}"
    );
    assert!(text.contains("--output-format=json --output="), "{text}");
    assert!(
        text.contains("bdev_nvme_detach_controller nvme1"),
        "the article's way to lose a drive: {text}"
    );
    assert!(!text.contains("bdev_raid_remove_base_bdev"), "{text}");
    assert!(text.contains("bdev_raid_get_bdevs all >"), "{text}");
    assert!(
        text.contains("-z -r /var/tmp/spdk.sock -q 32 -o 8192 -w randread"),
        "{text}"
    );
    assert!(!out.exists());
    let r = bin()
        .args(args(&[]))
        .env("REPROBENCH_SYSFS", &sys)
        .env("SPDK_RPC_SOCK", tmp.path().join("spdk.sock"))
        .output()
        .expect("runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    for f in [
        "spdk/raw-8/config.json",
        "spdk/raw-8/randread-8k-j4-d32.json",
        "spdk/raid5f-8/read-448k-j4-d16.json",
        "spdk/raid5f-8/bdev_raid_get_bdevs.json",
        "spdk/raid5f-8/degraded/bdev_raid_get_bdevs.json",
        "spdk/raid5f-8/degraded/randread-8k-j1-d32.json",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let (_, v) = analyze_json(&out, &[]);
    let st = statuses(&v);
    assert_eq!(st["spdk-raid.raid5f-8.random-read"], "pass", "{st:?}");
    assert_eq!(
        st["spdk-raid.raid5f-8.degraded"], "pass",
        "the stand-in keeps raid5f online at 7 of 8: {st:?}"
    );
    // Without the stand-in sysfs the drives are not on this host: refused before fio.
    let r = bin()
        .args(args(&["--fresh"]))
        .env("SPDK_RPC_SOCK", tmp.path().join("spdk2.sock"))
        .output()
        .expect("runs");
    assert_eq!(
        r.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(String::from_utf8_lossy(&r.stderr).contains("no PCIe device"));
}

#[test]
fn sysinfo_records_what_is_missing_and_keeps_what_the_host_gives() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dry = run(&[
        "collect",
        "sysinfo",
        "-o",
        s(tmp.path()),
        "--ib-peer",
        "storage01",
        "--dry-run",
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    for cmd in [
        "nvme list >",
        "nvme list-subsys >",
        "pliocli system get_status >",
        "pliocli system get_disk_usage -x 0 >",
        "pliocli raid get_raid_info -x 1 >",
        "ib_read_bw storage01 >",
        "cat /proc/mdstat >",
        "nvidia-smi -L >",
        "docker images --digests >",
    ] {
        assert!(dry.stdout.contains(cmd), "{cmd}: {}", dry.stdout);
    }
    assert!(!tmp.path().join("system").exists());
    let r = run(&["collect", "sysinfo", "-o", s(tmp.path())]);
    assert_eq!(r.code, 0, "a missing program is no error: {}", r.stderr);
    assert!(tmp.path().join("system/uname.txt").is_file());
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(tmp.path().join("manifests/sysinfo.json")).expect("m"))
            .expect("json");
    let steps = m["steps"].as_array().expect("steps");
    for st in steps {
        let file = st["name"]
            .as_str()
            .unwrap_or("")
            .trim_start_matches("sysinfo/");
        let present = tmp.path().join("system").join(file).is_file();
        let result = st["result"].as_str().unwrap_or("");
        assert_eq!(present, result == "ok", "{st}");
    }
    if !have("pliocli") {
        assert!(
            !tmp.path()
                .join("system/pliocli-system-get_status.txt")
                .exists(),
            "no file made up for a missing program"
        );
    }
}

#[test]
fn ctrl_c_stops_the_current_run_keeps_what_finished_and_a_rerun_resumes() {
    if !have("fio") || !have("jq") {
        assert!(std::env::var_os("CI").is_none(), "CI installs fio and jq");
        skipped("no fio or jq here");
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    // The signal is sent once the manifest shows the precondition finished. On a busy
    // shared machine it has been seen (once in many runs) to land while the precondition
    // still ran; that attempt proves nothing about resuming, so it is tried again in a
    // fresh folder, at most three times.
    let mut attempt = 0;
    let (dev, out, results) = loop {
        attempt += 1;
        let dir = tmp.path().join(format!("attempt-{attempt}"));
        fs::create_dir_all(&dir).expect("mkdir");
        let (dev, out, results) = interrupt_once(&dir);
        let pre_ok = results
            .iter()
            .any(|(n, r)| n == "raid10/precondition" && r == "ok");
        if pre_ok || attempt == 3 {
            break (dev, out, results);
        }
        eprintln!("attempt {attempt}: Ctrl-C landed before the precondition finished: {results:?}");
    };
    assert!(
        results.iter().any(|(_, r)| r.starts_with("interrupted")),
        "{results:?}"
    );
    assert!(
        !results
            .iter()
            .any(|(n, _)| n == "raid10/randwrite-8k-j8-d8"),
        "nothing after the interrupted run: {results:?}"
    );
    // fio writes a whole-looking result when interrupted: it is set aside, never read as a run.
    let (cut, _) = results
        .iter()
        .find(|(_, r)| r.starts_with("interrupted"))
        .expect("interrupted step");
    let cut_json = out.join(format!("{cut}.json"));
    assert!(
        !cut_json.exists(),
        "{} must not look like a run",
        cut_json.display()
    );
    // Run again with the same parameters: what finished is skipped, the rest runs.
    let kept = fs::read(out.join("raid10/precondition.json"))
        .unwrap_or_else(|e| panic!("the finished precondition: {e}; steps: {results:?}"));
    let r = run(&[
        "collect",
        "storage",
        "--array",
        "raid10",
        "--dev",
        s(&dev),
        "-o",
        s(&out),
        "--size",
        "8m",
        "--runtime",
        "2",
        "--time-based",
        "--only",
        "precondition",
        "--only",
        "randread-8k-j1-d1",
        "--only",
        "randwrite-8k-j8-d8",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    assert!(
        fs::read(out.join("raid10/precondition.json")).expect("r") == kept,
        "the finished run is kept, not run again"
    );
    assert!(
        out.join("raid10/randwrite-8k-j8-d8.json").is_file(),
        "the rest ran"
    );
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifests/storage-raid10.json")).expect("m"))
            .expect("json");
    let pre = m["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|x| x["name"] == "raid10/precondition")
        .cloned()
        .expect("step");
    assert_eq!(pre["result"], "skipped: done in an earlier run", "{pre}");
}

/// Runs a short storage collection, sends Ctrl-C (to its process group) once the manifest
/// shows the precondition finished, checks it stopped with 130 and an interrupted
/// manifest, and returns the device, the results folder and the manifest's steps.
fn interrupt_once(dir: &Path) -> (PathBuf, PathBuf, Vec<(String, String)>) {
    let dev = dir.join("dev.img");
    fs::write(&dev, vec![0u8; 32 << 20]).expect("w");
    let out = dir.join("results");
    let bin = bin_path();
    // Job control gives the collection its own process group, as a terminal does: Ctrl-C
    // (SIGINT to the group) reaches reprobench and the fio it runs.
    let script = format!(
        "set -m; '{}' collect storage --array raid10 --dev '{}' -o '{}' --size 8m --runtime 2 --time-based --only precondition --only randread-8k-j1-d1 --only randwrite-8k-j8-d8 & pid=$!; \
         while kill -0 $pid 2>/dev/null; do jq -e '.steps[] | select(.name == \"raid10/precondition\" and .result == \"ok\")' '{}' >/dev/null 2>&1 && break; sleep 0.1; done; sleep 0.5; kill -INT -$pid; wait $pid; echo \"exit $?\"",
        bin.display(),
        s(&dev),
        s(&out),
        s(&out.join("manifests/storage-raid10.json")),
    );
    let o = Command::new("bash")
        .arg("-c")
        .arg(script)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stdout.contains("exit 130"), "{stdout}\n{stderr}");
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("manifests/storage-raid10.json")).expect("m"))
            .expect("json");
    assert_eq!(m["interrupted"], true, "{m}");
    let results: Vec<(String, String)> = m["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap_or("").to_string(),
                x["result"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (dev, out, results)
}

/// The row for `collect <what>` in the collectors table of docs/collect.md.
fn guide_row(what: &str) -> String {
    let guide = fs::read_to_string(root().join("docs/collect.md")).expect("docs/collect.md");
    guide
        .lines()
        .find(|l| l.starts_with(&format!("| `collect {what} ")))
        .unwrap_or_else(|| panic!("no docs/collect.md row for collect {what}"))
        .to_string()
}

fn number_before(text: &str, words: &str) -> Option<usize> {
    let at = text.find(words)?;
    let before = text[..at].split_whitespace().last()?;
    [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ]
    .iter()
    .position(|w| *w == before)
    .or_else(|| before.parse().ok())
}

#[test]
fn the_collect_guide_says_what_each_collector_s_dry_run_does() {
    let tmp = tempfile::tempdir().expect("tmp");
    // Storage: the mdadm command and the headline runs.
    let row = guide_row("storage");
    let r = run(&[
        "collect",
        "storage",
        "--array",
        "raid10",
        "--headline",
        "--dry-run",
        "-o",
        tmp.path().join("s").to_str().unwrap_or(""),
    ]);
    let mdadm = r
        .stdout
        .lines()
        .find(|l| l.starts_with("mdadm --create"))
        .expect("mdadm in the dry run");
    let said = row
        .split('`')
        .find(|x| x.starts_with("mdadm --create"))
        .expect("mdadm in docs/collect.md");
    let flags = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .filter(|w| w.starts_with("--"))
            .map(String::from)
            .collect()
    };
    assert_eq!(
        flags(said),
        flags(mdadm),
        "docs/collect.md: {said}\ndry run: {mdadm}"
    );
    let runs: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("# raid10/"))
        .collect();
    let headline = runs
        .iter()
        .filter(|l| !l.ends_with("/precondition") && !l.ends_with("randread-8k-j1-d1"))
        .count();
    assert_eq!(
        number_before(&row, "headline runs"),
        Some(headline),
        "{runs:?}"
    );
    assert!(runs.iter().any(|l| l.ends_with("randread-8k-j1-d1")) == row.contains("QD 1 read"));
    // kv-restore: how many asks, restarts and resets.
    let row = guide_row("kv-restore");
    let home = tmp.path().join("home");
    fs::create_dir_all(home.join("bench/load")).expect("mkdir");
    let out = bin()
        .env("HOME", &home)
        .args(["collect", "kv-restore", "--dry-run"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    // The procedure's steps; a repeat of a slow first run is not one of its counts.
    let count = |needle: &str| {
        text.lines()
            .filter(|l| l.starts_with("# ") && l.contains(needle) && !l.contains("repeated"))
            .count()
    };
    assert_eq!(
        number_before(&row, "times restart vLLM and ask (restore)"),
        Some(count("adp: ask (restore")),
        "{row}"
    );
    assert_eq!(
        number_before(&row, "times ask then restart vLLM"),
        Some(count("gpu-only: ask (recompute")),
        "{row}"
    );
    assert_eq!(count("adp: ask (cold)"), 1);
    assert_eq!(
        text.contains("reset_prefix_cache"),
        !row.contains("no prefix-cache reset"),
        "{row}"
    );
    assert!(text.contains("docker compose down") == row.contains("docker compose down"));
    // kv-dram: three warm resets per variant.
    let row = guide_row("kv-dram");
    let out = bin()
        .env("HOME", &home)
        .args(["collect", "kv-dram", "--dry-run"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let resets = text
        .lines()
        .filter(|l| l.starts_with("# ") && l.contains(": reset_prefix_cache ("))
        .count();
    assert_eq!(
        number_before(&row, "times `/reset_prefix_cache`").map(|n| n * 2),
        Some(resets),
        "{row}"
    );
}
