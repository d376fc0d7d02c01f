//! How every collector runs: a list of steps, each one command. Before a step that writes
//! to a device the guard looks at that device again; after each step its output is read
//! back, and only a step whose result holds what it should counts. A rerun skips the
//! steps an earlier run finished (their output still reads back), a stopping signal
//! (SIGINT, SIGTERM, SIGHUP; to the tool or its process group) stops the current step and
//! everything it started and keeps what finished, and the manifest records every step with its command,
//! start, end, exit status and result as it goes.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::process::{Invocation, Output, ProcessError, Runner};

use super::guard;
use super::outcome::{self, Outcome};
pub mod origin;
mod session;
pub use origin::Origin;
pub use session::Session;

/// Reads a step's own output files back, given how the step exited.
pub type Reader = Arc<dyn Fn(&Result<Output, ProcessError>) -> Outcome + Send + Sync>;

/// How a step's result is read back.
#[derive(Clone)]
pub enum Check {
    /// fio's JSON: it must parse, hold I/O and no job error.
    Fio(PathBuf),
    /// The exit status alone.
    Exit,
    /// A reader of the step's own output files: Ok when they hold what they should.
    Custom(Reader),
}

impl std::fmt::Debug for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Check::Fio(p) => write!(f, "Fio({})", p.display()),
            Check::Exit => f.write_str("Exit"),
            Check::Custom(_) => f.write_str("Custom"),
        }
    }
}

/// A step that runs only when what the earlier steps left calls for it (a repeat of a slow
/// first measurement): `says` is the condition as the dry run and the manifest word it;
/// `test`, asked right before the step would run, gives `Err(why not)` to leave it out.
#[derive(Clone)]
pub struct When {
    pub says: String,
    pub test: Arc<dyn Fn() -> Result<(), String> + Send + Sync>,
}

impl std::fmt::Debug for When {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "When({})", self.says)
    }
}

/// A device a step writes to, and the signature an earlier step of the same collection
/// put there on purpose (`linux_raid_member` after `mdadm --create`), if any.
#[derive(Debug, Clone)]
pub struct Write {
    pub dev: PathBuf,
    pub expect: Option<&'static str>,
    /// The command opens the device exclusively itself (blkdiscard, mdadm, wipefs): the
    /// guard's exclusive claim is released just before it runs. Otherwise (fio) the
    /// guard holds the device for the command's whole run.
    pub claims_itself: bool,
}

impl Write {
    /// A command that writes to `dev` without claiming it (fio): held while it runs.
    pub fn to(dev: &Path) -> Write {
        Write {
            dev: dev.to_path_buf(),
            expect: None,
            claims_itself: false,
        }
    }

    /// A command that claims `dev` itself (`O_EXCL`): checked, then left to it.
    pub fn claimed(dev: &Path) -> Write {
        Write {
            claims_itself: true,
            ..Write::to(dev)
        }
    }
}

/// One command of a procedure.
#[derive(Debug, Clone)]
pub struct Step {
    /// Unique within a collection, e.g. `raid10/randwrite-8k-j8-d8`.
    pub name: String,
    /// The procedure's line it runs, or why reprobench takes it.
    pub origin: Origin,
    /// How the command differs from the procedure's line, each with what that changes.
    pub differs: Vec<String>,
    pub invocation: Invocation,
    /// Devices the command writes to: the guard checks each right before it runs.
    pub writes: Vec<Write>,
    pub check: Check,
    /// About how long it takes, for the ETA.
    pub estimate_s: u64,
    /// A failure is recorded but does not fail the collection (a system fact whose
    /// program is not installed).
    pub optional: bool,
    /// A later step needs this one: when it fails, the collection stops.
    pub required: bool,
    /// A rerun may skip it when an earlier run finished it and its output still reads
    /// back; steps whose effect does not outlive the run (starting a server) always run.
    pub resumable: bool,
    /// When the collection stops before it (a failed required step, a refusal, Ctrl-C),
    /// the first such step after the stop still runs: it brings a server down.
    pub cleanup: bool,
    /// Runs only when this holds, asked right before; otherwise recorded as not needed.
    pub when: Option<When>,
}

impl Step {
    pub fn new(
        name: impl Into<String>,
        origin: Origin,
        invocation: Invocation,
        check: Check,
    ) -> Step {
        Step {
            name: name.into(),
            origin,
            differs: Vec::new(),
            invocation,
            writes: Vec::new(),
            check,
            estimate_s: 1,
            optional: false,
            required: false,
            resumable: true,
            cleanup: false,
            when: None,
        }
    }

    /// Adds ways the command differs from the procedure's line.
    pub fn differs(mut self, d: impl IntoIterator<Item = String>) -> Step {
        self.differs.extend(d);
        self
    }

    pub fn writes(mut self, w: Write) -> Step {
        self.writes.push(w);
        self
    }

    pub fn estimate(mut self, s: u64) -> Step {
        self.estimate_s = s.max(1);
        self
    }

    pub fn optional(mut self) -> Step {
        self.optional = true;
        self
    }

    pub fn required(mut self) -> Step {
        self.required = true;
        self
    }

    pub fn cleanup(mut self) -> Step {
        self.cleanup = true;
        self
    }

    /// Runs only when `test` holds right before it (see [`When`]).
    pub fn only_if(
        mut self,
        says: impl Into<String>,
        test: impl Fn() -> Result<(), String> + Send + Sync + 'static,
    ) -> Step {
        self.when = Some(When {
            says: says.into(),
            test: Arc::new(test),
        });
        self
    }
}

/// What happened to one step, as the manifest records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub name: String,
    pub command: String,
    pub start: String,
    pub end: String,
    /// `0`, the exit status, or `not run`.
    pub exit: String,
    /// `ok`, `failed: <first error line>`, `missing: ...`, `refused: ...`,
    /// `skipped: ...` or `interrupted (SIGNAL)`.
    pub result: String,
    /// The commands the step runs, expanded exactly as `--dry-run` prints them (the
    /// collector script's own commands, with every fixed flag): what `collect replay`
    /// prints and support reads.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub expanded: String,
    /// Whose command it is: the procedure's line, or why reprobench takes it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub origin: String,
    /// How it differs from the procedure's line, each with what that changes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differs: Vec<String>,
}

/// A collection's manifest: what ran, with what, and how it went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub tool: String,
    pub host: String,
    pub procedure: String,
    pub collection: String,
    pub parameters: serde_json::Value,
    pub started: String,
    pub ended: String,
    pub interrupted: bool,
    /// The signal that stopped the collection (`SIGINT`, `SIGTERM`, `SIGHUP`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Outputs of cut or failed steps, moved under `.reprobench/` (relative to OUT).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<String>,
    /// What the procedure asks for that this collection did not collect, and how to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_collected: Vec<String>,
    /// Each collector script by name with its sha256 (they are built into the tool).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub collectors: BTreeMap<String, String>,
    /// The environment variables that change what the scripts do, as they were set.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub environment: BTreeMap<String, String>,
    pub steps: Vec<Record>,
    /// After each round of repeated runs (`--until-settled`): where the criteria stood and
    /// what ran next, or why the rounds stopped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<String>,
}

/// The result of running a list of steps.
#[derive(Debug, Default)]
pub struct Ran {
    pub records: Vec<Record>,
    pub ok: usize,
    pub failed: usize,
    pub skipped: usize,
    /// The guard refused a device: the collection stopped there.
    pub refused: Option<String>,
    pub interrupted: bool,
    /// Where the last step's output was set aside, for the manifest.
    pub set_aside: Option<String>,
    /// The stopping signal, when one stopped the collection.
    pub signal: Option<i32>,
    /// A required step failed and the steps after it did not run.
    pub stopped: bool,
}

impl Ran {
    /// 0 every step ran, 1 a step failed, 2 the guard refused, 128+N stopped by signal N.
    pub fn exit_code(&self) -> i32 {
        if self.interrupted {
            128 + self.signal.unwrap_or(libc::SIGINT)
        } else if self.refused.is_some() {
            2
        } else if self.failed > 0 {
            1
        } else {
            0
        }
    }
}

/// Now, as `2026-11-30T18:24:10Z`.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// A progress bar with an ETA on a terminal; plain lines otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

fn progress(total_s: u64, steps: usize) -> Progress {
    if crate::output::quiet() {
        return Progress { bar: None };
    }
    if !std::io::stderr().is_terminal() {
        crate::errln!("{steps} steps, about {} to go", duration(total_s));
        return Progress { bar: None };
    }
    let bar = indicatif::ProgressBar::new(total_s);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} eta {eta} · {msg}",
    ) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    // What is said while it runs (notes, warnings) goes above the bar, not onto its line.
    crate::output::start_progress(&bar);
    Progress { bar: Some(bar) }
}

impl Progress {
    fn step(&self, i: usize, n: usize, name: &str) {
        match &self.bar {
            Some(b) => b.set_message(format!("{}/{n} {name}", i + 1)),
            None => crate::errln!("[{}/{n}] {name}", i + 1),
        }
    }

    fn done(&self, estimate_s: u64) {
        if let Some(b) = &self.bar {
            b.inc(estimate_s);
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            crate::output::end_progress();
            b.finish_and_clear();
        }
    }
}

/// A session that returns early (an error saving the manifest) takes its bar down too.
impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `1 h 05 min`, `3 min`, `40 s`.
pub fn duration(s: u64) -> String {
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min", s.div_ceil(60)),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// The dry run of a list of steps: each one's commands, expanded, and what the guard
/// would check before it.
/// The comment lines above a step's commands: whose command it is and how it differs
/// from the procedure's line (a dry run and a replay print the same).
pub fn print_origin(origin: &str, differs: &[String]) {
    if !origin.is_empty() {
        crate::outln!("#   {origin}");
    }
    for d in differs {
        crate::outln!("#   differs from the procedure: {d}");
    }
}

pub fn print_dry_run(steps: &[Step], expanded: impl Fn(&Step) -> String) {
    let total: u64 = steps.iter().map(|s| s.estimate_s).sum();
    crate::outln!(
        "# dry run: nothing runs and nothing is written; {} steps, about {}:",
        steps.len(),
        duration(total)
    );
    for s in steps {
        crate::outln!("\n# {}", s.name);
        print_origin(&s.origin.describe(), &s.differs);
        if let Some(w) = &s.when {
            crate::outln!("#   only if {}", w.says);
        }
        for w in &s.writes {
            crate::outln!(
                "#   the guard checks `{}` first: not mounted, not swap, not held by md/dm/LVM; a signature{} needs --confirm-device",
                w.dev.display(),
                w.expect.map(|e| format!(" other than {e}")).unwrap_or_default()
            );
        }
        crate::out!("{}", expanded(s));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::process::Fake;

    #[test]
    fn dates_are_civil() {
        let now = now_utc();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20") && now.ends_with('Z'));
        assert_eq!(duration(45), "45 s");
        assert_eq!(duration(3900), "1 h 05 min");
    }

    /// A runner whose commands naming `bad` fail and naming `absent` are not installed.
    pub(crate) fn fake() -> Fake {
        Fake {
            answer: Some(Box::new(|inv: &Invocation| {
                if inv.display().contains("bad") {
                    Err(ProcessError::Failed {
                        command: inv.display(),
                        status: "exit status: 1".into(),
                        stderr: "warming up\nerror: it broke\n".into(),
                    })
                } else if inv.display().contains("absent") {
                    Err(ProcessError::Failed {
                        command: inv.display(),
                        status: "exit status: 127".into(),
                        stderr: "absent: command not found\n".into(),
                    })
                } else {
                    Ok(Default::default())
                }
            })),
            ..Fake::default()
        }
    }

    /// A session of no parameters writing its manifest to `path`.
    fn session(path: &std::path::Path) -> Session {
        Session::new(
            path.to_path_buf(),
            "p",
            "c",
            serde_json::Value::Null,
            Vec::new(),
        )
    }

    /// A step that runs `run N`, checked by its exit status.
    pub(crate) fn step(n: &str) -> Step {
        Step::new(
            n,
            Origin::tool("a test step"),
            Invocation::new("run").arg(n),
            Check::Exit,
        )
    }

    #[test]
    fn failures_count_missing_optional_programs_do_not_and_a_rerun_resumes() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("m.json");
        let params = serde_json::json!({"a": 1});
        let mut s = Session::new(path.clone(), "p", "c", params.clone(), Vec::new());
        let steps = [
            step("good"),
            step("bad"),
            step("absent").optional(),
            step("good2"),
        ];
        let ran = s.execute(&steps, &fake()).expect("runs");
        assert_eq!(
            (ran.ok, ran.failed, ran.skipped, ran.exit_code()),
            (2, 1, 1, 1)
        );
        assert_eq!(ran.records[1].result, "failed: error: it broke");
        assert_eq!(
            ran.records[2].result,
            "missing: the program is not installed here"
        );
        // Again with the same parameters: the finished steps are skipped.
        let mut again = Session::new(path.clone(), "p", "c", params, Vec::new());
        let f = fake();
        let ran = again.execute(&steps, &f).expect("runs");
        assert_eq!(ran.skipped, 3, "{:?}", ran.records);
        let calls = f.calls.lock().map(|c| c.clone()).unwrap_or_default();
        // The failed step runs again, and so does the missing program: it may be there now.
        assert_eq!(
            calls,
            ["run bad", "run absent"],
            "the finished steps are not run again"
        );
        // With other parameters nothing is skipped.
        let mut other = Session::new(path, "p", "c", serde_json::json!({"a": 2}), Vec::new());
        let f = fake();
        other.execute(&steps, &f).expect("runs");
        assert_eq!(f.calls.lock().map(|c| c.len()).unwrap_or(0), 4);
    }

    #[test]
    fn a_conditional_step_runs_only_when_its_test_holds_right_before_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut s = session(&tmp.path().join("m.json"));
        // The test is asked when the step comes up, not when the list is made: here it
        // reads a marker file the first step's stand-in leaves.
        let marker = tmp.path().join("slow");
        let seen = marker.clone();
        let asks = move || {
            if seen.exists() {
                Ok(())
            } else {
                Err("the first was not slow".to_string())
            }
        };
        let steps = [
            step("first"),
            step("repeat").only_if("the first was slow", asks),
        ];
        let f = fake();
        let ran = s.execute(&steps, &f).expect("runs");
        assert_eq!(ran.records[1].result, "not needed: the first was not slow");
        assert_eq!(ran.records[1].exit, "not run");
        assert_eq!((ran.ok, ran.skipped, ran.exit_code()), (1, 1, 0));
        assert_eq!(
            f.calls.lock().map(|c| c.clone()).unwrap_or_default(),
            ["run first"]
        );
        std::fs::write(&marker, "").expect("w");
        let mut s = session(&tmp.path().join("m2.json"));
        let f = fake();
        let ran = s.execute(&steps, &f).expect("runs");
        assert_eq!(ran.records[1].result, "ok");
        assert_eq!(
            f.calls.lock().map(|c| c.clone()).unwrap_or_default(),
            ["run first", "run repeat"]
        );
    }

    #[test]
    fn a_failed_required_step_stops_the_rest() {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut s = session(&tmp.path().join("m.json"));
        let ran = s
            .execute(&[step("bad").required(), step("good")], &fake())
            .expect("runs");
        assert_eq!(ran.records.len(), 1);
        assert_eq!(ran.exit_code(), 1);
    }
}
