//! Errors that name the file (and line) they came from.

use std::fmt;
use std::path::{Path, PathBuf};

/// A file that could not be read as what it claimed to be.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ParseError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub reason: String,
}

impl ParseError {
    pub fn new(path: &Path, line: Option<usize>, reason: impl Into<String>) -> Self {
        ParseError {
            path: path.to_path_buf(),
            line,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ": line {line}")?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// A parser's error before it knows the file: a line (if any) and a reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub line: Option<usize>,
    pub reason: String,
}

impl Problem {
    pub fn at(line: usize, reason: impl Into<String>) -> Self {
        Problem {
            line: Some(line),
            reason: reason.into(),
        }
    }

    pub fn whole(reason: impl Into<String>) -> Self {
        Problem {
            line: None,
            reason: reason.into(),
        }
    }

    pub fn in_file(self, path: &Path) -> ParseError {
        ParseError::new(path, self.line, self.reason)
    }
}

/// The exit status of a command whose input or arguments were unusable (nothing judged,
/// nothing run).
pub const UNUSABLE: i32 = 2;
