//! The device guard on real loop devices: in use (mounted directly or through a partition,
//! active swap, held by dm or md) is refused even with --confirm-device; looks used
//! (a signature only) needs exactly that confirmation; links resolve to the real device;
//! the guard looks again before every step; a run fio refuses is a failed run. The
//! kernel's exclusive open catches what no list of ours names: the device under a second
//! loop device, mounted in another mount namespace, or held exclusively by another
//! program, and it is held while fio runs so nothing can claim the device meanwhile.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

fn ok(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

/// A loop device, or a skip reason (CI runs as root with loop devices: there it must work).
fn loop_dev(tmp: &Path, name: &str, mb: u64) -> Option<Loop> {
    loop_device(&tmp.join(name), mb, &[])
}

/// Unmounts (and removes swap) when dropped, even when an assertion fails.
struct Undo(Vec<Vec<String>>);

impl Drop for Undo {
    fn drop(&mut self) {
        for c in self.0.iter().rev() {
            let _ = Command::new(&c[0]).args(&c[1..]).output();
        }
    }
}

fn collect_precondition(dev: &str, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["--only", "precondition", "--size", "8m", "--runtime", "1"];
    args.extend_from_slice(extra);
    collect_storage(dev, out, &args)
}

fn mkfs(dev: &str) -> bool {
    ok(Command::new("mkfs.ext4").args(["-q", "-F", dev]))
}

#[test]
fn a_mounted_device_is_refused_even_when_confirmed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "m.img", 32) else {
        return;
    };
    assert!(mkfs(l.path()), "mkfs.ext4");
    let mnt = tmp.path().join("mnt");
    fs::create_dir_all(&mnt).expect("mkdir");
    assert!(ok(Command::new("mount").arg(l.path()).arg(&mnt)), "mount");
    let _undo = Undo(vec![vec!["umount".into(), mnt.display().to_string()]]);
    let out = tmp.path().join("results");
    let r = collect_precondition(l.path(), &out, &["--confirm-device", l.path()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("is mounted at"), "{}", r.stderr);
    assert!(
        r.stderr.contains("--confirm-device cannot change that"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("umount"), "says what to do: {}", r.stderr);
    assert!(
        !out.join("raid10/precondition.json").exists(),
        "fio never ran"
    );
    // The same device through a /dev/disk/by-id style link.
    let by_id = tmp.path().join("disk/by-id");
    fs::create_dir_all(&by_id).expect("mkdir");
    let link = by_id.join("nvme-FAKE_SERIAL");
    std::os::unix::fs::symlink(&l.0, &link).expect("link");
    let r = collect_precondition(
        link.to_str().unwrap_or(""),
        &out,
        &["--confirm-device", link.to_str().unwrap_or("")],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("is mounted at"), "{}", r.stderr);
}

#[test]
fn a_device_mounted_through_a_partition_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "p.img", 64) else {
        return;
    };
    // An MBR with one Linux partition from sector 2048.
    let mut mbr = vec![0u8; 512];
    mbr[446 + 4] = 0x83;
    mbr[446 + 8..446 + 12].copy_from_slice(&2048u32.to_le_bytes());
    mbr[446 + 12..446 + 16].copy_from_slice(&100_000u32.to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    fs::write(&l.0, &mbr).expect("write the partition table");
    let part = format!("{}p1", l.path());
    let _ = Command::new("partx").args(["-a", l.path()]).output();
    if !Path::new(&part).exists() {
        skipped("the kernel made no partition device for the loop device here");
        return;
    }
    let _parts = Undo(vec![vec![
        "partx".into(),
        "-d".into(),
        l.path().to_string(),
    ]]);
    assert!(mkfs(&part), "mkfs.ext4 on the partition");
    let mnt = tmp.path().join("mnt");
    fs::create_dir_all(&mnt).expect("mkdir");
    assert!(ok(Command::new("mount").arg(&part).arg(&mnt)), "mount");
    let _undo = Undo(vec![vec!["umount".into(), mnt.display().to_string()]]);
    let r = collect_precondition(
        l.path(),
        &tmp.path().join("results"),
        &["--confirm-device", l.path()],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let name =
        l.0.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    assert!(
        r.stderr.contains(&format!("`{name}p1` is mounted at")),
        "{}",
        r.stderr
    );
}

#[test]
fn active_swap_is_refused_even_when_confirmed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "s.img", 32) else {
        return;
    };
    assert!(ok(Command::new("mkswap").arg(l.path())), "mkswap");
    if !ok(Command::new("swapon").arg(l.path())) {
        skipped("swapon is not allowed here");
        return;
    }
    let _undo = Undo(vec![vec!["swapoff".into(), l.path().to_string()]]);
    let r = collect_precondition(
        l.path(),
        &tmp.path().join("results"),
        &["--confirm-device", l.path()],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("in use as swap: swapoff"), "{}", r.stderr);
}

#[test]
fn a_member_of_a_dm_or_md_device_is_refused_even_when_confirmed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "h.img", 32) else {
        return;
    };
    let name = format!("reprobench-guard-{}", std::process::id());
    let table = format!("0 {} linear {} 0", 32 * 2048, l.path());
    let made = Command::new("dmsetup")
        .args(["create", &name, "--table", &table])
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        // md needs mdadm and the md driver, which such kernels lack too.
        skipped("device-mapper is not available in this kernel (dmsetup create failed); md RAID cannot be built here either");
        return;
    }
    let _undo = Undo(vec![vec!["dmsetup".into(), "remove".into(), name.clone()]]);
    let r = collect_precondition(
        l.path(),
        &tmp.path().join("results"),
        &["--confirm-device", l.path()],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("is held by `dm-"), "{}", r.stderr);
}

#[test]
fn a_signature_only_device_needs_exactly_its_confirmation() {
    if !need_all(&["fio", "iostat", "mkfs.ext4"]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "sig.img", 64) else {
        return;
    };
    assert!(mkfs(l.path()), "mkfs.ext4");
    let out = tmp.path().join("results");
    let r = collect_precondition(l.path(), &out, &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("carries a ext4 signature"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(&format!("--confirm-device {}", l.path())),
        "{}",
        r.stderr
    );
    let r = collect_precondition(l.path(), &out, &["--confirm-device", "/dev/loop-other"]);
    assert_eq!(r.code, 2, "confirming another device confirms nothing");
    let r = collect_precondition(l.path(), &out, &["--confirm-device", l.path()]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains(" 0 failed"), "{}", r.stdout);
    assert!(out.join("raid10/precondition.json").is_file());
}

#[test]
fn a_run_fio_aborts_is_reported_failed_not_written() {
    if !need_all(&["fio", "iostat"]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_device(&tmp.path().join("ro.img"), 32, &["--read-only"]) else {
        return;
    };
    let out = tmp.path().join("results");
    let r = collect_precondition(l.path(), &out, &[]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains(" 1 failed"), "{}", r.stdout);
    let manifest: serde_json::Value = serde_json::from_slice(
        &fs::read(out.join("manifests/storage-raid10.json")).expect("manifest"),
    )
    .expect("json");
    let step = manifest["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == "raid10/precondition")
        .cloned()
        .expect("the precondition step");
    let result = step["result"].as_str().unwrap_or_default().to_string();
    assert!(result.starts_with("failed: "), "{result}");
    assert!(
        !out.join("raid10/precondition.json").exists(),
        "a failed run is never left where analysis reads runs"
    );
}

#[test]
fn the_guard_looks_again_before_every_step() {
    use reprobench::collect::steps::{Check, Origin, Session, Step, Write};
    use reprobench::process::{Invocation, Output, ProcessError, Runner, System};
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "between.img", 32) else {
        return;
    };
    let mnt = tmp.path().join("mnt");
    fs::create_dir_all(&mnt).expect("mkdir");
    let _undo = Undo(vec![vec!["umount".into(), mnt.display().to_string()]]);
    // The first step formats and mounts the device (as someone else might, between runs).
    struct Runs(PathBuf, PathBuf);
    impl Runner for Runs {
        fn run(&self, inv: &Invocation) -> Result<Output, ProcessError> {
            if inv.display().starts_with("first") {
                let dev = self.0.display().to_string();
                let _ = Command::new("mkfs.ext4").args(["-q", "-F", &dev]).output();
                let _ = Command::new("mount").arg(&dev).arg(&self.1).output();
                return Ok(Output::default());
            }
            System.run(inv)
        }
    }
    // Steps whose command claims the device itself: the guard's hold is released before
    // each runs, so the first one can mount it (as another program might, between runs).
    let step = |n: &str| {
        Step::new(
            n,
            Origin::tool("a test step"),
            Invocation::new(n),
            Check::Exit,
        )
        .writes(Write::claimed(&l.0))
    };
    let mut session = Session::new(
        tmp.path().join("manifest.json"),
        "test",
        "guard",
        serde_json::Value::Null,
        vec![l.0.clone()],
    );
    let ran = session
        .execute(
            &[step("first"), step("second")],
            &Runs(l.0.clone(), mnt.clone()),
        )
        .expect("runs");
    assert_eq!(ran.ok, 1);
    assert_eq!(ran.exit_code(), 2, "{:?}", ran.records);
    assert!(
        ran.records[1].result.contains("is mounted at"),
        "{:?}",
        ran.records[1]
    );
    assert_eq!(ran.records[1].exit, "not run");
}

/// `e2fsck -n` on `dev`: the file system is intact.
fn fsck_clean(dev: &str) -> bool {
    Command::new("e2fsck")
        .args(["-n", "-f", dev])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The refusal of a device in use: exit 2, fio never ran, no confirmation suggested.
fn refused_in_use(r: &Run, out: &Path, dev: &str) {
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        !r.stderr.contains(&format!("--confirm-device {dev}")),
        "never suggests confirming a device in use: {}",
        r.stderr
    );
    assert!(
        !out.join("raid10/precondition.json").exists(),
        "fio never ran"
    );
}

#[test]
fn a_device_under_a_second_loop_device_that_is_mounted_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "under.img", 64) else {
        return;
    };
    assert!(mkfs(l.path()), "mkfs.ext4");
    let top = Command::new("losetup")
        .args(["-f", "--show", l.path()])
        .output()
        .expect("losetup");
    let top = String::from_utf8_lossy(&top.stdout).trim().to_string();
    assert!(top.starts_with("/dev/loop"), "a second loop device: {top}");
    let mnt = tmp.path().join("mnt");
    fs::create_dir_all(&mnt).expect("mkdir");
    let undo = Undo(vec![
        vec!["losetup".into(), "-d".into(), top.clone()],
        vec!["umount".into(), mnt.display().to_string()],
    ]);
    assert!(ok(Command::new("mount").arg(&top).arg(&mnt)), "mount");
    let out = tmp.path().join("results");
    for extra in [&[][..], &["--confirm-device", l.path()][..]] {
        let r = collect_precondition(l.path(), &out, extra);
        refused_in_use(&r, &out, l.path());
        assert!(r.stderr.contains("backs the loop device"), "{}", r.stderr);
        assert!(
            r.stderr.contains("losetup -d"),
            "says what to do: {}",
            r.stderr
        );
    }
    drop(undo);
    assert!(fsck_clean(l.path()), "the file system is intact");
}

#[test]
fn a_device_mounted_in_another_mount_namespace_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "ns.img", 64) else {
        return;
    };
    assert!(mkfs(l.path()), "mkfs.ext4");
    let mnt = tmp.path().join("nsmnt");
    fs::create_dir_all(&mnt).expect("mkdir");
    let mut child = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(format!(
            "mount {} {} && echo mounted && exec sleep 60",
            l.path(),
            mnt.display()
        ))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("unshare");
    let mut line = String::new();
    {
        use std::io::BufRead;
        let stdout = child.stdout.take().expect("stdout");
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
    }
    if line.trim() != "mounted" {
        let _ = child.kill();
        let _ = child.wait();
        assert!(std::env::var_os("CI").is_none(), "CI can unshare and mount");
        skipped("unshare -m could not mount here");
        return;
    }
    let here = fs::read_to_string("/proc/self/mountinfo").expect("mountinfo");
    assert!(
        !here.contains(&mnt.display().to_string()),
        "the mount is not visible in this namespace"
    );
    let out = tmp.path().join("results");
    for extra in [&[][..], &["--confirm-device", l.path()][..]] {
        let r = collect_precondition(l.path(), &out, extra);
        refused_in_use(&r, &out, l.path());
        assert!(r.stderr.contains("EBUSY"), "{}", r.stderr);
        assert!(
            r.stderr.contains("in the mount namespace of pid"),
            "says where: {}",
            r.stderr
        );
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(fsck_clean(l.path()), "the file system is intact");
}

/// A python3 holding `dev` open with O_EXCL until killed; None without python3.
fn hold_exclusively(dev: &str) -> Option<std::process::Child> {
    helper(
        "python3",
        &[
            "-c",
            "import os, sys, time; os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print('held', flush=True); time.sleep(60)",
            dev,
        ],
    )
}

#[test]
fn a_device_another_program_holds_exclusively_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "held.img", 64) else {
        return;
    };
    if !need("python3") {
        return;
    }
    assert!(mkfs(l.path()), "mkfs.ext4");
    let mut holder = hold_exclusively(l.path()).expect("python3 holds the device");
    let out = tmp.path().join("results");
    for extra in [&[][..], &["--confirm-device", l.path()][..]] {
        let r = collect_precondition(l.path(), &out, extra);
        refused_in_use(&r, &out, l.path());
        assert!(
            r.stderr.contains(&format!("pid {} (python3)", holder.id())),
            "says who: {}",
            r.stderr
        );
    }
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(fsck_clean(l.path()), "the file system is intact");
}

#[test]
fn while_fio_runs_the_device_is_held_and_nothing_else_can_claim_it() {
    if !need_all(&["fio", "iostat", "python3"]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "busy.img", 64) else {
        return;
    };
    let out = tmp.path().join("results");
    let mut collect = bin()
        .args(["collect", "storage", "--array", "raid10", "--dev", l.path()])
        .arg("-o")
        .arg(&out)
        .args([
            "--only",
            "precondition",
            "--size",
            "8m",
            "--runtime",
            "4",
            "--time-based",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("collect");
    // Wait until fio has the device (its output file appears), then try to claim it.
    let started = std::time::Instant::now();
    let mut claimed_meanwhile = None;
    while started.elapsed().as_secs() < 30 {
        // This run's fio only: other tests run fio's precondition step on files at
        // the same time, and claiming the device before this fio starts proves nothing.
        let fio_running = Command::new("pgrep")
            .args([
                "-f",
                &format!("fio .*--filename={} --name=precondition", l.path()),
            ])
            .output()
            .is_ok_and(|o| o.status.success());
        if fio_running {
            std::thread::sleep(std::time::Duration::from_millis(500));
            claimed_meanwhile = Some(hold_exclusively(l.path()));
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let status = collect.wait().expect("collect ends");
    let claimed = claimed_meanwhile.expect("fio ran");
    assert!(
        claimed.is_none(),
        "another exclusive open succeeded while fio ran on the device"
    );
    assert!(status.success(), "the run itself went on: {status:?}");
    assert!(
        hold_exclusively(l.path()).map(|mut c| c.kill()).is_some(),
        "released once the run ended"
    );
}

/// A helper process that does something to `dev`, prints `held`, and waits: None when it
/// could not (the test then fails, saying so).
fn helper(program: &str, args: &[&str]) -> Option<std::process::Child> {
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut line = String::new();
    use std::io::BufRead;
    let stdout = child.stdout.take()?;
    let _ = std::io::BufReader::new(stdout).read_line(&mut line);
    (line.trim() == "held").then_some(child)
}

/// Refused for `holder`, in a dry run and a real one, confirmed or not, naming its pid
/// and what it does.
fn refused_for(l: &Loop, tmp: &Path, pid: u32, how: &str) {
    let out = tmp.join("results");
    for extra in [
        &["--dry-run"][..],
        &[][..],
        &["--confirm-device", l.path()][..],
    ] {
        let r = collect_precondition(l.path(), &out, extra);
        refused_in_use(&r, &out, l.path());
        assert!(
            r.stderr.contains(&format!("pid {pid} (")) && r.stderr.contains(how),
            "{extra:?}: names pid {pid} and `{how}`: {}",
            r.stderr
        );
    }
}

/// A python3 program given the device's path holds it as `script` does, then the
/// collection is refused, naming its pid and `how`.
fn refused_while_python_holds(image: &str, script: &str, how: &str) {
    if !need("python3") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), image, 32) else {
        return;
    };
    let mut holder =
        helper("python3", &["-c", script, l.path()]).expect("python3 holds the device");
    refused_for(&l, tmp.path(), holder.id(), how);
    let _ = holder.kill();
    let _ = holder.wait();
}

#[test]
fn a_device_another_program_has_open_for_writing_is_refused() {
    refused_while_python_holds(
        "rw.img",
        "import os, sys, time; os.open(sys.argv[1], os.O_RDWR); print('held', flush=True); time.sleep(60)",
        "has it open",
    );
}

#[test]
fn a_device_mapped_by_a_program_that_closed_its_descriptor_is_refused() {
    refused_while_python_holds(
        "mapped.img",
        // libc's mmap itself: Python's mmap module keeps a descriptor of its own.
        "import ctypes, os, sys, time\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.mmap.restype = ctypes.c_void_p\nlibc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]\nfd = os.open(sys.argv[1], os.O_RDWR)\np = libc.mmap(None, 65536, 3, 1, fd, 0)\nassert p not in (None, ctypes.c_void_p(-1).value)\nos.close(fd)\nassert not [f for f in os.listdir('/proc/self/fd') if os.path.realpath('/proc/self/fd/' + f) == os.path.realpath(sys.argv[1])]\nprint('held', flush=True)\ntime.sleep(60)",
        "has it mapped into memory",
    );
}

#[test]
fn a_device_exported_by_qemu_nbd_in_its_own_pid_and_mount_namespace_is_refused() {
    if !need_all(&["qemu-nbd", "unshare"]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(l) = loop_dev(tmp.path(), "nbd.img", 32) else {
        return;
    };
    let sock = tmp.path().join("nbd.sock");
    // unshare forks qemu-nbd into new pid and mount namespaces; qemu-nbd serves the
    // device on a unix socket (no nbd module needed) until killed.
    let mut export = std::process::Command::new("unshare")
        .args(["--pid", "--mount", "--fork", "--kill-child"])
        .args(["qemu-nbd", "--format=raw", "--persistent", "--socket"])
        .arg(&sock)
        .arg(l.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("unshare runs");
    let started = std::time::Instant::now();
    while !sock.exists() && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if !sock.exists() {
        let _ = export.kill();
        let out = export.wait_with_output().expect("wait");
        assert!(
            !everything_installed(),
            "qemu-nbd did not start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        skipped("qemu-nbd could not export the device here (new pid and mount namespaces)");
        return;
    }
    // qemu-nbd's pid as this namespace sees it: the child of unshare.
    let children = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", export.id()))
        .unwrap_or_default();
    let pid: u32 = children
        .split_whitespace()
        .next()
        .and_then(|p| p.parse().ok())
        .expect("unshare's child is qemu-nbd");
    refused_for(&l, tmp.path(), pid, "has it open");
    let _ = export.kill();
    let _ = export.wait();
}
