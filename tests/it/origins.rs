//! Every command a dry run prints is marked as the procedure's (the line it runs, quoted
//! as the procedure writes it, which this test finds in the procedure texts) or as
//! reprobench's own (with why), and every way a command differs from the procedure's
//! line is listed with what it changes.

use crate::common::*;
use std::path::Path;

/// One step of a dry run: its name, its origin line, its differences, its commands.
#[derive(Debug, Default)]
struct Block {
    name: String,
    origins: Vec<String>,
    differs: Vec<String>,
    commands: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut started = false;
    for line in text.lines() {
        if line.starts_with("# dry run:") {
            started = true;
            continue;
        }
        if !started || line.trim().is_empty() {
            continue;
        }
        // The line after the last step says where the manifest would go.
        if line.starts_with("# manifest: ") {
            break;
        }
        if let Some(rest) = line.strip_prefix("#   ") {
            let Some(b) = out.last_mut() else { continue };
            if rest.starts_with("the procedure's") || rest.starts_with("reprobench's own: ") {
                b.origins.push(rest.to_string());
            } else if let Some(d) = rest.strip_prefix("differs from the procedure: ") {
                b.differs.push(d.to_string());
            }
        } else if let Some(name) = line.strip_prefix("# ") {
            out.push(Block {
                name: name.to_string(),
                ..Block::default()
            });
        } else if let Some(b) = out.last_mut() {
            b.commands.push(line.to_string());
        }
    }
    out
}

fn dry(home: &Path, args: &[&str]) -> Vec<Block> {
    let r = bin()
        .env("HOME", home)
        .current_dir(home)
        .args(args)
        .arg("--dry-run")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&r.stdout).into_owned();
    assert!(r.status.success(), "{args:?}: {text}");
    let b = blocks(&text);
    assert!(b.len() > 3, "{args:?}: steps in {text}");
    b
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The procedure text a section label belongs to, and the heading it names.
fn procedure_of(section: &str) -> (&'static str, &str) {
    let heading = section.split_once(", ").map_or(section, |(_, h)| h);
    if section.starts_with("raid5f vs Xinnor") {
        ("spdk-raid5f-vs-xinnor", heading)
    } else {
        ("adp-reproducing-the-benchmarks", heading)
    }
}

/// `the procedure's (SECTION): LINE` or `the procedure's: SECTION` (a heading quoted).
fn quoted(origin: &str) -> Option<(String, String)> {
    let rest = origin.strip_prefix("the procedure's")?;
    if let Some(section) = rest.strip_prefix(": ") {
        let (_, heading) = procedure_of(section);
        return Some((section.to_string(), heading.to_string()));
    }
    let rest = rest.strip_prefix(" (")?;
    let (section, line) = rest.split_once("): ")?;
    Some((section.to_string(), line.to_string()))
}

fn every_collector(home: &Path) -> Vec<(String, Vec<Block>)> {
    let out = home.join("out");
    let o = out.to_str().expect("utf-8");
    let bench = home.join("bench");
    let b = bench.to_str().expect("utf-8");
    let runs: Vec<Vec<&str>> = vec![
        vec![
            "collect",
            "storage",
            "--array",
            "raid10",
            "--drives",
            "/dev/nvme0n1,/dev/nvme1n1,/dev/nvme2n1,/dev/nvme3n1",
            "-o",
            o,
        ],
        vec![
            "collect",
            "storage",
            "--array",
            "adp",
            "--dev",
            "/dev/nvme9n1",
            "-o",
            o,
        ],
        vec!["collect", "kv", "--dram", "--bench", b],
        vec!["collect", "spdk-raid", "-o", o],
        vec!["collect", "sysinfo", "-o", o],
    ];
    runs.iter().map(|a| (a.join(" "), dry(home, a))).collect()
}

#[test]
fn every_dry_run_step_says_whose_command_it_is_and_quotes_the_procedures_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let all = every_collector(tmp.path());
    let texts = ["adp-reproducing-the-benchmarks", "spdk-raid5f-vs-xinnor"].map(|n| {
        let p = root().join(format!("../shared/procedures/{n}.txt"));
        (n, std::fs::read_to_string(p).ok())
    });
    let mut problems = Vec::new();
    let mut procedure_lines = 0;
    for (args, blocks) in &all {
        for b in blocks {
            if b.origins.len() != 1 {
                problems.push(format!(
                    "{args}: `{}` has {} origins: {:?}",
                    b.name,
                    b.origins.len(),
                    b.origins
                ));
                continue;
            }
            if b.commands.is_empty() {
                problems.push(format!("{args}: `{}` prints no command", b.name));
            }
            let Some((section, line)) = quoted(&b.origins[0]) else {
                let why = b.origins[0].trim_start_matches("reprobench's own: ");
                if why.split_whitespace().count() < 5 {
                    problems.push(format!(
                        "{args}: `{}` is the tool's own without a why",
                        b.name
                    ));
                }
                continue;
            };
            procedure_lines += 1;
            let (doc, heading) = procedure_of(&section);
            let Some(text) = texts
                .iter()
                .find(|(n, _)| *n == doc)
                .and_then(|(_, t)| t.as_ref())
            else {
                continue;
            };
            if !norm(text).contains(&norm(&line)) {
                problems.push(format!(
                    "{args}: `{}` quotes a line {doc} does not have: {line}",
                    b.name
                ));
            }
            if !text.lines().any(|l| l.trim().starts_with(heading)) {
                problems.push(format!(
                    "{args}: `{}` names a section {doc} does not have: {heading}",
                    b.name
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        procedure_lines > 100,
        "most steps are the procedure's: {procedure_lines}"
    );
    if texts.iter().any(|(_, t)| t.is_none()) {
        skipped(
            "the procedures are not beside the repository: the quoted lines were not looked up",
        );
    }
    // Each collector has steps of both kinds, and the differences say what they change.
    let kinds = |b: &[Block]| {
        (
            b.iter()
                .any(|x| x.origins[0].starts_with("the procedure's")),
            b.iter()
                .any(|x| x.origins[0].starts_with("reprobench's own")),
        )
    };
    for (args, b) in &all {
        assert!(kinds(b).0, "{args}: a procedure step");
    }
    assert!(
        kinds(&all[2].1).1,
        "kv: the tool's own steps (a transcript started afresh)"
    );
    // The ADP storage collection asks the card for its status once, not twice.
    let adp = &all[1].1;
    let status = adp
        .iter()
        .filter(|b| {
            b.commands
                .iter()
                .any(|c| c.starts_with("pliocli system get_status"))
        })
        .count();
    assert_eq!(status, 1, "pliocli system get_status runs once");
    // The KV collections run on the GPU server: pliocli belongs to the storage server.
    for b in all[2]
        .1
        .iter()
        .filter(|b| b.name.starts_with("sysinfo/pliocli"))
    {
        assert!(
            b.differs
                .iter()
                .any(|d| d.contains("from the storage server")),
            "`{}`: {:?}",
            b.name,
            b.differs
        );
    }
    let level = all[2]
        .1
        .iter()
        .find(|b| b.name.ends_with("-L1"))
        .expect("a level");
    assert!(
        level
            .differs
            .iter()
            .any(|d| d.contains("the failures criterion could not be judged")),
        "{:?}",
        level.differs
    );
    for (args, b) in &all {
        for x in b {
            for d in &x.differs {
                assert!(
                    d.contains(": ") && d.len() > 40,
                    "{args}: `{}`: a difference with its effect: {d}",
                    x.name
                );
            }
        }
    }
}

#[test]
fn a_storage_run_lists_exactly_how_it_differs_from_the_procedures_run_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tmp.path();
    let o = home.join("out");
    let base = [
        "collect",
        "storage",
        "--array",
        "adp",
        "--dev",
        "/dev/nvme9n1",
        "-o",
        o.to_str().expect("utf-8"),
    ];
    // As the procedure writes it: the headline runs differ in nothing, and their fio
    // command holds every option of the procedure's line.
    let plain = dry(home, &base);
    let headline: Vec<&Block> = plain
        .iter()
        .filter(|b| b.origins[0].contains("): run "))
        .collect();
    assert_eq!(headline.len(), 6, "the precondition and five headline runs");
    for b in &headline {
        assert!(b.differs.is_empty(), "`{}`: {:?}", b.name, b.differs);
        let line = b.origins[0].split("): run ").nth(1).expect("line");
        let fio = b
            .commands
            .iter()
            .find(|c| c.starts_with("fio "))
            .expect("fio");
        for opt in line.split_whitespace().skip(1) {
            assert!(
                fio.split_whitespace().any(|w| w == opt),
                "`{}`: {opt} in {fio}",
                b.name
            );
        }
    }
    let sweep: Vec<&Block> = plain
        .iter()
        .filter(|b| b.origins[0].contains("The rest of the 63-run suite"))
        .collect();
    assert_eq!(sweep.len(), 63 - 5, "the sweep's other runs");
    for b in &sweep {
        assert_eq!(
            b.differs.len(),
            1,
            "`{}`: only that the procedure lists no command: {:?}",
            b.name,
            b.differs
        );
    }
    // Another span, time and time-based: each run says so, option by option.
    let mut args = base.to_vec();
    args.extend(["--size", "8m", "--runtime", "4", "--time-based"]);
    let changed = dry(home, &args);
    for b in changed.iter().filter(|b| b.origins[0].contains("): run ")) {
        let d = b.differs.join("\n");
        let want_size = !b.name.ends_with("/precondition");
        assert_eq!(
            d.contains("--size=8m instead of --size=3800000000000"),
            want_size,
            "`{}`: {d}",
            b.name
        );
        assert!(
            d.contains("--runtime=4 instead of --runtime=60"),
            "`{}`: {d}",
            b.name
        );
        assert!(d.contains("--time_based=1 added"), "`{}`: {d}", b.name);
    }
}
