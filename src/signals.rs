//! The signals that stop a collection (SIGINT from Ctrl-C or `kill`, SIGTERM from a job
//! scheduler or `timeout`, SIGHUP from a closed ssh session), caught once: the handler
//! only records which arrived; the step runner sees it, stops the running program's
//! whole process group, and the collection records the signal and exits with 128+N.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static PENDING: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The signals a collection stops on.
pub const STOPPING: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Catches [`STOPPING`] from now on (idempotent). The handler stores the signal's number
/// in an atomic, which is all a signal handler may safely do.
pub fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    for sig in STOPPING {
        let _ = signal_hook::flag::register_usize(sig, &PENDING, sig as usize);
    }
}

/// Whether the handlers are installed: programs are then started in their own process
/// group, and stopped by the runner when a signal arrives.
pub fn installed() -> bool {
    INSTALLED.load(Ordering::SeqCst)
}

/// The signal that arrived, if one did.
pub fn pending() -> Option<i32> {
    match PENDING.load(Ordering::SeqCst) {
        0 => None,
        s => i32::try_from(s).ok(),
    }
}

/// `SIGINT`, `SIGTERM`, `SIGHUP`, else `signal N`.
pub fn name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGKILL => "SIGKILL".into(),
        n => format!("signal {n}"),
    }
}

/// The state and parent of a process, from `/proc/<pid>/stat`.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) S ppid ...`: the command may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    let ppid = f.next()?.parse().ok()?;
    Some((state, ppid))
}

fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X')
}

/// Adds to `known` every process whose parent is in it (fio's job processes leave its
/// process group with setsid(), so the group alone does not reach them).
fn add_descendants(known: &mut Vec<i32>) {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return;
    };
    let all: Vec<(i32, i32)> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| stat(pid).map(|(_, ppid)| (pid, ppid)))
        .collect();
    loop {
        let before = known.len();
        for (pid, ppid) in &all {
            if known.contains(ppid) && !known.contains(pid) {
                known.push(*pid);
            }
        }
        if known.len() == before {
            return;
        }
    }
}

/// Stops the program started as `root` (the leader of its own process group) and
/// everything it started: the group and every descendant get `sig` (SIGINT and SIGTERM
/// as they came, SIGTERM for a hangup: programs end cleanly on those, fio writing what
/// it measured), then SIGKILL whatever is left after `grace` (a background `iostat`
/// ignores SIGINT; fio's job processes do not die with their parent). `reap` collects
/// the direct child. Returns whether SIGKILL was needed.
pub fn stop_group(root: u32, sig: i32, reap: impl Fn(), grace: std::time::Duration) -> bool {
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::unistd::Pid;
    let Ok(root) = i32::try_from(root) else {
        return false;
    };
    if root <= 1 {
        return false;
    }
    let forward = match sig {
        libc::SIGINT | libc::SIGTERM => sig,
        _ => libc::SIGTERM,
    };
    let forward = Signal::try_from(forward).unwrap_or(Signal::SIGTERM);
    let mut known = vec![root];
    add_descendants(&mut known);
    let _ = killpg(Pid::from_raw(root), forward);
    for pid in &known {
        let _ = kill(Pid::from_raw(*pid), forward);
    }
    let until = std::time::Instant::now() + grace;
    let any_alive = |known: &mut Vec<i32>| {
        reap();
        add_descendants(known);
        known.iter().any(|p| alive(*p))
    };
    while std::time::Instant::now() < until {
        if !any_alive(&mut known) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = killpg(Pid::from_raw(root), Signal::SIGKILL);
    for pid in known.iter().filter(|p| alive(**p)) {
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
    while any_alive(&mut known) && std::time::Instant::now() < until + grace {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_stopping_signals() {
        assert_eq!(name(libc::SIGINT), "SIGINT");
        assert_eq!(name(libc::SIGTERM), "SIGTERM");
        assert_eq!(name(libc::SIGHUP), "SIGHUP");
        assert_eq!(name(64), "signal 64");
    }
}
