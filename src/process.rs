//! Every program reprobench runs (typst, cargo, collectors) goes through here: one place
//! that checks the exit status and keeps the command, status and stderr for the error.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What a finished program printed.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("failed to start `{command}`: {source}")]
    Start {
        command: String,
        source: std::io::Error,
    },
    #[error("`{command}` exited with {status}: {stderr}")]
    Failed {
        command: String,
        status: String,
        stderr: String,
    },
    /// A stopping signal arrived while it ran: its process group was stopped.
    #[error("`{command}` was stopped by {}", crate::signals::name(*signal))]
    Interrupted { command: String, signal: i32 },
}

/// A program and its arguments, with an optional working folder.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub dir: Option<PathBuf>,
    /// Variables set for the program, on top of ours.
    pub env: Vec<(OsString, OsString)>,
    /// Let the program's output through to the terminal instead of capturing it.
    pub passthrough: bool,
}

impl Invocation {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Invocation {
            program: program.into(),
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
            passthrough: false,
        }
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    pub fn dir(mut self, d: &Path) -> Self {
        self.dir = Some(d.to_path_buf());
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn passthrough(mut self) -> Self {
        self.passthrough = true;
        self
    }

    /// The command as a person would type it, for messages.
    pub fn display(&self) -> String {
        let mut s = self.program.display().to_string();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }
}

/// Runs programs. The system runner uses duct; tests use [`Fake`].
pub trait Runner {
    fn run(&self, inv: &Invocation) -> Result<Output, ProcessError>;
}

pub struct System;

impl Runner for System {
    fn run(&self, inv: &Invocation) -> Result<Output, ProcessError> {
        // As an OsStr, not a Path: duct would run a bare Path name from the current folder.
        let mut expr = duct::cmd(inv.program.as_os_str(), &inv.args).unchecked();
        if let Some(d) = &inv.dir {
            expr = expr.dir(d);
        }
        for (k, v) in &inv.env {
            expr = expr.env(k, v);
        }
        if !inv.passthrough {
            expr = expr.stdout_capture().stderr_capture();
        }
        let out = if crate::signals::installed() {
            run_stoppable(expr, inv)?
        } else {
            expr.run().map_err(|source| ProcessError::Start {
                command: inv.display(),
                source,
            })?
        };
        let result = Output {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        if out.status.success() {
            Ok(result)
        } else {
            let tail: Vec<&str> = result.stderr.lines().rev().take(20).collect();
            Err(ProcessError::Failed {
                command: inv.display(),
                status: out.status.to_string(),
                stderr: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            })
        }
    }
}

/// Runs `expr` in its own process group, watching for a stopping signal: when one
/// arrives the whole group (the program and everything it started: fio, iostat, the
/// benchmark client, `docker compose`) gets it, then SIGKILL after a second.
fn run_stoppable(
    expr: duct::Expression,
    inv: &Invocation,
) -> Result<std::process::Output, ProcessError> {
    use std::os::unix::process::CommandExt;
    let start = |source| ProcessError::Start {
        command: inv.display(),
        source,
    };
    // Its own group: a terminal's Ctrl-C reaches only us, and we stop the group.
    let handle = expr
        .before_spawn(|cmd| {
            cmd.process_group(0);
            Ok(())
        })
        .start()
        .map_err(start)?;
    let pgid = handle.pids().first().copied().unwrap_or(0);
    loop {
        if let Some(out) = handle.try_wait().map_err(start)? {
            return Ok(out.clone());
        }
        if let Some(signal) = crate::signals::pending() {
            crate::signals::stop_group(
                pgid,
                signal,
                || {
                    let _ = handle.try_wait();
                },
                std::time::Duration::from_secs(1),
            );
            let _ = handle.wait();
            return Err(ProcessError::Interrupted {
                command: inv.display(),
                signal,
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// How a [`Fake`] answers an invocation.
pub type Answer = Box<dyn Fn(&Invocation) -> Result<Output, ProcessError> + Send + Sync>;

/// A runner for tests: records what it was asked to run and answers from a script.
#[derive(Default)]
pub struct Fake {
    pub calls: std::sync::Mutex<Vec<String>>,
    /// Called with each invocation; returns the result to give.
    pub answer: Option<Answer>,
}

impl Runner for Fake {
    fn run(&self, inv: &Invocation) -> Result<Output, ProcessError> {
        if let Ok(mut c) = self.calls.lock() {
            c.push(inv.display());
        }
        match &self.answer {
            Some(f) => f(inv),
            None => Ok(Output::default()),
        }
    }
}

/// Finds `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether this process runs as root (the procedure's `sudo` is then not needed).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_program_names_command_status_and_stderr() {
        let inv = Invocation::new("sh").arg("-c").arg("echo oops >&2; exit 3");
        let err = System.run(&inv).expect_err("fails");
        let msg = err.to_string();
        assert!(msg.contains("`sh -c echo oops >&2; exit 3`"), "{msg}");
        assert!(msg.contains("exit status: 3"), "{msg}");
        assert!(msg.ends_with("oops"), "{msg}");
    }

    #[test]
    fn a_missing_program_is_a_start_error() {
        let err = System
            .run(&Invocation::new("/nonexistent/program"))
            .expect_err("no such program");
        assert!(matches!(err, ProcessError::Start { .. }));
    }

    #[test]
    fn captures_stdout() {
        let out = System
            .run(&Invocation::new("echo").arg("hi"))
            .expect("runs");
        assert_eq!(out.stdout, "hi\n");
    }
}
