//! Helpers shared by the end-to-end tests: the binary, paths, folder snapshots.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::process::Command;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Says that the running test was skipped and why, where the test output shows it
/// whatever libtest captures (`SKIPPED <test>: <why>` on stderr, unbuffered), and keeps
/// it for the count at the end of the run (`tests/skipped.rs` prints it).
pub fn skipped(why: &str) {
    use std::io::Write;
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {name}: {why}");
    record_skip(name, why);
}

/// Where this run's skips are kept: one file per `cargo test` (named by cargo's process,
/// the parent of every test binary it runs), read by the `skipped` test binary, which
/// cargo runs after this one.
pub fn skips_file() -> PathBuf {
    skips_dir().join(format!("{}.txt", std::os::unix::process::parent_id()))
}

pub fn skips_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skipped")
}

fn record_skip(name: &str, why: &str) {
    use std::io::Write;
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _held = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let _ = std::fs::create_dir_all(skips_dir());
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(skips_file())
    {
        let _ = writeln!(f, "{}\t{}", name, why.replace(['\n', '\t'], " "));
    }
}

/// Whether every program the tests use must be here: in CI, where `.ci/run` installs
/// them, a missing one is a failure, not a skip. (`.ci/run`'s run with the programs
/// hidden unsets `CI`.)
pub fn everything_installed() -> bool {
    std::env::var_os("CI").is_some()
}

/// Whether `program` runs here (`program --version`); when it does not, the test is
/// skipped visibly, and in CI (where `.ci/run` installs it) that is a failure.
pub fn need(program: &str) -> bool {
    let ok = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stdout.is_empty() || !o.stderr.is_empty());
    if !ok {
        assert!(
            !everything_installed(),
            "CI installs {program} before the tests"
        );
        skipped(&format!("needs {program} (not on PATH)"));
    }
    ok
}

/// [`need`] for each program, in order; false (and skipped, naming the first one
/// missing) when any is missing.
pub fn need_all(programs: &[&str]) -> bool {
    programs.iter().all(|p| need(p))
}

/// The binary cargo built for these tests.
pub fn bin_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_reprobench"))
}

/// The binary, never installing typst: a test that needs the PDF checks for typst
/// ([`pdf_tools`]) and is skipped without it; any other asks for `--no-pdf`.
pub fn bin() -> Command {
    let mut c = Command::new(bin_path());
    c.env(reprobench::typst::INSTALL_ENV, "never");
    c
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(args: &[&str]) -> Run {
    let out = bin().args(args).output().expect("the binary runs");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "the tool panicked: {}",
        run.stderr
    );
    // A bundle the user asked to keep something unredacted in (`--no-redact`,
    // `--allow-unredacted`) holds it by choice; every other bundle is checked.
    let chosen = ["--dry-run", "--no-redact", "--allow-unredacted"];
    if args.first() == Some(&"bundle") && run.code == 0 && !args.iter().any(|a| chosen.contains(a))
    {
        if let (Some(input), Some(at)) = (args.get(1), args.iter().position(|a| *a == "-o")) {
            if let Some(out) = args.get(at + 1) {
                independent_scan(Path::new(input), Path::new(out));
            }
        }
    }
    run
}

/// Runs `cmd` (a Python script, usually) to its end and returns its standard output; a
/// failure fails the test with its standard error.
pub fn output_of(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().expect("the program runs");
    assert!(
        out.status.success(),
        "{:?}: {}",
        cmd.get_program(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A Python that can import `module`: the one `env` names (what `.ci/run` sets up,
/// pinned), else `python3` if it can.
pub fn python_with(env: &str, module: &str) -> Option<String> {
    let candidates = std::env::var(env)
        .ok()
        .into_iter()
        .chain(["python3".to_string()]);
    for py in candidates {
        let ok = Command::new(&py)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(py);
        }
    }
    None
}

/// Every bundle a test makes is scanned by an independent scanner (detect-secrets, see
/// `tests/scanner/independent_scan.py`): a finding whose value the input holds too is a
/// secret the bundle kept, and fails the test that made it.
pub fn independent_scan(input: &Path, out: &Path) {
    if let Some((scanner, kept)) = independent_findings(input, out) {
        assert!(
            kept.is_empty(),
            "{scanner} found in the bundle {} of {} what the input holds: {}",
            out.display(),
            input.display(),
            serde_json::to_string_pretty(&kept).unwrap_or_default()
        );
    }
}

/// What the independent scanner finds in the bundle at `out` (a file, or the one
/// `.tar.gz` in a folder) that `input` holds too: (the scanner and its version, the
/// findings, masked). None, and the test skipped visibly, where detect-secrets is not
/// installed.
pub fn independent_findings(input: &Path, out: &Path) -> Option<(String, Vec<serde_json::Value>)> {
    static PYTHON: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let Some(py) =
        PYTHON.get_or_init(|| python_with("REPROBENCH_SCANNER_PYTHON", "detect_secrets"))
    else {
        assert!(
            !everything_installed(),
            "CI installs detect-secrets (REPROBENCH_SCANNER_PYTHON) before the tests"
        );
        skipped(
            "the independent scan of a bundle needs detect-secrets (pip install detect-secrets)",
        );
        return None;
    };
    let bundle = if out.is_dir() {
        std::fs::read_dir(out)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".tar.gz"))?
    } else {
        out.to_path_buf()
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scanner/independent_scan.py"
    );
    let o = Command::new(py)
        .arg(script)
        .arg(&bundle)
        .arg(input)
        .output()
        .expect("the independent scanner runs");
    assert!(
        o.status.success(),
        "the independent scanner failed on {}: {}",
        bundle.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("the independent scanner prints JSON");
    let kept = v["kept"].as_array().cloned().unwrap_or_default();
    Some((v["scanner"].as_str().unwrap_or("").to_string(), kept))
}

/// A folder under `dir` holding one file no suite reads (the input every command must
/// refuse with exit status 2).
pub fn garbage_folder(dir: &Path) -> PathBuf {
    let garbage = dir.join("garbage");
    std::fs::create_dir_all(&garbage).expect("dir");
    std::fs::write(garbage.join("notes.txt"), "nothing a suite reads\n").expect("write");
    garbage
}

/// `analyze --format json` on a path, parsed: its one input's analysis (null when the
/// input gave none).
pub fn analyze_json(path: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let p = path.to_str().expect("utf-8 path");
    let mut args = vec!["analyze", p, "--format", "json"];
    args.extend_from_slice(extra);
    let r = run(&args);
    let v: serde_json::Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("stdout is JSON ({e}): {}\nstderr: {}", r.stdout, r.stderr));
    (r.code, first_analysis(&v))
}

/// The analyses of `analyze --format json` output, in the order of its inputs (an input
/// that gave none is skipped).
pub fn analyses(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i.get("analysis").cloned())
        .collect()
}

/// The first input's analysis, or null.
pub fn first_analysis(v: &serde_json::Value) -> serde_json::Value {
    v["inputs"][0]
        .get("analysis")
        .cloned()
        .unwrap_or(serde_json::Value::Null)
}

/// Verdict id -> status, from `analyze --format json`.
pub fn statuses(v: &serde_json::Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for s in v["suites"].as_array().into_iter().flatten() {
        for verdict in s["verdicts"].as_array().into_iter().flatten() {
            out.insert(
                verdict["id"].as_str().unwrap_or_default().to_string(),
                verdict["status"].as_str().unwrap_or_default().to_string(),
            );
        }
    }
    out
}

/// Every file under `dir` with its bytes (links and their targets by name).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("listable").flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).expect("stat");
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&p).expect("link");
                out.insert(p, target.to_string_lossy().as_bytes().to_vec());
            } else if meta.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("listable").flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

/// The typst binary the PDF tests use: $REPROBENCH_TYPST, the pinned one in the cache,
/// or typst on PATH. CI installs the pinned one before running the tests.
pub fn typst() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("REPROBENCH_TYPST").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let pinned = reprobench::typst::pinned_binary();
    if pinned.is_file() {
        return Some(pinned);
    }
    reprobench::process::which("typst")
}

/// The text of a PDF, by pdftotext.
pub fn pdf_text(pdf: &Path) -> Option<String> {
    let out = std::process::Command::new("pdftotext")
        .arg("-layout")
        .arg(pdf)
        .arg("-")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether PDF tests can run here; in CI (CI=true) they must.
pub fn pdf_tools() -> Option<PathBuf> {
    let t = typst();
    let have_pdftotext = std::process::Command::new("pdftotext")
        .arg("-v")
        .output()
        .is_ok();
    if t.is_none() || !have_pdftotext {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install typst and pdftotext before the tests"
        );
        skipped("typst or pdftotext missing: PDF test");
        return None;
    }
    t
}

/// A loop device over a fresh file for a test, or None with the test skipped, saying
/// why: `losetup` missing, or loop devices cannot be made here (not root, no loop
/// support). In CI, which runs as root with loop devices, either is a failure.
pub fn loop_device(file: &Path, mb: u64, args: &[&str]) -> Option<Loop> {
    if !need("losetup") {
        return None;
    }
    let l = Loop::with_args(file, mb, args);
    if l.is_none() {
        assert!(!everything_installed(), "CI runs as root with loop devices");
        skipped("no loop devices here (not root, or no loop support)");
    }
    l
}

/// A loop device over a fresh file, detached when dropped; None where loop devices
/// cannot be made (not root, no loop support). While a test holds one, no other test
/// makes or detaches one: `losetup` opens other loop devices while it looks for a free
/// one, and the device guard rightly refuses a device some program has open (a test's
/// collection once failed so, `pid N (losetup) has it open`). One test may hold several.
pub struct Loop(pub PathBuf, LoopTurn);

/// The loop devices' turn, held by one test (thread) at a time; reentrant, so a test may
/// make several devices.
pub struct LoopTurn;

static LOOP_TURN: std::sync::Mutex<(Option<std::thread::ThreadId>, usize)> =
    std::sync::Mutex::new((None, 0));
static LOOP_FREE: std::sync::Condvar = std::sync::Condvar::new();

impl LoopTurn {
    fn take() -> LoopTurn {
        let me = std::thread::current().id();
        let mut turn = LOOP_TURN.lock().unwrap_or_else(|e| e.into_inner());
        while turn.0.is_some_and(|owner| owner != me) {
            turn = LOOP_FREE.wait(turn).unwrap_or_else(|e| e.into_inner());
        }
        turn.0 = Some(me);
        turn.1 += 1;
        LoopTurn
    }
}

impl Drop for LoopTurn {
    fn drop(&mut self) {
        let mut turn = LOOP_TURN.lock().unwrap_or_else(|e| e.into_inner());
        turn.1 = turn.1.saturating_sub(1);
        if turn.1 == 0 {
            turn.0 = None;
            LOOP_FREE.notify_all();
        }
    }
}

impl Loop {
    pub fn new(file: &Path, mb: u64) -> Option<Loop> {
        Loop::with_args(file, mb, &[])
    }

    /// With extra `losetup` arguments (`--read-only`).
    pub fn with_args(file: &Path, mb: u64, args: &[&str]) -> Option<Loop> {
        let turn = LoopTurn::take();
        std::fs::write(file, vec![0u8; (mb << 20) as usize]).ok()?;
        let out = std::process::Command::new("losetup")
            .args(["-f", "--show"])
            .args(args)
            .arg(file)
            .output()
            .ok()?;
        out.status.success().then(|| {
            Loop(
                PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
                turn,
            )
        })
    }

    pub fn path(&self) -> &str {
        self.0.to_str().unwrap_or("")
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup")
            .arg("-d")
            .arg(&self.0)
            .status();
    }
}

/// `reprobench bundle INPUT -o OUT` plus `extra`.
pub fn bundle(input: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// Every file of a tar.gz, by path, as stored.
pub fn tar_contents(tgz: &Path) -> BTreeMap<String, Vec<u8>> {
    use std::io::Read;
    let f = std::fs::File::open(tgz).expect("bundle");
    let mut a = tar::Archive::new(flate2::read::GzDecoder::new(f));
    let mut out = BTreeMap::new();
    for e in a.entries().expect("entries") {
        let mut e = e.expect("entry");
        let path = e.path().expect("path").to_string_lossy().into_owned();
        let mut buf = Vec::new();
        e.read_to_end(&mut buf).expect("read");
        out.insert(path, buf);
    }
    out
}

/// `reprobench collect storage --array raid10 --dev DEV -o OUT` plus `extra`.
/// A path as the `&str` a command line takes (empty when it is not UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap_or("")
}

/// The bundled samples' folders, in name order.
pub fn samples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("samples"))
        .expect("samples")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

pub fn collect_storage(dev: &str, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "collect",
        "storage",
        "--array",
        "raid10",
        "--dev",
        dev,
        "-o",
        out.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// Every element of the list `key` ("verdicts", "deviations", "tables", ...) of every
/// suite in `analyze --format json` output, suite by suite.
pub fn in_suites<'a>(
    v: &'a serde_json::Value,
    key: &'a str,
) -> impl Iterator<Item = &'a serde_json::Value> + 'a {
    v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(move |s| s[key].as_array().into_iter().flatten())
}

/// The verdict `id` in `analyze --format json` output.
pub fn verdict(v: &serde_json::Value, id: &str) -> serde_json::Value {
    in_suites(v, "verdicts")
        .find(|x| x["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no verdict {id}"))
}

pub fn observation(v: &serde_json::Value, id: &str) -> serde_json::Value {
    in_suites(v, "observations")
        .find(|x| x["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no observation {id}"))
}

pub fn note(v: &serde_json::Value) -> String {
    v["note"].as_str().unwrap_or_default().to_string()
}

/// Edits a JSON file in place.
pub fn edit_json(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
    f(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).expect("json")).expect("write");
}

/// A TCP port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18_431)
}

/// Every physical limit in `analyze --format json` output.
pub fn limits(v: &serde_json::Value) -> Vec<serde_json::Value> {
    in_suites(v, "limits").cloned().collect()
}

/// The seconds of every request of an `ask` transcript (`time 2.10 s  {...}` lines), in
/// order, read by the tool's own transcript reader.
pub fn transcript_seconds(path: &Path) -> Vec<f64> {
    reprobench::parse::ask::parse_path(path)
        .expect("a transcript")
        .iter()
        .filter_map(|a| a.seconds)
        .collect()
}

/// Every job's rates and the counts fio computes them from, scaled together by `factor`
/// (0: a run that moved nothing): fio writes `bw_bytes = 1000 * io_bytes / runtime`, and
/// reprobench refuses a file where they disagree.
pub fn scale_fio_counts(doc: &mut serde_json::Value, factor: f64) {
    for job in doc["jobs"].as_array_mut().into_iter().flatten() {
        for side in ["read", "write"] {
            for key in [
                "bw",
                "bw_bytes",
                "iops",
                "io_bytes",
                "io_kbytes",
                "total_ios",
            ] {
                if let Some(x) = job[side][key].as_f64() {
                    job[side][key] = serde_json::json!((x * factor).round());
                }
            }
        }
    }
}
