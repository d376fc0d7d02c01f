//! A step and what it carries: its command, the devices it writes to, how its result is
//! read back, and when it runs at all.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::collect::outcome::Outcome;
use crate::process::{Invocation, Output, ProcessError};

use super::Origin;

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
