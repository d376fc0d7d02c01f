//! What uses a block device, as the system's own tables say: sysfs (partitions, holders,
//! loop devices), mountinfo in every mount namespace, swaps, and other processes' open files.

use std::path::{Path, PathBuf};

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

fn sys(name: &str) -> PathBuf {
    Path::new("/sys/class/block").join(name)
}

/// The partitions of a block device, from sysfs.
pub(super) fn partitions(name: &str) -> Vec<String> {
    let dir = sys(name);
    let mut parts: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(name) && dir.join(n).join("partition").exists())
        .collect();
    parts.sort();
    parts
}

fn holders(name: &str) -> Vec<String> {
    let mut h: Vec<String> = std::fs::read_dir(sys(name).join("holders"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    h.sort();
    h
}

/// `major:minor` of a block device (or partition) by its sysfs name.
pub(super) fn dev_number(name: &str) -> String {
    read(sys(name).join("dev")).trim().to_string()
}

/// Where a block device (by sysfs name) is mounted, from mountinfo.
fn mounts_of(name: &str) -> Vec<String> {
    let num = dev_number(name);
    let path = format!("/dev/{name}");
    read("/proc/self/mountinfo")
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let sep = f.iter().position(|x| *x == "-")?;
            let source = f.get(sep + 2).copied().unwrap_or("");
            let same_source = std::fs::canonicalize(source).is_ok_and(|s| s == Path::new(&path));
            ((!num.is_empty() && f.get(2) == Some(&num.as_str())) || same_source)
                .then(|| f.get(4).map(|m| m.to_string()))
                .flatten()
        })
        .collect()
}

fn swaps_of(name: &str) -> bool {
    let path = Path::new("/dev").join(name);
    read("/proc/swaps").lines().skip(1).any(|l| {
        let used = l.split_whitespace().next().unwrap_or("");
        std::fs::canonicalize(used).is_ok_and(|u| u == path)
    })
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

/// Loop devices whose backing file is the block device `name` (`/sys/block/loop*/loop/
/// backing_file`): a loop device does not claim what it is set up over.
fn loops_over(name: &str) -> Vec<String> {
    let path = Path::new("/dev").join(name);
    let mut out: Vec<String> = std::fs::read_dir("/sys/block")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let loop_name = e.file_name().to_string_lossy().into_owned();
            let backing = read(e.path().join("loop/backing_file"));
            let backing = backing.trim();
            (!backing.is_empty() && std::fs::canonicalize(backing).is_ok_and(|b| b == path))
                .then_some(loop_name)
        })
        .collect();
    out.sort();
    out
}

/// Processes other than this one that have the block device `rdev` open or mapped, in
/// any pid or mount namespace, as sentences with the fix. Each descriptor
/// (`/proc/<pid>/fd`) and each mapped file (`/proc/<pid>/map_files`, which outlives the
/// descriptor a mapping was made through) is followed to its inode and compared by
/// device number, so the path it was opened by, or the namespace, does not matter. An
/// exclusive open does not see these: a plain `O_RDWR` open, a mapping and an export
/// (qemu-nbd) claim nothing, yet they read or write the device.
pub(super) fn processes_using(name: &str, rdev: u64) -> Vec<String> {
    holders_of(rdev)
        .into_iter()
        .map(|(pid, comm, how)| format!(
            "`{name}` is in use: pid {pid} ({comm}) {how}: stop that program first (kill {pid}), or wait until it lets the device go"
        ))
        .collect()
}

/// (pid, program, how) of every other process that has the block device `rdev` open or
/// mapped (see [`processes_using`]).
pub(super) fn holders_of(rdev: u64) -> Vec<(String, String, &'static str)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let me = std::process::id().to_string();
    let is_it = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == rdev)
    };
    let any_in = |dir: PathBuf| {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| is_it(&e.path()))
    };
    let mut out = Vec::new();
    for p in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let pid = p.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let how = if any_in(p.path().join("fd")) {
            "has it open"
        } else if any_in(p.path().join("map_files")) {
            "has it mapped into memory"
        } else {
            continue;
        };
        let comm = read(p.path().join("comm"));
        out.push((pid, comm.trim().to_string(), how));
    }
    out
}

/// The device number of a block device node, when it is one.
pub(super) fn rdev_of(p: &Path) -> Option<u64> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    std::fs::metadata(p)
        .ok()
        .filter(|m| m.file_type().is_block_device())
        .map(|m| m.rdev())
}

/// Mounts of `major:minor` in mount namespaces other than this one: `X (pid N's mount
/// namespace)`.
pub(super) fn mounts_elsewhere(num: &str) -> Vec<String> {
    if num.is_empty() {
        return Vec::new();
    }
    let mine = std::fs::read_link("/proc/self/ns/mnt").ok();
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for p in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let pid = p.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(ns) = std::fs::read_link(p.path().join("ns/mnt")) else {
            continue;
        };
        if Some(&ns) == mine.as_ref() || !seen.insert(ns) {
            continue;
        }
        for l in read(p.path().join("mountinfo")).lines() {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.get(2) == Some(&num) {
                if let Some(at) = f.get(4) {
                    out.push(format!("{at} (in the mount namespace of pid {pid})"));
                }
            }
        }
    }
    out
}

/// What uses block device `name` (and, through holders, what is built on it), as
/// sentences with the fix. `depth` bounds the walk up the holder chain.
pub(super) fn uses(name: &str, depth: usize, out: &mut Vec<String>) {
    for m in mounts_of(name) {
        let root = if m == "/" {
            " (the root filesystem)"
        } else {
            ""
        };
        out.push(format!(
            "`{name}` is mounted at {m}{root}: unmount it first (umount {m})"
        ));
    }
    if swaps_of(name) {
        out.push(format!(
            "`{name}` is in use as swap: swapoff /dev/{name} first"
        ));
    }
    if depth > 8 {
        return;
    }
    for l in loops_over(name) {
        let mut above = Vec::new();
        uses(&l, depth + 1, &mut above);
        let built = if above.is_empty() {
            String::new()
        } else {
            format!(", which is in use ({})", above.join("; "))
        };
        out.push(format!(
            "`{name}` backs the loop device `{l}`{built}: detach it first (losetup -d /dev/{l})"
        ));
    }
    for h in holders(name) {
        let fix = if h.starts_with("md") {
            format!("stop it first (mdadm --stop /dev/{h})")
        } else {
            format!("remove it first (vgchange -an, or dmsetup remove /dev/{h})")
        };
        let mut above = Vec::new();
        uses(&h, depth + 1, &mut above);
        if above.is_empty() {
            out.push(format!("`{name}` is held by `{h}` (md, dm or LVM): {fix}"));
        } else {
            out.push(format!(
                "`{name}` is a member of `{h}`, which is in use ({}): {fix}",
                above.join("; ")
            ));
        }
    }
}
