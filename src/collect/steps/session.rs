//! A collection's session: its manifest, resuming, and running or printing every step.

use super::*;

/// Where a collection keeps its manifest, its parameters and how to show progress.
pub struct Session {
    pub manifest: Manifest,
    /// Each step's commands as the dry run prints them, by step name.
    pub expanded: BTreeMap<String, String>,
    pub path: PathBuf,
    /// Skip steps an earlier run with the same parameters finished.
    pub resume: bool,
    pub confirmed: Vec<PathBuf>,
    /// The steps an earlier run finished, read once before this session first saves (a
    /// session that runs several times, round after round, must not take its own first
    /// round's manifest for the earlier run's).
    earlier: Option<BTreeMap<String, Record>>,
}

impl Session {
    pub fn new(
        path: PathBuf,
        procedure: &str,
        collection: &str,
        parameters: serde_json::Value,
        confirmed: Vec<PathBuf>,
    ) -> Session {
        Session {
            manifest: Manifest {
                tool: format!("reprobench {}", env!("CARGO_PKG_VERSION")),
                host: hostname(),
                procedure: procedure.into(),
                collection: collection.into(),
                parameters,
                started: now_utc(),
                ended: String::new(),
                interrupted: false,
                signal: None,
                set_aside: Vec::new(),
                not_collected: Vec::new(),
                // The scripts the collection writes (set when it runs).
                collectors: BTreeMap::new(),
                environment: crate::collect::scripts::environment(),
                steps: Vec::new(),
                rounds: Vec::new(),
            },
            path,
            expanded: BTreeMap::new(),
            resume: true,
            confirmed,
            earlier: None,
        }
    }

    /// The steps an earlier run of this collection finished, when it ran with the same
    /// parameters.
    fn earlier(&self) -> BTreeMap<String, Record> {
        let Ok(bytes) = std::fs::read(&self.path) else {
            return BTreeMap::new();
        };
        let Ok(old) = serde_json::from_slice::<Manifest>(&bytes) else {
            crate::errln!(
                "note: `{}` is not a manifest this version reads: every step runs again",
                self.path.display()
            );
            return BTreeMap::new();
        };
        if old.parameters != self.manifest.parameters {
            crate::errln!(
                "note: `{}` is from a collection with other parameters: every step runs again",
                self.path.display()
            );
            return BTreeMap::new();
        }
        old.steps
            .into_iter()
            .filter(|r| r.result == "ok" || r.result.starts_with("skipped"))
            .map(|r| (r.name.clone(), r))
            .collect()
    }

    pub fn save(&self) -> anyhow::Result<()> {
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("failed to create `{}`", parent.display()))?;
        }
        std::fs::write(&self.path, serde_json::to_vec_pretty(&self.manifest)?)
            .with_context(|| format!("failed to write `{}`", self.path.display()))
    }

    /// Runs `steps` in order: resume, guard, run, read back, record, save. Stops at a
    /// refusal, a failed required step or Ctrl-C.
    pub fn execute(&mut self, steps: &[Step], runner: &dyn Runner) -> anyhow::Result<Ran> {
        crate::signals::install();
        if self.earlier.is_none() {
            self.earlier = Some(if self.resume {
                self.earlier()
            } else {
                BTreeMap::new()
            });
        }
        let earlier = self.earlier.clone().unwrap_or_default();
        let total: u64 = steps.iter().map(|s| s.estimate_s).sum();
        let bar = progress(total, steps.len());
        let mut ran = Ran::default();
        let mut stopped_at = None;
        for (i, step) in steps.iter().enumerate() {
            // A signal between steps: the finished ones are kept, nothing more starts.
            if let Some(sig) = crate::signals::pending() {
                ran.interrupted = true;
                ran.signal.get_or_insert(sig);
                stopped_at = Some(i);
                break;
            }
            bar.step(i, steps.len(), &step.name);
            let record = self.one(step, &earlier, runner, &mut ran);
            if let Some(p) = ran.set_aside.take() {
                self.manifest.set_aside.retain(|x| *x != p);
                self.manifest.set_aside.push(p);
            }
            self.manifest.steps.retain(|r| r.name != record.name);
            self.manifest.steps.push(record);
            self.save()?;
            bar.done(step.estimate_s);
            if ran.refused.is_some() || ran.interrupted {
                stopped_at = Some(i + 1);
                break;
            }
            let failed_required = step.required
                && self
                    .manifest
                    .steps
                    .last()
                    .is_some_and(|r| r.result.starts_with("failed"));
            if failed_required {
                crate::errln!(
                    "stopped: `{}` failed and the steps after it need it",
                    step.name
                );
                ran.stopped = true;
                stopped_at = Some(i + 1);
                break;
            }
        }
        // Stopped early: bring down what the stopped part started.
        if let Some(cleanup) = stopped_at.and_then(|i| steps[i..].iter().find(|s| s.cleanup)) {
            self.clean_up(cleanup, runner);
        }
        bar.finish();
        self.manifest.ended = now_utc();
        self.manifest.interrupted = ran.interrupted;
        self.manifest.signal = ran.signal.map(crate::signals::name);
        self.save()?;
        ran.records = self.manifest.steps.clone();
        Ok(ran)
    }

    /// Runs the cleanup step after a stop, and records it as such.
    fn clean_up(&mut self, cleanup: &Step, runner: &dyn Runner) {
        crate::errln!("cleaning up: {}", cleanup.name);
        let record = Record {
            name: cleanup.name.clone(),
            command: cleanup.invocation.display(),
            start: now_utc(),
            end: String::new(),
            exit: String::new(),
            result: String::new(),
            expanded: String::new(),
            origin: cleanup.origin.describe(),
            differs: cleanup.differs.clone(),
        };
        let exit = runner.run(&cleanup.invocation);
        let result = outcome::command_step(&exit);
        self.manifest.steps.retain(|r| r.name != record.name);
        self.manifest.steps.push(Record {
            end: now_utc(),
            exit: if exit.is_ok() {
                "0".into()
            } else {
                "failed".into()
            },
            result: format!("{} (cleanup after the stop)", result.label()),
            ..record
        });
    }

    fn one(
        &self,
        step: &Step,
        earlier: &BTreeMap<String, Record>,
        runner: &dyn Runner,
        ran: &mut Ran,
    ) -> Record {
        let start = now_utc();
        let command = step.invocation.display();
        let expanded = self.expanded.get(&step.name).cloned().unwrap_or_default();
        let record = |exit: &str, result: String| Record {
            name: step.name.clone(),
            command: command.clone(),
            start: start.clone(),
            end: now_utc(),
            exit: exit.into(),
            result,
            expanded: expanded.clone(),
            origin: step.origin.describe(),
            differs: step.differs.clone(),
        };
        if step.resumable && earlier.contains_key(&step.name) {
            // Done before; its output must still read back (a partial one is redone).
            let still = match &step.check {
                Check::Fio(json) => outcome::fio_step(&Ok(Output::default()), json).is_ok(),
                Check::Custom(f) => f(&Ok(Output::default())).is_ok(),
                Check::Exit => true,
            };
            if still {
                ran.skipped += 1;
                return record("not run", "skipped: done in an earlier run".into());
            }
        }
        if let Some(w) = &step.when {
            if let Err(why) = (w.test)() {
                ran.skipped += 1;
                crate::errln!("note: {}: not needed: {why}", step.name);
                return record("not run", format!("not needed: {why}"));
            }
        }
        // Held until the command has ended: while a device is held no one else can claim
        // it (mount it, build md on it), in any mount namespace.
        let holds = match self.hold_devices(step, runner) {
            Ok(holds) => holds,
            Err(why) => {
                ran.refused = Some(why.clone());
                crate::errln!("{why}");
                return record("not run", format!("refused: {why}"));
            }
        };
        let exit = runner.run(&step.invocation);
        drop(holds);
        // Stopped by a signal while it ran (a step that finished first is kept as it is).
        if let Err(ProcessError::Interrupted { signal, .. }) = &exit {
            let (exit, said) = self.interrupted(step, *signal, ran);
            return record(&exit, said);
        }
        let exit_text = match &exit {
            Ok(_) => "0".to_string(),
            Err(ProcessError::Failed { status, .. }) => status.clone(),
            Err(e) => e.to_string(),
        };
        let missing = matches!(&exit, Err(ProcessError::Failed { status, .. }) if status.contains("exit status: 127"))
            || matches!(&exit, Err(ProcessError::Start { .. }));
        let result = match &step.check {
            Check::Fio(json) => outcome::fio_step(&exit, json),
            Check::Exit => outcome::command_step(&exit),
            Check::Custom(f) => f(&exit),
        };
        let said = self.counted(step, result, missing, ran);
        record(&exit_text, said)
    }

    /// A step stopped by `signal` while it ran, counted in `ran`: its exit and result as
    /// the record says them. fio writes a complete-looking result when interrupted: it is
    /// set aside, out of the way.
    fn interrupted(&self, step: &Step, signal: i32, ran: &mut Ran) -> (String, String) {
        ran.interrupted = true;
        ran.signal.get_or_insert(signal);
        let aside = self.set_aside(&step.check, "interrupted");
        let kept = aside
            .as_ref()
            .map(|p| format!("; its partial output is kept in `{p}`"))
            .unwrap_or_default();
        ran.set_aside = aside;
        let name = crate::signals::name(signal);
        (
            format!("stopped by {name}"),
            format!("interrupted ({name}){kept}"),
        )
    }

    /// Every device the step writes, checked as it is now and held: the holds, or why
    /// the step is refused. Confirmed warnings are said.
    fn hold_devices(&self, step: &Step, runner: &dyn Runner) -> Result<Vec<guard::Hold>, String> {
        let mut holds = Vec::new();
        for w in &step.writes {
            let (warnings, hold) =
                guard::before_expecting(&step.name, &w.dev, w.expect, &self.confirmed, runner)
                    .and_then(|warnings| guard::hold(&w.dev).map(|h| (warnings, h)))?;
            for w in warnings {
                crate::errln!("warning (confirmed): {w}");
            }
            if !w.claims_itself {
                holds.push(hold);
            }
        }
        Ok(holds)
    }

    /// A finished step's outcome counted in `ran`, and its result as the record says it
    /// (`missing`: the program was not there to run).
    fn counted(&self, step: &Step, result: Outcome, missing: bool, ran: &mut Ran) -> String {
        match result {
            Outcome::Ok => {
                ran.ok += 1;
                "ok".into()
            }
            Outcome::Failed(_) if step.optional && missing => {
                ran.skipped += 1;
                "missing: the program is not installed here".into()
            }
            Outcome::Failed(why) if step.optional => {
                ran.skipped += 1;
                crate::errln!("note: {}: {why}", step.name);
                format!("unavailable: {why}")
            }
            Outcome::Failed(why) => {
                ran.failed += 1;
                crate::errln!("failed: {}: {why}", step.name);
                let aside = self.set_aside(&step.check, "failed");
                let kept = aside
                    .as_ref()
                    .map(|p| format!(" (its output is kept in `{p}`)"))
                    .unwrap_or_default();
                ran.set_aside = aside;
                format!("failed: {why}{kept}")
            }
        }
    }
}

impl Session {
    /// The results folder: the manifest sits in its `manifests/`.
    fn out(&self) -> Option<&Path> {
        let dir = self.path.parent()?;
        if dir.file_name().is_some_and(|n| n == "manifests") {
            dir.parent()
        } else {
            Some(dir)
        }
    }

    /// Moves a fio step's result (and its iostat log) out of the way, to
    /// `OUT/.reprobench/<why>/<its path under OUT>`, where no suite reads it: analysis
    /// never reads a failed or interrupted run as a measurement, and a rerun writes the
    /// step's files afresh. Returns the folder, relative to OUT.
    fn set_aside(&self, check: &Check, why: &str) -> Option<String> {
        let Check::Fio(json) = check else {
            return None;
        };
        let out = self.out()?;
        let rel = json.strip_prefix(out).ok()?;
        let dest_root = out.join(crate::ingest::layout::SET_ASIDE_DIR).join(why);
        let mut moved = false;
        let iostat = json.parent().zip(json.file_stem()).map(|(d, stem)| {
            let mut name = stem.to_os_string();
            name.push(".iostat");
            d.join("iostat").join(name)
        });
        for from in std::iter::once(json.clone()).chain(iostat) {
            let Ok(r) = from.strip_prefix(out) else {
                continue;
            };
            if !from.is_file() {
                continue;
            }
            let to = dest_root.join(r);
            if let Some(p) = to.parent() {
                if std::fs::create_dir_all(p).is_err() {
                    continue;
                }
            }
            moved |= std::fs::rename(&from, &to).is_ok();
        }
        moved.then(|| {
            format!(
                "{}/{why}/{}",
                crate::ingest::layout::SET_ASIDE_DIR,
                rel.parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )
            .trim_end_matches('/')
            .to_string()
        })
    }
}
