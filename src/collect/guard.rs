//! The device guard, consulted right before every command that writes to a device
//! (`blkdiscard`, `mdadm --create`, `--zero-superblock`, `wipefs`, fio). Two kinds of
//! finding: a device *in use* (mounted directly, through a partition or through an md,
//! dm or LVM device built on it; the root filesystem; active swap; held by md, dm or LVM)
//! is refused always, with what uses it and what to do; a device that only *looks used*
//! (a filesystem, RAID or LVM signature, a partition table, partitions) is refused unless
//! `--confirm-device` names exactly that device. Links such as `/dev/disk/by-id/...` are
//! resolved to the real device first.
//!
//! The lists of ways a device can be busy are the explanation, not the defence. The
//! defence is the kernel's own: the device is opened with `O_EXCL`, which the kernel
//! refuses (`EBUSY`) while it is mounted in any mount namespace, is an md, dm or LVM
//! member, or is held exclusively by another process. For a command that does not claim
//! the device itself (fio), that descriptor is held for the command's whole run, so a
//! mount during the run fails too ([`hold`]). A device that backs a loop device is in use
//! as well (a loop device does not claim its backing device), and holders are followed
//! up their chain.

use std::path::{Path, PathBuf};

use crate::process::{Invocation, Runner};

/// What the guard found about one device.
#[derive(Debug, Default, Clone)]
pub struct Findings {
    /// The device as the user named it.
    pub device: PathBuf,
    /// The real device behind it, when it resolves.
    pub real: Option<PathBuf>,
    /// A plain file (fio on a file): not a block device, nothing to check.
    pub is_file: bool,
    /// In use: refused always. Each says what uses it and what to do.
    pub in_use: Vec<String>,
    /// Looks used but is not in use: refused unless confirmed.
    pub looks_used: Vec<String>,
    /// The signature `blkid` found (`ext4`, `linux_raid_member`, `dos`), if any.
    pub signature: Option<String>,
    /// Why the device could not be checked at all (missing, not a block device).
    pub unusable: Option<String>,
    /// Why the kernel could not be asked (the exclusive open needs root): refused like
    /// unusable, but a dry run may go on printing.
    pub unchecked: Option<String>,
}

/// The guard's answer for one device.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Free,
    /// Looked used, and the user named exactly it: go on, with these warnings.
    Confirmed(Vec<String>),
    Refused(String),
}

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

fn sys(name: &str) -> PathBuf {
    Path::new("/sys/class/block").join(name)
}

/// The partitions of a block device, from sysfs.
fn partitions(name: &str) -> Vec<String> {
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
fn dev_number(name: &str) -> String {
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
fn processes_using(name: &str, rdev: u64) -> Vec<String> {
    holders_of(rdev)
        .into_iter()
        .map(|(pid, comm, how)| format!(
            "`{name}` is in use: pid {pid} ({comm}) {how}: stop that program first (kill {pid}), or wait until it lets the device go"
        ))
        .collect()
}

/// (pid, program, how) of every other process that has the block device `rdev` open or
/// mapped (see [`processes_using`]).
fn holders_of(rdev: u64) -> Vec<(String, String, &'static str)> {
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
fn rdev_of(p: &Path) -> Option<u64> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    std::fs::metadata(p)
        .ok()
        .filter(|m| m.file_type().is_block_device())
        .map(|m| m.rdev())
}

/// Mounts of `major:minor` in mount namespaces other than this one: `X (pid N's mount
/// namespace)`.
fn mounts_elsewhere(num: &str) -> Vec<String> {
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

/// Opens the block device `real` the way the kernel grants one user at a time: read-only
/// with `O_EXCL`. Err with the errno's text when the kernel refuses.
fn open_exclusive(real: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(real)
}

/// What the kernel's refusal of an exclusive open means, with whatever can be said of who
/// holds the device.
fn busy_reason(name: &str, real: &Path) -> String {
    let mut who = mounts_elsewhere(&dev_number(name))
        .into_iter()
        .map(|m| format!("mounted at {m}"))
        .collect::<Vec<_>>();
    who.extend(
        rdev_of(real)
            .map(holders_of)
            .unwrap_or_default()
            .into_iter()
            .map(|(pid, comm, how)| format!("pid {pid} ({comm}) {how}")),
    );
    let who = if who.is_empty() {
        String::new()
    } else {
        format!(" ({})", who.join("; "))
    };
    format!(
        "`{name}` is in use: the kernel refuses to open it exclusively (EBUSY){who}. It is mounted (in this or another mount namespace), a member of an md, dm or LVM device, or held by another program: find what holds it (`lsblk`, `fuser -vm /dev/{name}`, `findmnt -N <pid>`), stop that, and run again"
    )
}

/// A device claimed for a command's whole run: while this is held, the kernel refuses
/// every other exclusive open of the device (a mount, md, another guard). Dropped when
/// the command ends.
#[derive(Debug)]
pub struct Hold {
    _file: Option<std::fs::File>,
}

/// Claims `dev` for a command that does not claim it itself (fio): an `O_EXCL`
/// descriptor kept open until the [`Hold`] is dropped. A plain file or a PCIe address
/// needs no claim. Err when the kernel refuses: the device is in use.
pub fn hold(dev: &Path) -> Result<Hold, String> {
    use std::os::unix::fs::FileTypeExt;
    if dev.to_str().is_some_and(|d| d.starts_with("pci:")) {
        return Ok(Hold { _file: None });
    }
    let real =
        std::fs::canonicalize(dev).map_err(|e| format!("cannot find `{}`: {e}", dev.display()))?;
    let is_block = std::fs::metadata(&real).is_ok_and(|m| m.file_type().is_block_device());
    if !is_block {
        return Ok(Hold { _file: None });
    }
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match open_exclusive(&real) {
        Ok(f) => Ok(Hold { _file: Some(f) }),
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Err(format!(
            "refused `{}`: {}",
            dev.display(),
            busy_reason(&name, &real)
        )),
        Err(e) => Err(format!(
            "refused `{}`: cannot open it exclusively: {e}",
            dev.display()
        )),
    }
}

/// What uses block device `name` (and, through holders, what is built on it), as
/// sentences with the fix. `depth` bounds the walk up the holder chain.
fn uses(name: &str, depth: usize, out: &mut Vec<String>) {
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

/// Where PCIe devices are listed: `/sys/bus/pci/devices`, or under `$REPROBENCH_SYSFS`
/// (a stand-in tree for tests where no such device exists).
fn pci_devices() -> PathBuf {
    std::env::var_os("REPROBENCH_SYSFS")
        .map_or_else(|| PathBuf::from("/sys"), PathBuf::from)
        .join("bus/pci/devices")
}

/// The kernel's block devices of a PCIe NVMe controller (`pci:0000:45:00.0`): none when
/// it is bound to vfio or uio for SPDK.
fn pci_namespaces(addr: &str) -> Vec<PathBuf> {
    let nvme = pci_devices().join(addr).join("nvme");
    let mut out = Vec::new();
    for ctrl in std::fs::read_dir(&nvme).into_iter().flatten().flatten() {
        for ns in std::fs::read_dir(ctrl.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = ns.file_name().to_string_lossy().into_owned();
            if ns.path().join("dev").exists() && name.contains('n') && name.starts_with("nvme") {
                out.push(Path::new("/dev").join(name));
            }
        }
    }
    out.sort();
    out
}

/// A PCIe controller SPDK is to drive: each of its kernel namespaces must be free.
fn check_pci(dev: &Path, addr: &str, runner: &dyn Runner) -> Findings {
    let mut f = Findings {
        device: dev.to_path_buf(),
        real: Some(dev.to_path_buf()),
        ..Findings::default()
    };
    if !pci_devices().join(addr).exists() {
        f.unusable = Some(format!("no PCIe device {addr} on this host"));
        return f;
    }
    for ns in pci_namespaces(addr) {
        let g = check(&ns, runner);
        f.in_use.extend(g.in_use);
        f.looks_used.extend(g.looks_used);
        f.signature = f.signature.or(g.signature);
        f.unchecked = f.unchecked.or(g.unchecked);
    }
    f
}

/// Looks at a device as it is now; call it again right before each destructive command.
/// `pci:<address>` names a PCIe NVMe controller (SPDK's drives).
pub fn check(dev: &Path, runner: &dyn Runner) -> Findings {
    use std::os::unix::fs::FileTypeExt;
    if let Some(addr) = dev.to_str().and_then(|d| d.strip_prefix("pci:")) {
        return check_pci(dev, addr, runner);
    }
    let mut f = Findings {
        device: dev.to_path_buf(),
        ..Findings::default()
    };
    let real = match std::fs::canonicalize(dev) {
        Ok(r) => r,
        Err(e) => {
            f.unusable = Some(format!("cannot find `{}`: {e}", dev.display()));
            return f;
        }
    };
    f.real = Some(real.clone());
    let meta = match std::fs::metadata(&real) {
        Ok(m) => m,
        Err(e) => {
            f.unusable = Some(format!("cannot stat `{}`: {e}", real.display()));
            return f;
        }
    };
    if meta.is_file() {
        f.is_file = true;
        return f;
    }
    if !meta.file_type().is_block_device() {
        f.unusable = Some(format!(
            "`{}` is neither a block device nor a file",
            real.display()
        ));
        return f;
    }
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    uses(&name, 0, &mut f.in_use);
    if let Some(rdev) = rdev_of(&real) {
        f.in_use.extend(processes_using(&name, rdev));
    }
    ask_the_kernel(&name, &real, &mut f);
    let parts = partitions(&name);
    for p in &parts {
        uses(p, 0, &mut f.in_use);
        if let Some(rdev) = rdev_of(&Path::new("/dev").join(p)) {
            f.in_use.extend(processes_using(p, rdev));
        }
    }
    if !parts.is_empty() {
        f.looks_used
            .push(format!("`{name}` has partitions: {}", parts.join(", ")));
    }
    signatures(&name, &real, runner, &mut f);
    f
}

/// The kernel's word, whatever the lists know: an exclusive open is refused while
/// anything claims the device.
fn ask_the_kernel(name: &str, real: &Path, f: &mut Findings) {
    match open_exclusive(real) {
        Ok(_) => {}
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            if f.in_use.is_empty() {
                f.in_use.push(busy_reason(name, real));
            }
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM)) => {
            let fix = if crate::process::is_root() {
                "this system does not let it be opened exclusively, so whether it is in use cannot be asked"
            } else {
                "run the collection as root (sudo reprobench collect ...)"
            };
            f.unchecked = Some(format!(
                "cannot open `{}` exclusively to ask the kernel whether it is in use ({e}): {fix}",
                real.display()
            ));
        }
        Err(e) => f.in_use.push(format!(
            "`{name}` cannot be opened exclusively to check it: {e}"
        )),
    }
}

/// What `blkid -p` finds on the device: a filesystem, RAID or LVM member, a partition
/// table.
fn signatures(name: &str, real: &Path, runner: &dyn Runner, f: &mut Findings) {
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
            f.signature = Some(kind.to_string());
            f.looks_used.push(format!(
                "`{name}` carries a {kind} signature (a filesystem, RAID or LVM member, or a partition table)"
            ));
        }
        // blkid exits 2 when it finds nothing.
        Err(crate::process::ProcessError::Failed { status, .. })
            if status.contains("exit status: 2") => {}
        Err(e) => f
            .looks_used
            .push(format!("could not check `{name}` for signatures: {e}")),
    }
}

/// Whether a confirmation names this device: the same path, or a path to the same
/// real device.
fn names(confirmed: &Path, f: &Findings) -> bool {
    confirmed == f.device || (f.real.is_some() && std::fs::canonicalize(confirmed).ok() == f.real)
}

/// The guard's answer: in use refuses always; looks used refuses unless confirmed.
pub fn decide(f: &Findings, confirmed: &[PathBuf]) -> Decision {
    let dev = f.device.display();
    if let Some(why) = &f.unusable {
        return Decision::Refused(format!("refused `{dev}`: {why}"));
    }
    if !f.in_use.is_empty() {
        return Decision::Refused(format!(
            "refused `{dev}`: it is in use, and --confirm-device cannot change that:\n  {}",
            f.in_use.join("\n  ")
        ));
    }
    if let Some(why) = &f.unchecked {
        return Decision::Refused(format!("refused `{dev}`: {why}"));
    }
    if f.looks_used.is_empty() {
        return Decision::Free;
    }
    if confirmed.iter().any(|c| names(c, f)) {
        return Decision::Confirmed(f.looks_used.clone());
    }
    Decision::Refused(format!(
        "refused `{dev}`: it looks used:\n  {}\nIf its contents may be destroyed, name exactly it: --confirm-device {dev}",
        f.looks_used.join("\n  ")
    ))
}

/// Checks `dev` right before `what` runs: Ok with the warnings to print, or the refusal.
pub fn before(
    what: &str,
    dev: &Path,
    confirmed: &[PathBuf],
    runner: &dyn Runner,
) -> Result<Vec<String>, String> {
    before_expecting(what, dev, None, confirmed, runner)
}

/// As [`before`], where an earlier step of the same collection put a signature of kind
/// `expect` on the device on purpose (`linux_raid_member` after `mdadm --create`): that
/// signature alone needs no confirmation. Being in use still refuses.
pub fn before_expecting(
    what: &str,
    dev: &Path,
    expect: Option<&str>,
    confirmed: &[PathBuf],
    runner: &dyn Runner,
) -> Result<Vec<String>, String> {
    let mut f = check(dev, runner);
    if let (Some(want), Some(found)) = (expect, f.signature.clone()) {
        if want == found && f.looks_used.len() == 1 {
            f.looks_used.clear();
        }
    }
    match decide(&f, confirmed) {
        Decision::Free => Ok(Vec::new()),
        Decision::Confirmed(w) => Ok(w),
        Decision::Refused(why) => Err(format!("{why}\n(before: {what})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::System;

    #[test]
    fn the_root_filesystem_device_is_refused_even_when_confirmed() {
        let Some(root) = root_device() else {
            crate::errln!("no block device holds / here (overlay?): nothing to check");
            return;
        };
        let f = check(Path::new(&root), &System);
        assert!(
            f.in_use.iter().any(|p| p.contains("mounted at /")),
            "{:?}",
            f
        );
        let d = decide(&f, &[PathBuf::from(&root)]);
        assert!(
            matches!(d, Decision::Refused(ref m) if m.contains("cannot change that")),
            "{d:?}"
        );
    }

    #[test]
    fn a_plain_file_is_free_and_a_missing_one_is_refused() {
        let tmp = tempfile::NamedTempFile::new().expect("tmp");
        assert_eq!(decide(&check(tmp.path(), &System), &[]), Decision::Free);
        let missing = check(Path::new("/nonexistent/dev"), &System);
        assert!(matches!(decide(&missing, &[]), Decision::Refused(_)));
    }

    #[test]
    fn only_looks_used_can_be_confirmed_and_only_for_that_device() {
        let f = Findings {
            device: "/dev/sdz".into(),
            looks_used: vec!["`sdz` carries a ext4 signature".into()],
            ..Findings::default()
        };
        assert!(matches!(decide(&f, &[]), Decision::Refused(_)));
        assert!(matches!(
            decide(&f, &["/dev/sdy".into()]),
            Decision::Refused(_)
        ));
        assert!(matches!(
            decide(&f, &["/dev/sdz".into()]),
            Decision::Confirmed(_)
        ));
        let busy = Findings {
            in_use: vec!["`sdz` is mounted at /data".into()],
            ..f
        };
        assert!(matches!(
            decide(&busy, &["/dev/sdz".into()]),
            Decision::Refused(_)
        ));
    }
}
