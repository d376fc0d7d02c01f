//! `report.pdf`: the Typst source rendered from `templates/report.typ.j2`, compiled by the
//! typst CLI run as a process, pinned to one version and installed on first use.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::process::{which, Invocation, Runner};

/// The typst CLI version reports are made with.
pub const TYPST_VERSION: &str = "0.15.1";
/// Environment variable naming a typst binary to use.
pub const TYPST_ENV: &str = "REPROBENCH_TYPST";

/// Where reprobench keeps what it installs: `$REPROBENCH_CACHE`, else
/// `$XDG_CACHE_HOME/reprobench`, else `~/.cache/reprobench`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("REPROBENCH_CACHE") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("reprobench");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("reprobench")
}

/// The pinned typst's install root and binary.
pub fn pinned_root() -> PathBuf {
    cache_dir().join("typst").join(TYPST_VERSION)
}

pub fn pinned_binary() -> PathBuf {
    pinned_root().join("bin").join("typst")
}

/// Which typst to use: `--typst`, then `$REPROBENCH_TYPST`, then the pinned one in the
/// cache, then `typst` on PATH; None when there is none yet.
pub fn find(flag: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(TYPST_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let pinned = pinned_binary();
    if pinned.is_file() {
        return Some(pinned);
    }
    which("typst")
}

/// Installs the pinned typst into the cache with cargo, saying so first.
pub fn install(runner: &dyn Runner) -> anyhow::Result<PathBuf> {
    install_into(runner, &pinned_root())
}

/// Installs the pinned typst under `root` (`root/bin/typst`). A lock beside it makes a
/// second `report` started meanwhile wait for the first install instead of starting its own.
pub fn install_into(runner: &dyn Runner, root: &Path) -> anyhow::Result<PathBuf> {
    let bin = root.join("bin").join("typst");
    let parent = root.parent().unwrap_or(root);
    std::fs::create_dir_all(parent)
        .with_context(|| format!("failed to create `{}`", parent.display()))?;
    let lock_path = parent.join(format!(".install-{TYPST_VERSION}.lock"));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("failed to open `{}`", lock_path.display()))?;
    if lock.try_lock().is_err() {
        eprintln!(
            "another reprobench is installing typst {TYPST_VERSION} into `{}`: waiting for it",
            root.display()
        );
        lock.lock()
            .with_context(|| format!("failed to lock `{}`", lock_path.display()))?;
    }
    if bin.is_file() {
        return Ok(bin);
    }
    eprintln!(
        "typst is not installed: installing typst-cli {TYPST_VERSION} with cargo into `{}`.\n\
         This happens once and takes about 10 minutes on 2 cores (use --no-pdf to skip the PDF, or --typst PATH).",
        root.display()
    );
    let cargo = which("cargo").context(
        "failed to install typst: `cargo` is not on PATH (use --typst PATH or --no-pdf)",
    )?;
    runner
        .run(
            &Invocation::new(cargo)
                .arg("install")
                .arg("--locked")
                .arg(format!("typst-cli@{TYPST_VERSION}"))
                .arg("--root")
                .arg(root.as_os_str())
                .passthrough(),
        )
        .context("failed to install typst")?;
    anyhow::ensure!(
        bin.is_file(),
        "cargo finished but `{}` is missing",
        bin.display()
    );
    Ok(bin)
}

/// The version a typst binary reports, e.g. `0.15.1`.
pub fn version(runner: &dyn Runner, typst: &Path) -> Option<String> {
    let out = runner.run(&Invocation::new(typst).arg("--version")).ok()?;
    out.stdout.split_whitespace().nth(1).map(str::to_string)
}

/// Compiles `dir/report.typ` into `dir/report.pdf` with a fixed creation time, so the
/// same report gives the same bytes.
pub fn compile(runner: &dyn Runner, typst: &Path, dir: &Path) -> anyhow::Result<PathBuf> {
    let pdf = dir.join("report.pdf");
    runner
        .run(
            &Invocation::new(typst)
                .arg("compile")
                .arg("--creation-timestamp")
                .arg("0")
                .arg("report.typ")
                .arg("report.pdf")
                .dir(dir),
        )
        .context("failed to compile report.typ into report.pdf")?;
    Ok(pdf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::{Fake, Output};

    #[test]
    fn an_explicit_typst_wins() {
        let p = Path::new("/opt/typst");
        assert_eq!(find(Some(p)), Some(p.to_path_buf()));
    }

    #[test]
    fn compile_runs_typst_in_the_report_folder() {
        let fake = Fake::default();
        let dir = Path::new("/tmp/r");
        let pdf = compile(&fake, Path::new("/bin/typst"), dir).expect("fake succeeds");
        assert_eq!(pdf, dir.join("report.pdf"));
        let calls = fake.calls.lock().map(|c| c.clone()).unwrap_or_default();
        assert_eq!(
            calls,
            ["/bin/typst compile --creation-timestamp 0 report.typ report.pdf"]
        );
    }

    #[test]
    fn install_runs_cargo_install_of_the_pinned_version_into_the_cache() {
        let fake = Fake::default();
        let tmp = tempfile::tempdir().expect("tmp");
        let root = &tmp.path().join("typst").join(TYPST_VERSION);
        // The fake installs nothing, so the missing binary is reported.
        let err = install_into(&fake, root).expect_err("nothing was installed");
        assert!(err.to_string().contains("is missing"), "{err}");
        let calls = fake.calls.lock().map(|c| c.clone()).unwrap_or_default();
        assert_eq!(calls.len(), 1);
        assert!(
            calls[0].ends_with(&format!(
                "install --locked typst-cli@{TYPST_VERSION} --root {}",
                root.display()
            )),
            "{}",
            calls[0]
        );
    }

    #[test]
    fn a_second_install_waits_for_the_first_and_runs_nothing() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("typst").join(TYPST_VERSION);
        let slow = || Fake {
            answer: Some(Box::new(|inv: &Invocation| {
                // Installing: takes a while, then the binary is there.
                std::thread::sleep(std::time::Duration::from_millis(300));
                let root = inv.args.last().map(PathBuf::from).unwrap_or_default();
                std::fs::create_dir_all(root.join("bin")).expect("mkdir");
                std::fs::write(root.join("bin").join("typst"), b"").expect("bin");
                Ok(Output::default())
            })),
            ..Fake::default()
        };
        let (a, b) = (slow(), slow());
        std::thread::scope(|s| {
            let first = s.spawn(|| install_into(&a, &root));
            std::thread::sleep(std::time::Duration::from_millis(50));
            let second = s.spawn(|| install_into(&b, &root));
            assert!(first.join().expect("thread").is_ok());
            assert!(second.join().expect("thread").is_ok());
        });
        let calls = |f: &Fake| f.calls.lock().map(|c| c.len()).unwrap_or(99);
        assert_eq!(calls(&a) + calls(&b), 1, "one install, the other waited");
    }

    #[test]
    fn reads_the_version() {
        let fake = Fake {
            answer: Some(Box::new(|_| {
                Ok(Output {
                    stdout: "typst 0.15.1 (abcdef)\n".into(),
                    stderr: String::new(),
                })
            })),
            ..Fake::default()
        };
        assert_eq!(
            version(&fake, Path::new("typst")).as_deref(),
            Some("0.15.1")
        );
    }
}
