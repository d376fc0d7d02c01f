//! The thin shell collectors of `collectors/`, built into the binary and written to a
//! private folder when a collection runs. Each runs the procedure's commands through
//! `lib.sh`, so the same script with `DRY_RUN=1` prints them expanded, exactly as they
//! would run: that is what `--dry-run` shows.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::process::{Invocation, Runner};

/// The scripts every collection has: `lib.sh` (every command through `run`, so a dry run
/// prints it) and `capture.sh` (a system command's output kept). A procedure's own
/// scripts are its suite's (`collectors/<procedure>/`, given to [`Scripts::write_with`]).
const SCRIPTS: &[(&str, &str)] = &[
    ("lib.sh", include_str!("../../collectors/lib.sh")),
    ("capture.sh", include_str!("../../collectors/capture.sh")),
];

/// Whether a script sources `lib.sh` before it runs anything: after comments and `set`
/// lines, either `. "$(dirname "$0")/lib.sh"` (or `source`), or the two-folder form the
/// project's scripts use, `lib=$(dirname "$0")/lib.sh; [ -f "$lib" ] ||
/// lib=$(dirname "$0")/../lib.sh` then `. "$lib"`. Nothing else may run first.
fn sources_lib(text: &str) -> bool {
    const BESIDE: &str = r#"$(dirname "$0")/lib.sh"#;
    const ABOVE: &str = r#"$(dirname "$0")/../lib.sh"#;
    let mut named = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with("set ") {
            continue;
        }
        let sourced = line
            .strip_prefix(". ")
            .or_else(|| line.strip_prefix("source "))
            .map(|w| w.trim().trim_matches('"'));
        if let Some(what) = sourced {
            return what == BESIDE.trim_matches('"') || (named && what == "$lib");
        }
        // Only the assignments of `lib` and the test between them.
        let naming = line.split(';').flat_map(|p| p.split("||")).all(|part| {
            let part = part.trim();
            part == r#"[ -f "$lib" ]"#
                || part
                    .strip_prefix("lib=")
                    .is_some_and(|v| v == BESIDE || v == ABOVE)
        });
        if !naming {
            return false;
        }
        named = true;
    }
    false
}

/// The sha256 of a script's text, in hex.
pub fn digest(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The variables the scripts read that change what they do, when set.
pub const ENVIRONMENT: [&str; 3] = ["SPDK_RPC_SOCK", "READY_POLL", "SCRAPE_S"];

pub fn environment() -> std::collections::BTreeMap<String, String> {
    ENVIRONMENT
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
        .collect()
}

/// The scripts, written out for one collection.
pub struct Scripts {
    dir: tempfile::TempDir,
    /// Each script by name with the sha256 of its text, for the manifest.
    digests: std::collections::BTreeMap<String, String>,
}

impl Scripts {
    pub fn write() -> anyhow::Result<Scripts> {
        Scripts::write_with(&[])
    }

    /// The built-in scripts and a suite's own (`extra`, beside `lib.sh`).
    pub fn write_with(extra: &[(&str, &str)]) -> anyhow::Result<Scripts> {
        let dir = tempfile::Builder::new()
            .prefix("reprobench-collectors-")
            .tempdir()
            .context("failed to create a temporary folder")?;
        for (name, _) in extra {
            anyhow::ensure!(
                !name.is_empty() && !name.contains(['/', '\\']) && !name.starts_with('.'),
                "a collector script's name must be a plain file name, not `{name}`"
            );
            anyhow::ensure!(
                !SCRIPTS.iter().any(|(n, _)| n == name),
                "a suite's collector script `{name}` has the name of a built-in one"
            );
        }
        for (name, text) in extra.iter().filter(|(n, _)| n.ends_with(".sh")) {
            // A dry run runs the script with DRY_RUN=1 (and a real run does, for the
            // manifest, before the guard looks at a device): only `lib.sh`'s `run` makes
            // that print instead of act.
            anyhow::ensure!(
                sources_lib(text),
                "the collector script `{name}` does not source lib.sh: its commands must go through `run` so that a dry run prints them"
            );
        }
        let mut digests = std::collections::BTreeMap::new();
        for (name, text) in SCRIPTS.iter().chain(extra) {
            digests.insert(name.to_string(), digest(text));
            let p = dir.path().join(name);
            std::fs::write(&p, text)
                .with_context(|| format!("failed to write the collector `{name}`"))?;
        }
        Ok(Scripts { dir, digests })
    }

    /// Each script written, by name, with the sha256 of its text.
    pub fn digests(&self) -> &std::collections::BTreeMap<String, String> {
        &self.digests
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `bash <script> args...`.
    pub fn call(&self, name: &str) -> Invocation {
        Invocation::new("bash").arg(self.path(name).as_os_str())
    }
}

/// The commands an invocation runs, expanded: the script itself run with `DRY_RUN=1`
/// (it prints instead of running), or the command as it stands.
pub fn expand(inv: &Invocation, scripts: &Scripts, runner: &dyn Runner) -> String {
    let is_script = inv.program == Path::new("bash")
        && inv
            .args
            .first()
            .is_some_and(|a| Path::new(a).starts_with(scripts.dir.path()));
    let cd = inv
        .dir
        .as_ref()
        .map(|d| format!("cd {}\n", d.display()))
        .unwrap_or_default();
    if !is_script {
        return format!("{cd}{}\n", inv.display());
    }
    let mut dry = inv.clone().env("DRY_RUN", "1");
    dry.passthrough = false;
    // A dry run prints the commands whatever exists: a working folder that is not there
    // yet (the preflight says so) is stood in for by an empty one, whose name is put
    // back in what the script prints (`$PWD` in a command).
    let mut stand_in = None;
    if let Some(want) = dry.dir.clone().filter(|d| !d.is_dir()) {
        if let Ok(t) = tempfile::tempdir() {
            dry.dir = Some(t.path().to_path_buf());
            stand_in = Some((t, want));
        }
    }
    match runner.run(&dry) {
        Ok(out) => {
            let text = match &stand_in {
                Some((t, want)) => out
                    .stdout
                    .replace(&t.path().display().to_string(), &want.display().to_string()),
                None => out.stdout,
            };
            format!("{cd}{text}")
        }
        Err(e) => format!("# (could not expand: {e})\n{cd}{}\n", inv.display()),
    }
}
