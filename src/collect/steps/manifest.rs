//! What a collection records: each step's record, the manifest, the tally of a run, and
//! the time and host the manifest names.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
