//! `reprobench shell-files`: completions for bash, zsh and fish and the man pages, all
//! generated from the command line's own definition, installed under a prefix in one go.

use std::path::{Path, PathBuf};

use crate::cli::ShellFilesArgs;

use super::UNUSABLE;

pub fn run(args: &ShellFilesArgs) -> anyhow::Result<i32> {
    let Some(prefix) = args.prefix.clone().or_else(default_prefix) else {
        crate::errln!("error: no --prefix given and HOME is not set");
        return Ok(UNUSABLE);
    };
    let files = files(&prefix)?;
    for (path, bytes) in &files {
        if args.dry_run {
            crate::outln!("would write {} ({} bytes)", path.display(), bytes.len());
            continue;
        }
        if let Err(e) = write(path, bytes) {
            crate::errln!("error: cannot write `{}`: {e}", path.display());
            return Ok(UNUSABLE);
        }
        crate::errln!("wrote {}", path.display());
    }
    Ok(0)
}

fn default_prefix() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".local"))
}

/// Every file, with where it goes under `prefix`.
pub fn files(prefix: &Path) -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
    use clap_complete::Shell;
    let share = prefix.join("share");
    let mut out = Vec::new();
    for (shell, rel) in [
        (Shell::Bash, "bash-completion/completions/reprobench"),
        (Shell::Zsh, "zsh/site-functions/_reprobench"),
        (Shell::Fish, "fish/vendor_completions.d/reprobench.fish"),
    ] {
        let mut bytes = Vec::new();
        clap_complete::generate(
            shell,
            &mut super::command_line::command(crate::suites::SUITES),
            "reprobench",
            &mut bytes,
        );
        out.push((share.join(rel), bytes));
    }
    let man = share.join("man/man1");
    let mut pages = Vec::new();
    man_pages(
        super::command_line::command(crate::suites::SUITES),
        "reprobench",
        &mut pages,
    )?;
    for (name, bytes) in pages {
        out.push((man.join(format!("{name}.1")), bytes));
    }
    Ok(out)
}

/// A page for the program and one for each command (`reprobench-collect-storage.1`), as
/// git does.
fn man_pages(
    cmd: clap::Command,
    name: &str,
    out: &mut Vec<(String, Vec<u8>)>,
) -> anyhow::Result<()> {
    // clap keeps names as static strings; a page's name lives as long as the program.
    let static_name: &'static str = Box::leak(name.to_string().into_boxed_str());
    let cmd = cmd.name(static_name).version(crate::cli::VERSION);
    let mut bytes = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut bytes)?;
    out.push((name.to_string(), bytes));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        man_pages(sub.clone(), &format!("{name}-{}", sub.get_name()), out)?;
    }
    Ok(())
}

/// Writes through a temporary file renamed into place: an interrupted install never
/// leaves half a completion script.
fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    // Readable by all, as installed files are (a temporary file starts as 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
