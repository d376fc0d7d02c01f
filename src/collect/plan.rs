//! What every collector does around its steps: the preflight (programs, free space, the
//! server, the devices) before anything runs, the dry run, the run itself with its
//! manifest, and the index manifest at the top of the results folder.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::process::{which, Runner};

use super::scripts::{self, Scripts};
use super::steps::{self, Session, Step};

/// `~/bench` -> `$HOME/bench`.
pub fn expand_home(p: &Path) -> PathBuf {
    match p.strip_prefix("~") {
        Ok(rest) => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(rest),
        Err(_) => p.to_path_buf(),
    }
}

/// Programs that are not on PATH, by name.
pub fn missing_programs(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .filter(|n| {
            let p = Path::new(n);
            if p.components().count() > 1 {
                !p.is_file()
            } else {
                which(n).is_none()
            }
        })
        .map(|n| format!("`{n}` is not installed (not on PATH)"))
        .collect()
}

/// Free bytes where `dir` (or its nearest existing parent) lives, from `df`.
pub fn free_bytes(dir: &Path, runner: &dyn Runner) -> Option<u64> {
    let mut probe = dir.to_path_buf();
    while !probe.exists() {
        if !probe.pop() {
            return None;
        }
    }
    let out = runner
        .run(
            &crate::process::Invocation::new("df")
                .arg("-Pk")
                .arg(probe.as_os_str()),
        )
        .ok()?;
    let line = out.stdout.lines().nth(1)?;
    let kb: u64 = line.split_whitespace().nth(3)?.parse().ok()?;
    Some(kb * 1024)
}

/// A free-space problem, if there is less than `need` bytes for the output.
pub fn space_problem(dir: &Path, need: u64, runner: &dyn Runner) -> Option<String> {
    let free = free_bytes(dir, runner)?;
    (free < need).then(|| {
        format!(
            "only {} MB free for `{}`; this collection writes about {} MB",
            free >> 20,
            dir.display(),
            need >> 20
        )
    })
}

/// Whether the server answers `/health`.
pub fn server_problem(url: &str, runner: &dyn Runner) -> Option<String> {
    let inv = crate::process::Invocation::new("curl")
        .arg("-sf")
        .arg("--max-time")
        .arg("5")
        .arg(format!("{url}/health"));
    runner.run(&inv).err().map(|_| {
        format!("no server answers at {url}/health: start the variant (docker compose up -d) first")
    })
}

/// Runs (or prints) a collection. Preflight problems stop it before anything runs;
/// the dry run only lists them.
pub struct Collection<'a> {
    pub session: Session,
    pub steps: Vec<Step>,
    pub scripts: &'a Scripts,
    pub preflight: Vec<String>,
    /// What the preflight checks, for the dry run.
    pub checks: Vec<String>,
    pub dry_run: bool,
}

/// More rounds of a collection's measured runs (`--until-settled`): asked after each
/// round with the round just done, it gives the line to show and record, and the next
/// round's steps or None to stop. `tail` runs after the last round (a teardown).
pub struct More<'a> {
    pub next: &'a mut dyn FnMut(u32) -> (String, Option<Vec<Step>>),
    pub tail: Vec<Step>,
}

impl Collection<'_> {
    pub fn run(self, runner: &dyn Runner) -> anyhow::Result<i32> {
        self.run_with(runner, None)
    }

    /// [`Collection::run`], then more rounds while `more` asks for them and nothing has
    /// failed, been refused or been stopped; then its tail.
    pub fn run_with(mut self, runner: &dyn Runner, more: Option<More>) -> anyhow::Result<i32> {
        self.session.manifest.collectors = self.scripts.digests().clone();
        if self.dry_run {
            self.print_dry_run(runner);
            return Ok(0);
        }
        if !self.preflight.is_empty() {
            for p in &self.preflight {
                crate::errln!("error: {p}");
            }
            crate::errln!("nothing ran (preflight); --dry-run shows what would run");
            return Ok(2);
        }
        // Every step's commands as the dry run prints them, for the manifest.
        for s in &self.steps {
            let text = scripts::expand(&s.invocation, self.scripts, runner);
            self.session.expanded.insert(s.name.clone(), text);
        }
        let mut ran = self.session.execute(&self.steps, runner)?;
        if let Some(more) = more {
            ran = self.rounds(ran, more, runner)?;
        }
        crate::outln!(
            "{}: {} steps ok, {} failed, {} skipped (done before, not needed, or unavailable here); manifest: {}",
            self.session.manifest.collection,
            ran.ok,
            ran.failed,
            ran.skipped,
            self.session.path.display()
        );
        if ran.interrupted {
            crate::errln!(
                "interrupted: what finished is kept; run the same command again to resume"
            );
        }
        Ok(ran.exit_code())
    }
}

impl Collection<'_> {
    /// What a dry run prints: the preflight's checks and findings, every step's commands
    /// expanded, where the manifest would go.
    fn print_dry_run(&self, runner: &dyn Runner) {
        if !self.checks.is_empty() {
            crate::outln!("# before anything runs, the preflight checks:");
            for c in &self.checks {
                crate::outln!("#   {c}");
            }
        }
        for p in &self.preflight {
            crate::outln!("# preflight here: {p}");
        }
        let scripts = self.scripts;
        steps::print_dry_run(&self.steps, |s| {
            scripts::expand(&s.invocation, scripts, runner)
        });
        crate::outln!(
            "\n# manifest: {} (tool version, host, parameters, every step with start, end, exit status and result)",
            self.session.path.display()
        );
    }

    /// More rounds after the first while `more` asks for them and nothing has failed,
    /// been refused or been stopped; then its tail.
    fn rounds(
        &mut self,
        mut ran: steps::Ran,
        more: More,
        runner: &dyn Runner,
    ) -> anyhow::Result<steps::Ran> {
        let More { next, tail } = more;
        let mut round = 1;
        loop {
            if ran.exit_code() != 0 {
                // Nothing is judged on a round with a failure: the rounds end, said.
                let why = if ran.interrupted {
                    "interrupted"
                } else if ran.refused.is_some() {
                    "the guard refused a device"
                } else {
                    "a step failed (see the manifest's steps); nothing is judged on a round with a failure"
                };
                let line = format!("round {round}: stopped: {why}");
                crate::errln!("{line}");
                self.session.manifest.rounds.push(line);
                self.session.save()?;
                break;
            }
            let (line, steps) = next(round);
            crate::outln!("round {round}: {line}");
            self.session
                .manifest
                .rounds
                .push(format!("round {round}: {line}"));
            let Some(steps) = steps else {
                self.session.save()?;
                break;
            };
            round += 1;
            ran = self.execute_more(ran, &steps, runner)?;
        }
        if ran.refused.is_none() && !ran.interrupted && !ran.stopped && !tail.is_empty() {
            ran = self.execute_more(ran, &tail, runner)?;
        }
        Ok(ran)
    }

    /// Runs `steps` in the same session, the counts added to `before`'s.
    fn execute_more(
        &mut self,
        before: steps::Ran,
        steps: &[Step],
        runner: &dyn Runner,
    ) -> anyhow::Result<steps::Ran> {
        for s in steps {
            let text = scripts::expand(&s.invocation, self.scripts, runner);
            self.session.expanded.insert(s.name.clone(), text);
        }
        let mut ran = self.session.execute(steps, runner)?;
        ran.ok += before.ok;
        ran.failed += before.failed;
        ran.skipped += before.skipped;
        Ok(ran)
    }
}

/// Adds `pairs` to the results folder's index `manifest.json` (what the analysis shows as
/// environment facts: the tool, the host, the model) and lists the collection in it.
pub fn index_manifest(
    root: &Path,
    collection: &str,
    manifest: &Path,
    pairs: &[(&str, String)],
) -> anyhow::Result<()> {
    let path = root.join("manifest.json");
    let mut v: serde_json::Value = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(serde_json::Value::is_object)
        .unwrap_or_else(|| serde_json::json!({}));
    let Some(map) = v.as_object_mut() else {
        return Ok(());
    };
    map.insert(
        "tool".into(),
        format!("reprobench {}", env!("CARGO_PKG_VERSION")).into(),
    );
    map.insert("host".into(), steps::hostname().into());
    for (k, val) in pairs {
        map.insert((*k).into(), val.clone().into());
    }
    let rel = manifest
        .strip_prefix(root)
        .unwrap_or(manifest)
        .display()
        .to_string();
    let list = map
        .entry("collections")
        .or_insert_with(|| serde_json::json!({}));
    if let Some(l) = list.as_object_mut() {
        l.insert(collection.into(), rel.into());
    }
    std::fs::create_dir_all(root)
        .with_context(|| format!("failed to create `{}`", root.display()))?;
    std::fs::write(&path, serde_json::to_vec_pretty(&v)?)
        .with_context(|| format!("failed to write `{}`", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::steps::tests::{fake, step};

    /// Rounds run in one session, each asked for after the one before, until the closure
    /// says stop or a round fails; the tail runs after the last; the manifest keeps each
    /// round's line.
    #[test]
    fn rounds_run_until_asked_to_stop_or_one_fails_then_the_tail() {
        let tmp = tempfile::tempdir().expect("tmp");
        let scripts = Scripts::write().expect("scripts");
        let run = |path: &Path, last: &'static str, runner: &crate::process::Fake| {
            let session = Session::new(
                path.to_path_buf(),
                "p",
                "c",
                serde_json::json!({}),
                Vec::new(),
            );
            let mut asked = Vec::new();
            let mut next = |round: u32| -> (String, Option<Vec<Step>>) {
                asked.push(round);
                match round {
                    1 => ("again".into(), Some(vec![step("r2")])),
                    2 => ("again".into(), Some(vec![step(last)])),
                    _ => ("stopped: settled".into(), None),
                }
            };
            let code = Collection {
                session,
                steps: vec![step("r1")],
                scripts: &scripts,
                preflight: Vec::new(),
                checks: Vec::new(),
                dry_run: false,
            }
            .run_with(
                runner,
                Some(More {
                    next: &mut next,
                    tail: vec![step("tail")],
                }),
            )
            .expect("runs");
            (code, asked)
        };
        let f = fake();
        let path = tmp.path().join("ok.json");
        let (code, asked) = run(&path, "r3", &f);
        assert_eq!((code, asked), (0, vec![1, 2, 3]));
        let calls = f.calls.lock().map(|c| c.clone()).unwrap_or_default();
        assert_eq!(calls, ["run r1", "run r2", "run r3", "run tail"]);
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("manifest")).expect("json");
        assert_eq!(
            m["rounds"],
            serde_json::json!([
                "round 1: again",
                "round 2: again",
                "round 3: stopped: settled"
            ])
        );
        assert_eq!(m["steps"].as_array().map(Vec::len), Some(4));
        // A failed round ends the rounds (nothing more is asked for); the tail still runs.
        let f = fake();
        let bad = tmp.path().join("bad.json");
        let (code, asked) = run(&bad, "bad", &f);
        assert_eq!((code, asked), (1, vec![1, 2]));
        let calls = f.calls.lock().map(|c| c.clone()).unwrap_or_default();
        assert_eq!(calls, ["run r1", "run r2", "run bad", "run tail"]);
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&bad).expect("manifest")).expect("json");
        let last = m["rounds"][2].as_str().unwrap_or("");
        assert!(last.starts_with("round 3: stopped: a step failed"), "{m}");
        // A failed required step stops the collection: no round, no tail.
        let f = fake();
        let session = Session::new(
            tmp.path().join("required.json"),
            "p",
            "c",
            serde_json::json!({}),
            Vec::new(),
        );
        let mut asked = 0;
        let mut next = |_: u32| -> (String, Option<Vec<Step>>) {
            asked += 1;
            ("again".into(), Some(vec![step("r2")]))
        };
        let code = Collection {
            session,
            steps: vec![step("bad-prepare").required(), step("r1")],
            scripts: &scripts,
            preflight: Vec::new(),
            checks: Vec::new(),
            dry_run: false,
        }
        .run_with(
            &f,
            Some(More {
                next: &mut next,
                tail: vec![step("tail")],
            }),
        )
        .expect("runs");
        assert_eq!((code, asked), (1, 0));
        let calls = f.calls.lock().map(|c| c.clone()).unwrap_or_default();
        assert_eq!(calls, ["run bad-prepare"]);
    }
}
