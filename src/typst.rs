//! The typst CLI reports are compiled with: pinned to one version, found (a flag, the
//! environment, the cache, the PATH) and installed on first use: the fastest
//! way is typst's prebuilt wheel from PyPI (`typst` 0.15.2 embeds typst 0.15.1), checked
//! against its pinned sha256, behind a small `typst` launcher; where that cannot be had,
//! `cargo install typst-cli`.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::process::{which, Invocation, Runner};

/// The typst CLI version reports are made with.
pub const TYPST_VERSION: &str = "0.15.1";
/// Environment variable naming a typst binary to use.
pub const TYPST_ENV: &str = "REPROBENCH_TYPST";

/// The PyPI `typst` release whose compiled library is typst 0.15.1.
pub const WHEEL_VERSION: &str = "0.15.2";

/// sha256 of every abi3 wheel of `typst` 0.15.2 for Linux and macOS (from PyPI's index);
/// pip refuses any file that matches none of them.
const WHEEL_HASHES: &[&str] = &[
    // manylinux2014 x86_64, aarch64
    "99fe0916980cab453e60332125e133c737bf3b76efd325b60d055c551e5887a1",
    "11c6f06b47dd0e3448720d120ab79dd488b83a5c525f66133f8ebc6f909404b1",
    // musllinux 1.2 x86_64, aarch64
    "8494e91a3d704baeff99257738c63f77ed49a5232fcfe3f8f813b9b3209a996e",
    "d6a80c70014d185d4ba8cce7712ef8a20efb0451465008fd2d8846d71480f201",
    // macOS x86_64, arm64
    "d6d8a9c7700202fdd8488ffbcbe959d3f730590905bfbbfdcbb781e1c403e923",
    "19d77c2eb4c423f2517f585ce7876bd4fc96d9c2355985c7b1e0943c1b3c4541",
];

/// The `typst` launcher over the wheel: the two commands reprobench runs, with the CLI's
/// flags and output.
const LAUNCHER: &str = r#"import sys

import typst

USAGE = "usage: typst compile [--creation-timestamp N] [--root DIR] INPUT OUTPUT | typst --version"


def main(argv):
    if argv[:1] == ["--version"]:
        print("typst 0.15.1 (the typst " + typst.__version__ + " wheel)")
        return 0
    if argv[:1] != ["compile"]:
        print(USAGE, file=sys.stderr)
        return 2
    args, opts = [], {}
    rest = argv[1:]
    while rest:
        a = rest.pop(0)
        if a in ("--creation-timestamp", "--root") and rest:
            opts[a] = rest.pop(0)
        elif a.startswith("-"):
            print("unsupported option " + a + "; " + USAGE, file=sys.stderr)
            return 2
        else:
            args.append(a)
    if len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    stamp = opts.get("--creation-timestamp")
    try:
        typst.compile(
            args[0],
            output=args[1],
            root=opts.get("--root"),
            timestamp=int(stamp) if stamp is not None else None,
        )
    except Exception as e:
        print("error: " + str(e), file=sys.stderr)
        return 1
    return 0


sys.exit(main(sys.argv[1:]))
"#;

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

/// `REPROBENCH_TYPST_INSTALL=never`: a missing typst is an error, never installed (a
/// machine that must not fetch anything; the tests, which skip what needs typst instead
/// of installing it for ten minutes).
pub const INSTALL_ENV: &str = "REPROBENCH_TYPST_INSTALL";

/// Installs the pinned typst into the cache with cargo, saying so first.
pub fn install(runner: &dyn Runner) -> anyhow::Result<PathBuf> {
    if std::env::var(INSTALL_ENV).is_ok_and(|v| v == "never") {
        anyhow::bail!(
            "typst is not installed, and {INSTALL_ENV}=never says not to install it: install typst {TYPST_VERSION}, point --typst or {TYPST_ENV} at one, or use --no-pdf"
        );
    }
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
        crate::errln!(
            "another reprobench is installing typst {TYPST_VERSION} into `{}`: waiting for it",
            root.display()
        );
        lock.lock()
            .with_context(|| format!("failed to lock `{}`", lock_path.display()))?;
    }
    if bin.is_file() {
        return Ok(bin);
    }
    let started = std::time::Instant::now();
    match install_wheel(runner, root) {
        Ok(bin) => {
            crate::errln!(
                "installed typst {TYPST_VERSION} (the typst {WHEEL_VERSION} wheel, sha256 checked) into `{}` in {:.0} s",
                root.display(),
                started.elapsed().as_secs_f64()
            );
            return Ok(bin);
        }
        Err(why) => {
            crate::errln!("the prebuilt typst could not be installed ({why:#}): building it")
        }
    }
    crate::errln!(
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

/// The prebuilt typst: PyPI's `typst` wheel (its hash pinned) in a virtual environment
/// under `root/venv`, and `root/bin/typst`, a launcher with the CLI's interface.
fn install_wheel(runner: &dyn Runner, root: &Path) -> anyhow::Result<PathBuf> {
    let python = which("python3").context("no python3 on PATH")?;
    let venv = root.join("venv");
    let _ = std::fs::remove_dir_all(&venv);
    std::fs::create_dir_all(root)
        .with_context(|| format!("failed to create `{}`", root.display()))?;
    runner
        .run(
            &Invocation::new(&python)
                .arg("-m")
                .arg("venv")
                .arg(venv.as_os_str()),
        )
        .context("python3 -m venv failed (install python3-venv)")?;
    let requirements = root.join("requirements.txt");
    let hashes: String = WHEEL_HASHES
        .iter()
        .map(|h| format!(" \\\n    --hash=sha256:{h}"))
        .collect();
    std::fs::write(&requirements, format!("typst=={WHEEL_VERSION}{hashes}\n"))
        .with_context(|| format!("failed to write `{}`", requirements.display()))?;
    let vpython = venv.join("bin").join("python");
    runner
        .run(
            &Invocation::new(&vpython)
                .arg("-m")
                .arg("pip")
                .arg("install")
                .arg("--quiet")
                .arg("--no-deps")
                .arg("--only-binary=:all:")
                .arg("--require-hashes")
                .arg("-r")
                .arg(requirements.as_os_str())
                .passthrough(),
        )
        .context("pip could not fetch the pinned wheel")?;
    let launcher = root.join("typst-launcher.py");
    std::fs::write(&launcher, LAUNCHER)
        .with_context(|| format!("failed to write `{}`", launcher.display()))?;
    let bin_dir = root.join("bin");
    std::fs::create_dir_all(&bin_dir)?;
    let bin = bin_dir.join("typst");
    let script = format!(
        "#!/bin/sh\nexec '{}' '{}' \"$@\"\n",
        vpython.display(),
        launcher.display()
    );
    let tmp = bin_dir.join(".typst.tmp");
    std::fs::write(&tmp, script)?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
    }
    // The launcher must answer before it is put in place.
    let v = version(runner, &tmp).unwrap_or_default();
    if v != TYPST_VERSION {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!("the installed wheel reports typst `{v}`, not {TYPST_VERSION}");
    }
    std::fs::rename(&tmp, &bin)?;
    Ok(bin)
}

/// The version a typst binary reports, e.g. `0.15.1`.
pub fn version(runner: &dyn Runner, typst: &Path) -> Option<String> {
    let out = runner.run(&Invocation::new(typst).arg("--version")).ok()?;
    out.stdout.split_whitespace().nth(1).map(str::to_string)
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

    /// A fake that answers `--version` as the pinned typst does.
    fn answering_version() -> Fake {
        Fake {
            answer: Some(Box::new(|inv: &Invocation| {
                std::thread::sleep(std::time::Duration::from_millis(100));
                let v = inv.args.iter().any(|a| a == "--version");
                Ok(Output {
                    stdout: if v {
                        format!("typst {TYPST_VERSION} (the typst {WHEEL_VERSION} wheel)\n")
                    } else {
                        String::new()
                    },
                    stderr: String::new(),
                })
            })),
            ..Fake::default()
        }
    }

    #[test]
    fn install_takes_the_pinned_wheel_with_its_hashes_first() {
        if which("python3").is_none() {
            crate::errln!("no python3: the wheel route is skipped by design");
            return;
        }
        let fake = answering_version();
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("typst").join(TYPST_VERSION);
        let bin = install_into(&fake, &root).expect("the wheel route");
        assert_eq!(bin, root.join("bin").join("typst"));
        let calls = fake.calls.lock().map(|c| c.clone()).unwrap_or_default();
        assert_eq!(calls.len(), 3, "{calls:?}");
        assert!(calls[0].ends_with(&format!("-m venv {}", root.join("venv").display())));
        assert!(calls[1]
            .contains("-m pip install --quiet --no-deps --only-binary=:all: --require-hashes -r"));
        assert!(calls[2].ends_with("--version"));
        let req = std::fs::read_to_string(root.join("requirements.txt")).expect("req");
        assert!(req.starts_with(&format!("typst=={WHEEL_VERSION}")));
        for h in WHEEL_HASHES {
            assert!(req.contains(&format!("--hash=sha256:{h}")), "{req}");
        }
        let launcher = std::fs::read_to_string(&bin).expect("launcher");
        assert!(launcher.starts_with("#!/bin/sh\nexec "), "{launcher}");
    }

    #[test]
    fn install_falls_back_to_cargo_when_the_wheel_is_not_typst_0_15_1() {
        // The fake answers nothing: the launcher reports no version, so cargo builds it.
        let fake = Fake::default();
        let tmp = tempfile::tempdir().expect("tmp");
        let root = &tmp.path().join("typst").join(TYPST_VERSION);
        let err = install_into(&fake, root).expect_err("nothing was installed");
        assert!(err.to_string().contains("is missing"), "{err}");
        let calls = fake.calls.lock().map(|c| c.clone()).unwrap_or_default();
        let last = calls.last().cloned().unwrap_or_default();
        assert!(
            last.ends_with(&format!(
                "install --locked typst-cli@{TYPST_VERSION} --root {}",
                root.display()
            )),
            "{calls:?}"
        );
        assert!(
            !root.join("bin").join("typst").exists(),
            "no launcher left behind"
        );
    }

    #[test]
    fn a_second_install_waits_for_the_first_and_runs_nothing() {
        if which("python3").is_none() {
            crate::errln!("no python3: skipped");
            return;
        }
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("typst").join(TYPST_VERSION);
        let (a, b) = (answering_version(), answering_version());
        std::thread::scope(|s| {
            let first = s.spawn(|| install_into(&a, &root));
            std::thread::sleep(std::time::Duration::from_millis(50));
            let second = s.spawn(|| install_into(&b, &root));
            assert!(first.join().expect("thread").is_ok());
            assert!(second.join().expect("thread").is_ok());
        });
        let calls = |f: &Fake| f.calls.lock().map(|c| c.len()).unwrap_or(99);
        assert_eq!(calls(&a) + calls(&b), 3, "one install, the other waited");
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
