//! Every command's help says what it writes and what its exit statuses mean, and is held
//! to what the command does: the files `report` writes (with and without the PDF) are
//! each named in `report --help`, and every exit status `analyze`, `report` and `compare`
//! return on a passing, a failing and an unusable input is one their help names.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::*;

fn help(cmd: &str) -> String {
    let r = run(&[cmd, "--help"]);
    assert_eq!(r.code, 0, "{cmd} --help: {}", r.stderr);
    r.stdout
}

/// The statuses the help's "Exit status:" paragraph names (`0 when ...; 1 when ...`).
fn statuses_named(help: &str) -> BTreeSet<i32> {
    let Some(at) = help.find("Exit status:") else {
        return BTreeSet::new();
    };
    let para = help[at..].split("\n\n").next().unwrap_or("");
    let words: Vec<&str> = para
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .filter(|w| w[1] == "when")
        .filter_map(|w| w[0].parse().ok())
        .collect()
}

/// The files under `dir`, relative, a plot as `plots/*.svg`.
fn written(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in walkdir(dir) {
        let rel = e
            .strip_prefix(dir)
            .unwrap_or(&e)
            .to_string_lossy()
            .into_owned();
        out.insert(if rel.starts_with("plots/") && rel.ends_with(".svg") {
            "plots/*.svg".to_string()
        } else {
            rel
        });
    }
    out
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn report_help_names_every_file_report_writes_with_and_without_the_pdf() {
    let text = help("report");
    let sample = root().join("samples/storage-published");
    let tmp = tempfile::tempdir().expect("tmp");
    let no_pdf = tmp.path().join("no-pdf");
    let r = run(&[
        "report",
        sample.to_str().unwrap_or(""),
        "-o",
        no_pdf.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let without = written(&no_pdf);
    assert!(without.contains("plots/*.svg"), "{without:?}");
    for f in &without {
        assert!(
            text.contains(f.as_str()),
            "report writes {f}; its help does not say so:\n{text}"
        );
    }
    // What --no-pdf says it skips is what it skips.
    let skip = text
        .split("--no-pdf")
        .nth(1)
        .and_then(|t| t.split("\n  -").next())
        .unwrap_or("");
    for f in ["report.typ", "report.pdf"] {
        assert!(
            skip.contains(f),
            "--no-pdf's help does not name {f}: {skip}"
        );
        assert!(!without.contains(f), "--no-pdf wrote {f}");
    }
    let Some(typst) = typst() else {
        assert!(!everything_installed(), "CI installs typst");
        skipped("typst missing: the report with its PDF");
        return;
    };
    let full = tmp.path().join("full");
    let r = run(&[
        "report",
        sample.to_str().unwrap_or(""),
        "-o",
        full.to_str().unwrap_or(""),
        "--typst",
        typst.to_str().unwrap_or(""),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let with = written(&full);
    for f in ["report.typ", "report.pdf"] {
        assert!(with.contains(f), "{with:?}");
    }
    for f in &with {
        assert!(
            text.contains(f.as_str()),
            "report writes {f}; its help does not say so:\n{text}"
        );
    }
}

#[test]
fn every_exit_status_analyze_report_and_compare_return_is_named_in_their_help() {
    let tmp = tempfile::tempdir().expect("tmp");
    let garbage = tmp.path().join("garbage");
    std::fs::create_dir_all(&garbage).expect("dir");
    std::fs::write(garbage.join("notes.txt"), "nothing a suite reads\n").expect("write");
    let passing = root().join("samples/storage-published");
    let failing = root().join("samples/kv-cache-failing");
    let inputs = [&passing, &failing, &garbage];
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    for cmd in ["analyze", "report"] {
        let named = statuses_named(&help(cmd));
        let mut seen = BTreeSet::new();
        for input in inputs {
            let out = tmp.path().join(format!("out-{cmd}-{}", seen.len()));
            let mut args = vec![cmd.to_string(), s(input)];
            if cmd == "report" {
                args.extend(["-o".into(), s(&out), "--no-pdf".into()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let r = run(&args);
            assert!(
                named.contains(&r.code),
                "{cmd} {} exits {}; its help names {named:?}",
                input.display(),
                r.code
            );
            seen.insert(r.code);
        }
        assert_eq!(
            seen,
            BTreeSet::from([0, 1, 2]),
            "{cmd}: the three inputs give each status"
        );
    }
    let named = statuses_named(&help("compare"));
    for (base, new) in [(&passing, &passing), (&passing, &garbage)] {
        let r = run(&["compare", &s(base), &s(new)]);
        assert!(
            named.contains(&r.code),
            "compare exits {}; its help names {named:?}",
            r.code
        );
    }
}
