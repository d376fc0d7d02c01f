//! What a collector step produced, read back before it is counted: a run that did not run
//! (no result, an unreadable one, fio's own error lines, a job error, no I/O, a non-zero
//! exit) is a failed step with its first error line, never a written run.

use std::path::Path;

use crate::fio::groups::groups;
use crate::parse::fio;
use crate::process::{Output, ProcessError};

/// How a step ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It ran and its result holds I/O.
    Ok,
    /// It failed: the first error line, or why the result does not count.
    Failed(String),
}

impl Outcome {
    pub fn is_ok(&self) -> bool {
        *self == Outcome::Ok
    }

    pub fn label(&self) -> String {
        match self {
            Outcome::Ok => "ok".into(),
            Outcome::Failed(why) => format!("failed: {why}"),
        }
    }
}

/// The first line of a program's error output worth showing.
fn first_error_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| {
            let lower = l.to_ascii_lowercase();
            !l.is_empty()
                && (lower.contains("error")
                    || lower.contains("abort")
                    || lower.contains("fail")
                    || lower.starts_with("fio:"))
        })
        .or_else(|| text.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(str::to_string)
}

/// A fio step: its exit status and the JSON it was to write.
pub fn fio_step(exit: &Result<Output, ProcessError>, json: &Path) -> Outcome {
    let parsed = fio::parse_path(json);
    // fio writes its own refusals (`appears mounted ... Aborting`) into the output file.
    if let Ok(out) = &parsed {
        if let Some(line) = out.text_before.iter().find(|l| {
            l.starts_with("fio:")
                && (l.contains("Abort") || l.contains("error") || l.contains("err="))
        }) {
            return Outcome::Failed(line.clone());
        }
    }
    if let Err(e) = exit {
        let detail = match e {
            ProcessError::Failed { stderr, status, .. } => {
                first_error_line(stderr).unwrap_or_else(|| format!("exited with {status}"))
            }
            other => other.to_string(),
        };
        let from_file = std::fs::read_to_string(json)
            .ok()
            .and_then(|t| first_error_line(&t))
            .filter(|l| l.starts_with("fio:"));
        return Outcome::Failed(from_file.unwrap_or(detail));
    }
    let out = match parsed {
        Ok(o) => o,
        Err(e) if !json.exists() => {
            return Outcome::Failed(format!("fio wrote no `{}`: {}", json.display(), e.reason))
        }
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    for g in groups(&out) {
        if g.error != 0 {
            return Outcome::Failed(format!("job `{}` ended with error {}", g.jobname, g.error));
        }
        if g.read.total_ios + g.write.total_ios == 0 {
            return Outcome::Failed(format!("job `{}` did no I/O", g.jobname));
        }
    }
    Outcome::Ok
}

/// Any other step: its exit status.
pub fn command_step(exit: &Result<Output, ProcessError>) -> Outcome {
    match exit {
        Ok(_) => Outcome::Ok,
        Err(ProcessError::Failed { stderr, status, .. }) => Outcome::Failed(
            first_error_line(stderr).unwrap_or_else(|| format!("exited with {status}")),
        ),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio")
            .join(name)
    }

    #[test]
    fn a_good_result_counts_and_failures_name_their_first_line() {
        let ok: Result<Output, ProcessError> = Ok(Output::default());
        assert_eq!(fio_step(&ok, &fixture("json-plus.json")), Outcome::Ok);
        assert!(
            matches!(fio_step(&ok, &fixture("job-error.json")), Outcome::Failed(w) if w.contains("error 22"))
        );
        assert!(
            matches!(fio_step(&ok, Path::new("/nonexistent/x.json")), Outcome::Failed(w) if w.contains("fio wrote no"))
        );
        let tmp = tempfile::tempdir().expect("tmp");
        let aborted = tmp.path().join("a.json");
        std::fs::write(
            &aborted,
            "fio: /dev/loop0 appears mounted, and 'allow_mounted_write' isn't set. Aborting.\n",
        )
        .expect("w");
        let failed: Result<Output, ProcessError> = Err(ProcessError::Failed {
            command: "fio".into(),
            status: "exit status: 1".into(),
            stderr: String::new(),
        });
        assert_eq!(
            fio_step(&failed, &aborted),
            Outcome::Failed(
                "fio: /dev/loop0 appears mounted, and 'allow_mounted_write' isn't set. Aborting."
                    .into()
            )
        );
    }
}
