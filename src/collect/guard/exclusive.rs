//! The kernel's own defence: an exclusive (`O_EXCL`) open, asked before a command and
//! held for a command's whole run, and what the kernel's refusal means.

use std::path::Path;

use super::usage::{dev_number, holders_of, mounts_elsewhere, rdev_of};
use super::Findings;

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

/// The kernel's word, whatever the lists know: an exclusive open is refused while
/// anything claims the device.
pub(super) fn ask_the_kernel(name: &str, real: &Path, f: &mut Findings) {
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
