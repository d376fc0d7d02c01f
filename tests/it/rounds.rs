//! `collect storage --repeat N` and `--until-settled [MAX]`: real fio runs on loop devices
//! (files where there are none), a stand-in `pliocli` and `systemctl` for the ADP side
//! (the card cannot run here).

use std::fs;
use std::path::Path;

use crate::common::*;

/// A folder on the PATH holding a stand-in `pliocli` (status OK) and `systemctl` (active).
fn stand_in_card(dir: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    fs::create_dir_all(dir).expect("bin");
    for (name, text) in [
        ("pliocli", "#!/bin/sh\necho 'Aggregated status: OK'\n"),
        ("systemctl", "#!/bin/sh\necho active\n"),
    ] {
        let p = dir.join(name);
        fs::write(&p, text).expect("write");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A device for fio: a loop device over a file in memory where the machine allows (runs
/// steadier than on a disk), else the file itself.
fn device(dir: &Path, name: &str) -> (String, Option<Loop>) {
    let img = dir.join(name);
    match Loop::new(&img, 64) {
        Some(l) => (s(&l.0).to_string(), Some(l)),
        None => {
            fs::write(&img, vec![0u8; 64 << 20]).expect("img");
            (s(&img).to_string(), None)
        }
    }
}

fn memory_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("tmp")
}

const SHORT: [&str; 7] = [
    "--size",
    "32m",
    "--runtime",
    "12",
    "--time-based",
    "--only",
    "randwrite-8k-j8-d8",
];

#[test]
fn until_settled_on_a_loop_device_stops_by_itself_and_says_why_with_a_stand_in_card() {
    if !need_all(&["fio", "iostat"]) {
        return;
    }
    let mem = memory_dir();
    let tmp = tempfile::tempdir().expect("tmp");
    let (adp_dev, _adp_loop) = device(mem.path(), "adp.img");
    let (raid_dev, _raid_loop) = device(mem.path(), "raid10.img");
    let out = tmp.path().join("results");
    let path = stand_in_card(&tmp.path().join("bin"));
    let mut args = vec![
        "collect", "storage", "--array", "adp", "--dev", &adp_dev, "-o",
    ];
    let out_s = s(&out);
    args.push(out_s);
    args.extend(SHORT);
    let adp = bin().args(&args).env("PATH", &path).output().expect("runs");
    assert!(
        adp.status.success(),
        "{}",
        String::from_utf8_lossy(&adp.stderr)
    );

    let mut extra = SHORT.to_vec();
    extra.extend(["--until-settled", "3"]);
    let r = collect_storage(&raid_dev, &out, &extra);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let rounds: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("round "))
        .collect();
    let last = rounds.last().expect("a round line");
    assert!(last.contains(": stopped: "), "{}", r.stdout);
    // It stops for a reason it names: settled, nothing left that rounds can settle, or the
    // most rounds asked for.
    assert!(
        last.contains("every criterion settled after")
            || last.contains("nothing more to settle after")
            || last.contains("not settled after 3 rounds"),
        "{last}"
    );
    assert!(last.contains("storage.randwrite-8k-qd64"), "{last}");
    // Each round line but the last asks for the next, whose runs are in the folder.
    let done = rounds.len() as u32;
    assert!((1..=3).contains(&done), "{}", r.stdout);
    for k in 2..=done {
        let f = out.join(format!("raid10/randwrite-8k-j8-d8-run{k}.json"));
        assert!(f.is_file(), "round {k}: {}", f.display());
        assert!(
            rounds[k as usize - 2].contains(&format!("round {k} runs again: randwrite-8k-j8-d8")),
            "{}",
            rounds[k as usize - 2]
        );
    }
    assert!(!out
        .join(format!("raid10/randwrite-8k-j8-d8-run{}.json", done + 1))
        .exists());
    // A round that asked for more saw no interval over repeated runs yet (none, one from
    // within the runs), or one that straddles.
    for line in &rounds[..rounds.len() - 1] {
        assert!(
            line.contains("no interval")
                || line.contains("within one run a side")
                || line.contains("inconclusive"),
            "{line}"
        );
    }
    // The manifest keeps every round's line.
    let m: serde_json::Value = serde_json::from_slice(
        &fs::read(out.join("manifests/storage-raid10.json")).expect("manifest"),
    )
    .expect("json");
    let kept: Vec<&str> = m["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .filter_map(|x| x.as_str())
        .collect();
    assert_eq!(kept, rounds);
    // analyze pools the repeats it wrote, each run listed.
    let (_, v) = analyze_json(&out, &[]);
    let verdict = in_suites(&v, "verdicts")
        .find(|x| x["id"] == "storage.randwrite-8k-qd64")
        .expect("verdict");
    let runs = verdict["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter(|f| f.as_str().is_some_and(|f| f.ends_with(".json")))
        .count();
    assert_eq!(runs, done as usize + 1, "{verdict}");
    if done > 1 {
        assert!(verdict["interval"]["low"].is_number(), "{verdict}");
        assert!(last.contains("95% CI"), "{last}");
    }
}

#[test]
fn repeat_runs_each_measured_job_n_times_and_the_precondition_once() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("results");
    let r = collect_storage(
        "/dev/loop-reprobench-none",
        &out,
        &["--headline", "--repeat", "3", "--dry-run", "--no-prepare"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let steps: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .collect();
    let named = |n: &str| steps.iter().filter(|s| **s == n).count();
    assert_eq!(named("raid10/precondition"), 1, "{}", r.stdout);
    for job in ["randwrite-8k-j8-d8", "read-1m-j8-d4", "randread-8k-j1-d1"] {
        assert_eq!(
            named(&format!("raid10/{job}-run2")),
            1,
            "{job}: {}",
            r.stdout
        );
        assert_eq!(named(&format!("raid10/{job}-run3")), 1, "{job}");
        assert_eq!(named(&format!("raid10/{job}-run4")), 0, "{job}");
    }
    assert!(
        r.stdout
            .contains("round 2: a repeat the procedure does not ask for (it runs each job once)"),
        "{}",
        r.stdout
    );
    // The teardown comes after the last round (with the preparation, as the procedure
    // builds and tears down the array).
    let r = collect_storage(
        "/dev/md126",
        &out,
        &["--headline", "--repeat", "3", "--dry-run"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .collect();
    let last_round = names.iter().rposition(|n| n.ends_with("-run3"));
    let teardown = names.iter().position(|n| n.starts_with("teardown/"));
    assert!(
        matches!((last_round, teardown), (Some(a), Some(b)) if a < b),
        "{}",
        r.stdout
    );
    // --until-settled says in the dry run what it will do after each round.
    let r = collect_storage(
        "/dev/loop-reprobench-none",
        &out,
        &["--headline", "--until-settled", "--dry-run", "--no-prepare"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("then up to 5 rounds in all")
            && r.stdout.contains("storage.randwrite-8k-qd64"),
        "{}",
        r.stdout
    );
    // Not both.
    let r = collect_storage(
        "/dev/loop-reprobench-none",
        &out,
        &["--repeat", "2", "--until-settled", "--dry-run"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
}
