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
    let garbage = garbage_folder(tmp.path());
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

#[test]
fn analyze_prints_a_summary_by_default_and_everything_with_detail_or_verbose() {
    let sample = root().join("samples/storage-published");
    let p = sample.to_str().unwrap_or("");
    let summary = run(&["analyze", p]);
    let detail = run(&["analyze", p, "--detail"]);
    let verbose = run(&["-v", "analyze", p]);
    assert_eq!((summary.code, detail.code, verbose.code), (0, 0, 0));
    let lines = summary.stdout.lines().count();
    assert!(lines <= 40, "{lines} lines:\n{}", summary.stdout);
    // The summary names every criterion and says what the detail holds besides.
    let (_, v) = analyze_json(&sample, &[]);
    for verdict in v["suites"][0]["verdicts"].as_array().expect("verdicts") {
        let criterion = verdict["criterion"].as_str().unwrap_or("");
        assert!(summary.stdout.contains(criterion), "{criterion}");
    }
    assert!(
        summary.stdout.contains("12 physical limits"),
        "{}",
        summary.stdout
    );
    assert!(!summary.stdout.contains("Physical limits\n"));
    assert!(
        detail.stdout.contains("Physical limits\n"),
        "{}",
        detail.stdout
    );
    assert!(detail.stdout.lines().count() > 3 * lines);
    assert_eq!(verbose.stdout, detail.stdout, "-v is --detail");
    // JSON holds everything: --detail changes nothing there (its help says so).
    let json = run(&["analyze", p, "--format", "json"]);
    let json_detail = run(&["analyze", p, "--format", "json", "--detail"]);
    assert_eq!(json.stdout, json_detail.stdout);
    assert!(help("analyze").contains("with --format json this changes nothing"));
    // Failures first, each with a short reason.
    let failing = run(&[
        "analyze",
        root()
            .join("samples/kv-cache-failing")
            .to_str()
            .unwrap_or(""),
    ]);
    let table: Vec<&str> = failing
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("status"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    let first_pass = table.iter().position(|l| l.starts_with("pass"));
    let last_other = table.iter().rposition(|l| !l.starts_with("pass"));
    assert!(
        first_pass.is_none_or(|p| last_other.is_none_or(|o| o < p)),
        "{table:#?}"
    );
    assert!(failing.stdout.contains("\nWhy\n"), "{}", failing.stdout);
    assert!(
        failing.stdout.lines().all(|l| !l.contains("1 times")),
        "{}",
        failing.stdout
    );
}

#[test]
fn status_words_are_coloured_only_when_asked_or_on_a_terminal() {
    let p = root().join("samples/kv-cache-failing");
    let p = p.to_str().unwrap_or("");
    let always = run(&["analyze", p, "--color", "always"]);
    assert!(
        always.stdout.contains("\u{1b}[32mpass\u{1b}[0m"),
        "{}",
        always.stdout
    );
    assert!(always.stdout.contains("\u{1b}[1;31mFAIL\u{1b}[0m"));
    // Piped (as here), auto is plain; never is plain.
    for args in [&["analyze", p][..], &["analyze", p, "--color", "never"]] {
        let r = run(args);
        assert!(!r.stdout.contains('\u{1b}'), "{args:?}");
        // Colour changes nothing else.
        let plain = always
            .stdout
            .replace("\u{1b}[32m", "")
            .replace("\u{1b}[1;31m", "");
        let plain = plain.replace("\u{1b}[33m", "").replace("\u{1b}[0m", "");
        assert_eq!(plain, r.stdout);
    }
}

#[test]
fn quiet_leaves_errors_and_warnings_only() {
    let a = root().join("samples/storage-published");
    let a = a.to_str().unwrap_or("");
    // One input with --trend says a note on standard error.
    let loud = run(&["analyze", a, "--trend"]);
    assert!(loud.stderr.contains("note:"), "{}", loud.stderr);
    let quiet = run(&["--quiet", "analyze", a, "--trend"]);
    assert_eq!(quiet.stderr, "", "{}", quiet.stderr);
    assert_eq!(quiet.stdout, loud.stdout);
    let err = run(&["-q", "analyze", "/nonexistent/input"]);
    assert!(err.stderr.starts_with("error:"), "{}", err.stderr);
    assert_ne!(
        run(&["-q", "-v", "analyze", a]).code,
        0,
        "-q and -v conflict"
    );
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let r = run(&["--version"]);
    assert_eq!(r.code, 0);
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match commit {
        // A build from a checkout names it (the build may be older than HEAD when the
        // test binary is: then it is a commit of this history).
        Some(_) => {
            let named = r
                .stdout
                .split("commit ")
                .nth(1)
                .and_then(|t| t.split(')').next())
                .unwrap_or("");
            assert_eq!(named.len(), 12, "{}", r.stdout);
            let known = std::process::Command::new("git")
                .args(["cat-file", "-e", &format!("{named}^{{commit}}")])
                .current_dir(root())
                .status()
                .is_ok_and(|s| s.success());
            assert!(known, "{named} is a commit of this repository");
        }
        // No git here to ask (the tests with programs hidden): the form only.
        None => {
            let named = r
                .stdout
                .split("(commit ")
                .nth(1)
                .and_then(|t| t.split(')').next())
                .unwrap_or("");
            assert!(
                named == "unknown"
                    || (named.len() == 12 && named.chars().all(|c| c.is_ascii_hexdigit())),
                "{}",
                r.stdout
            );
        }
    }
}

#[test]
fn shell_files_installs_completions_and_man_pages_under_a_prefix() {
    let tmp = tempfile::tempdir().expect("tmp");
    let prefix = tmp.path().join("local");
    let p = prefix.to_str().unwrap_or("");
    let dry = run(&["shell-files", "--prefix", p, "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(!prefix.exists(), "a dry run writes nothing");
    let r = run(&["shell-files", "--prefix", p]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let share = prefix.join("share");
    let bash = std::fs::read_to_string(share.join("bash-completion/completions/reprobench"))
        .expect("bash completion");
    let zsh = std::fs::read_to_string(share.join("zsh/site-functions/_reprobench")).expect("zsh");
    let fish = std::fs::read_to_string(share.join("fish/vendor_completions.d/reprobench.fish"))
        .expect("fish");
    // Every command of the help is completed in each shell.
    for cmd in [
        "analyze",
        "report",
        "compare",
        "bundle",
        "dataset",
        "collect",
        "shell-files",
    ] {
        for (shell, text) in [("bash", &bash), ("zsh", &zsh), ("fish", &fish)] {
            assert!(text.contains(cmd), "{shell} completes {cmd}");
        }
    }
    assert!(bash.contains("--detail") && bash.contains("--color"));
    let man = share.join("man/man1");
    let page = std::fs::read_to_string(man.join("reprobench.1")).expect("man page");
    assert!(page.starts_with(".ie") || page.contains(".TH"), "{page}");
    let analyze = std::fs::read_to_string(man.join("reprobench-analyze.1")).expect("analyze page");
    assert!(analyze.contains("Exit status"), "{analyze}");
    assert!(man.join("reprobench-collect-storage.1").exists());
    // The dry run listed exactly what was written.
    let listed = dry
        .stdout
        .lines()
        .filter(|l| l.starts_with("would write"))
        .count();
    let written = walk_count(&prefix);
    assert_eq!(listed, written);
    // bash can load what was written (when bash is here).
    // Optional extras: man is not among what the tests need installed.
    let here = |p: &str| {
        std::process::Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if here("bash") {
        let ok = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}' && complete -p reprobench",
                share
                    .join("bash-completion/completions/reprobench")
                    .display()
            ))
            .output()
            .expect("bash");
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
    }
    if here("man") {
        let out = std::process::Command::new("man")
            .arg(man.join("reprobench-analyze.1"))
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .expect("man");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("--detail"), "{text}");
    }
}

fn walk_count(dir: &Path) -> usize {
    walkdir(dir).len()
}

#[test]
fn every_command_that_can_fail_names_its_exit_statuses_and_returns_only_those() {
    let tmp = tempfile::tempdir().expect("tmp");
    let garbage = garbage_folder(tmp.path());
    let sample = root().join("samples/storage-published");
    let s = |p: &Path| p.to_str().unwrap_or("").to_string();
    let out = |n: &str| s(&tmp.path().join(n));
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "bundle",
            vec![
                "bundle".into(),
                s(&sample),
                "-o".into(),
                out("a.tar.gz"),
                "--dry-run".into(),
                "--no-pdf".into(),
            ],
        ),
        (
            "bundle",
            vec![
                "bundle".into(),
                s(&garbage),
                "-o".into(),
                out("b.tar.gz"),
                "--no-pdf".into(),
            ],
        ),
        (
            "bundle",
            vec![
                "bundle".into(),
                "/nonexistent/input".into(),
                "-o".into(),
                out("c.tar.gz"),
            ],
        ),
        (
            "dataset",
            vec!["dataset".into(), "add".into(), out("ds"), s(&sample)],
        ),
        (
            "dataset",
            vec!["dataset".into(), "list".into(), out("not-a-dataset")],
        ),
        (
            "spdk",
            vec![
                "spdk".into(),
                "config".into(),
                "--bdevs".into(),
                "a,b,c".into(),
                "--raid".into(),
                "raid7".into(),
            ],
        ),
        (
            "spdk",
            vec![
                "spdk".into(),
                "config".into(),
                "--bdevs".into(),
                "a,b,c".into(),
            ],
        ),
        (
            "collect",
            vec![
                "collect".into(),
                "sysinfo".into(),
                "--dry-run".into(),
                "-o".into(),
                out("sys"),
            ],
        ),
        (
            "shell-files",
            vec![
                "shell-files".into(),
                "--prefix".into(),
                out("prefix"),
                "--dry-run".into(),
            ],
        ),
    ];
    for (cmd, args) in &cases {
        let named = statuses_named(&help(cmd));
        assert!(named.contains(&0) && named.contains(&2), "{cmd}: {named:?}");
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(&refs);
        assert!(
            named.contains(&r.code),
            "{args:?} exits {}; `{cmd} --help` names {named:?}\n{}",
            r.code,
            r.stderr
        );
    }
}
