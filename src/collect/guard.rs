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

mod exclusive;
mod usage;

use exclusive::ask_the_kernel;
pub use exclusive::{hold, Hold};
pub use usage::root_device;
use usage::{partitions, processes_using, rdev_of, uses};

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
