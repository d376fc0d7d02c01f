//! The thin shell collectors of `collectors/`, built into the binary and written to a
//! private folder when a collection runs. Each runs the procedure's commands through
//! `lib.sh`, so the same script with `DRY_RUN=1` prints them expanded, exactly as they
//! would run: that is what `--dry-run` shows.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::process::{Invocation, Runner};

const SCRIPTS: &[(&str, &str)] = &[
    ("lib.sh", include_str!("../../collectors/lib.sh")),
    (
        "storage-fio.sh",
        include_str!("../../collectors/storage-fio.sh"),
    ),
    (
        "storage-drives.sh",
        include_str!("../../collectors/storage-drives.sh"),
    ),
    ("capture.sh", include_str!("../../collectors/capture.sh")),
    (
        "kv-ladder.sh",
        include_str!("../../collectors/kv-ladder.sh"),
    ),
    (
        "kv-server.sh",
        include_str!("../../collectors/kv-server.sh"),
    ),
    ("spdk-fio.sh", include_str!("../../collectors/spdk-fio.sh")),
    (
        "spdk-degraded.sh",
        include_str!("../../collectors/spdk-degraded.sh"),
    ),
];

/// The scripts, written out for one collection.
pub struct Scripts {
    dir: tempfile::TempDir,
}

impl Scripts {
    pub fn write() -> anyhow::Result<Scripts> {
        let dir = tempfile::Builder::new()
            .prefix("reprobench-collectors-")
            .tempdir()
            .context("failed to create a temporary folder")?;
        for (name, text) in SCRIPTS {
            let p = dir.path().join(name);
            std::fs::write(&p, text)
                .with_context(|| format!("failed to write the collector `{name}`"))?;
        }
        Ok(Scripts { dir })
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
    match runner.run(&dry) {
        Ok(out) => format!("{cd}{}", out.stdout),
        Err(e) => format!("# (could not expand: {e})\n{cd}{}\n", inv.display()),
    }
}
