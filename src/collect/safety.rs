//! Before anything writes to a device: is it mounted, holding a filesystem or swap, a
//! member of an md, LVM or dm device, partitioned, or carrying a signature? Any of these
//! refuses the device unless the user names exactly it as confirmed.

use std::path::{Path, PathBuf};

use crate::process::{Invocation, Runner};

/// Why a device must not be written to; empty when it is free.
#[derive(Debug, Default)]
pub struct Findings {
    pub device: PathBuf,
    pub problems: Vec<String>,
    /// Plain files (fio on a file) are not block devices and skip the device checks.
    pub is_block: bool,
}

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// `major:minor` of a block device and its partitions, from sysfs.
fn dev_numbers(sys: &Path) -> Vec<(String, String)> {
    let mut out = vec![(
        sys.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        read(sys.join("dev")).trim().to_string(),
    )];
    for p in partitions(sys) {
        out.push((p.clone(), read(sys.join(&p).join("dev")).trim().to_string()));
    }
    out
}

fn partitions(sys: &Path) -> Vec<String> {
    let name = sys
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut parts: Vec<String> = std::fs::read_dir(sys)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&name) && sys.join(n).join("partition").exists())
        .collect();
    parts.sort();
    parts
}

/// The block device mounted at `/`, from mountinfo's source field, if `/` is on one.
pub fn root_device() -> Option<String> {
    read("/proc/self/mountinfo")
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let sep = f.iter().position(|x| *x == "-")?;
            (f.get(4) == Some(&"/"))
                .then(|| f.get(sep + 2).map(|s| s.to_string()))
                .flatten()
        })
        .find(|s| s.starts_with("/dev/"))
}

pub fn check(dev: &Path, runner: &dyn Runner) -> Findings {
    use std::os::unix::fs::FileTypeExt;
    let mut f = Findings {
        device: dev.to_path_buf(),
        ..Findings::default()
    };
    let real = match std::fs::canonicalize(dev) {
        Ok(r) => r,
        Err(e) => {
            f.problems
                .push(format!("cannot resolve `{}`: {e}", dev.display()));
            return f;
        }
    };
    let meta = match std::fs::metadata(&real) {
        Ok(m) => m,
        Err(e) => {
            f.problems
                .push(format!("cannot stat `{}`: {e}", real.display()));
            return f;
        }
    };
    if meta.is_file() {
        return f;
    }
    if !meta.file_type().is_block_device() {
        f.problems.push(format!(
            "`{}` is neither a block device nor a file",
            real.display()
        ));
        return f;
    }
    f.is_block = true;
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sys = Path::new("/sys/class/block").join(&name);
    // Mounted (the device or a partition), by device number.
    let numbers = dev_numbers(&sys);
    for line in read("/proc/self/mountinfo").lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() > 4 {
            if let Some((n, _)) = numbers
                .iter()
                .find(|(_, mm)| !mm.is_empty() && mm == fields[2])
            {
                let what = if fields[4] == "/" {
                    " (the root filesystem)"
                } else {
                    ""
                };
                f.problems
                    .push(format!("`{n}` is mounted at {}{what}", fields[4]));
            }
        }
    }
    for line in read("/proc/swaps").lines().skip(1) {
        let used = line.split_whitespace().next().unwrap_or("");
        if numbers.iter().any(|(n, _)| used == format!("/dev/{n}")) {
            f.problems.push(format!("`{used}` is in use as swap"));
        }
    }
    let holders: Vec<String> = std::fs::read_dir(sys.join("holders"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if !holders.is_empty() {
        f.problems.push(format!(
            "`{name}` is a member of {} (md, LVM or dm)",
            holders.join(", ")
        ));
    }
    let parts = partitions(&sys);
    if !parts.is_empty() {
        f.problems
            .push(format!("`{name}` has partitions: {}", parts.join(", ")));
    }
    match runner.run(
        &Invocation::new("blkid")
            .arg("-p")
            .arg("-o")
            .arg("export")
            .arg(real.as_os_str()),
    ) {
        Ok(out) => {
            let kind = out
                .stdout
                .lines()
                .find_map(|l| {
                    l.strip_prefix("TYPE=")
                        .or_else(|| l.strip_prefix("PTTYPE="))
                })
                .unwrap_or("unknown");
            f.problems.push(format!(
                "`{name}` carries a {kind} signature (filesystem, RAID member or partition table)"
            ));
        }
        Err(crate::process::ProcessError::Failed { status, .. })
            if status.contains("exit status: 2") => {}
        Err(e) => f
            .problems
            .push(format!("could not check `{name}` for signatures: {e}")),
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::System;

    #[test]
    fn the_root_filesystem_device_is_refused() {
        let root = root_device();
        let Some(root) = root else {
            eprintln!("no block device holds / here (overlay?): nothing to check");
            return;
        };
        let f = check(Path::new(&root), &System);
        assert!(
            f.problems.iter().any(|p| p.contains("mounted at /")),
            "{:?}",
            f.problems
        );
    }

    #[test]
    fn a_plain_file_is_allowed_and_a_missing_one_is_not() {
        let tmp = tempfile::NamedTempFile::new().expect("tmp");
        assert!(check(tmp.path(), &System).problems.is_empty());
        assert!(!check(Path::new("/nonexistent/dev"), &System)
            .problems
            .is_empty());
    }
}
