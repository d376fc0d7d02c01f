//! How every collector runs: a list of steps, each one command. Before a step that writes
//! to a device the guard looks at that device again; after each step its output is read
//! back, and only a step whose result holds what it should counts. A rerun skips the
//! steps an earlier run finished (their output still reads back), a stopping signal
//! (SIGINT, SIGTERM, SIGHUP; to the tool or its process group) stops the current step and
//! everything it started and keeps what finished, and the manifest records every step with its command,
//! start, end, exit status and result as it goes.

// What `session.rs` reads through `use super::*`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::process::{Output, ProcessError, Runner};

use super::guard;
use super::outcome::{self, Outcome};

mod dry_run;
mod manifest;
pub mod origin;
mod progress;
mod session;
mod step;
#[cfg(test)]
pub(crate) mod tests;

pub use dry_run::{print_dry_run, print_origin};
pub use manifest::{hostname, now_utc, Manifest, Ran, Record};
pub use origin::Origin;
pub use progress::duration;
pub use session::Session;
pub use step::{Check, Reader, Step, When, Write};

use progress::progress;
