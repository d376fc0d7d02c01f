//! How every collector runs: a list of steps, each one command. Before a step that writes
//! to a device the guard looks at that device again; after each step its output is read
//! back, and only a step whose result holds what it should counts. Every step is recorded
//! with its command, start, end, exit status and result.

use std::path::PathBuf;

use serde::Serialize;

use crate::process::{Invocation, Runner};

use super::guard;
use super::outcome::{self, Outcome};

/// How a step's result is read back.
#[derive(Debug, Clone)]
pub enum Check {
    /// fio's JSON: it must parse, hold I/O and no job error.
    Fio(PathBuf),
    /// The exit status alone.
    Exit,
}

/// One command of a procedure.
#[derive(Debug, Clone)]
pub struct Step {
    /// Unique within a collection, e.g. `raid10/randwrite-8k-j8-d8`.
    pub name: String,
    pub invocation: Invocation,
    /// Devices the command writes to: the guard checks each right before it runs.
    pub writes: Vec<PathBuf>,
    pub check: Check,
}

/// What happened to one step, as the manifest records it.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub name: String,
    pub command: String,
    pub start: String,
    pub end: String,
    /// `0`, the exit status, or `not run`.
    pub exit: String,
    /// `ok`, `failed: <first error line>` or `refused: <why>`.
    pub result: String,
}

/// The result of running a list of steps.
#[derive(Debug, Default)]
pub struct Ran {
    pub records: Vec<Record>,
    pub ok: usize,
    pub failed: usize,
    /// The guard refused a device: the collection stopped there.
    pub refused: Option<String>,
}

impl Ran {
    /// 0 every step ran, 1 a step failed, 2 the guard refused.
    pub fn exit_code(&self) -> i32 {
        if self.refused.is_some() {
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

/// Runs `steps` in order: guard, run, read back, record. Stops at a refusal.
pub fn execute(steps: &[Step], confirmed: &[PathBuf], runner: &dyn Runner) -> Ran {
    let mut ran = Ran::default();
    for step in steps {
        let start = now_utc();
        let command = step.invocation.display();
        for dev in &step.writes {
            match guard::before(&step.name, dev, confirmed, runner) {
                Ok(warnings) => {
                    for w in warnings {
                        eprintln!("warning (confirmed): {w}");
                    }
                }
                Err(why) => {
                    ran.records.push(Record {
                        name: step.name.clone(),
                        command,
                        start: start.clone(),
                        end: now_utc(),
                        exit: "not run".into(),
                        result: format!("refused: {why}"),
                    });
                    ran.refused = Some(why);
                    return ran;
                }
            }
        }
        eprintln!("running {}", step.name);
        let exit = runner.run(&step.invocation);
        let result = match &step.check {
            Check::Fio(json) => outcome::fio_step(&exit, json),
            Check::Exit => outcome::command_step(&exit),
        };
        let exit_text = match &exit {
            Ok(_) => "0".to_string(),
            Err(crate::process::ProcessError::Failed { status, .. }) => status.clone(),
            Err(e) => e.to_string(),
        };
        if let Outcome::Failed(why) = &result {
            eprintln!("failed: {}: {why}", step.name);
            ran.failed += 1;
        } else {
            ran.ok += 1;
        }
        ran.records.push(Record {
            name: step.name.clone(),
            command,
            start,
            end: now_utc(),
            exit: exit_text,
            result: result.label(),
        });
    }
    ran
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::{Fake, ProcessError};

    #[test]
    fn dates_are_civil() {
        let now = now_utc();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20") && now.ends_with('Z'));
    }

    #[test]
    fn a_failing_step_is_counted_failed_and_the_others_ok() {
        let fake = Fake {
            answer: Some(Box::new(|inv: &Invocation| {
                if inv.display().contains("bad") {
                    Err(ProcessError::Failed {
                        command: inv.display(),
                        status: "exit status: 1".into(),
                        stderr: "warming up\nerror: it broke\n".into(),
                    })
                } else {
                    Ok(Default::default())
                }
            })),
            ..Fake::default()
        };
        let step = |n: &str| Step {
            name: n.into(),
            invocation: Invocation::new("run").arg(n),
            writes: Vec::new(),
            check: Check::Exit,
        };
        let ran = execute(&[step("good"), step("bad"), step("good2")], &[], &fake);
        assert_eq!((ran.ok, ran.failed, ran.exit_code()), (2, 1, 1));
        assert_eq!(ran.records[1].result, "failed: error: it broke");
        assert_eq!(ran.records[1].exit, "exit status: 1");
    }
}
