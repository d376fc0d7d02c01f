//! Stage timing on stderr when `REPROBENCH_TIMING` is set: the time since the last stage,
//! since the process began, and the resident memory.

/// Stage times on stderr when `REPROBENCH_TIMING` is set: where a run's time goes.
pub struct Timer {
    on: bool,
    last: std::cell::Cell<std::time::Instant>,
}

/// When the process began its work (the first thing `main` does), for the timing lines'
/// "at" column: what the stages leave unaccounted is startup, serial work or exit.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

impl Timer {
    /// Marks the process's start; called once, first thing in `main`.
    pub fn mark_start() {
        STARTED.get_or_init(std::time::Instant::now);
    }

    pub fn start() -> Timer {
        Timer {
            on: std::env::var_os("REPROBENCH_TIMING").is_some(),
            last: std::cell::Cell::new(std::time::Instant::now()),
        }
    }

    pub fn lap(&self, what: &str) {
        if self.on {
            let now = std::time::Instant::now();
            let at = STARTED
                .get()
                .map(|s| format!(" (at {:.2} ms)", (now - *s).as_secs_f64() * 1000.0))
                .unwrap_or_default();
            crate::errln!(
                "timing: {what}: {:.2} ms{at}, resident {}",
                (now - self.last.get()).as_secs_f64() * 1000.0,
                resident()
            );
            self.last.set(now);
        }
    }
}

/// The process's resident memory and its peak (Linux `/proc/self/status`), for the
/// timing lines; "?" elsewhere.
fn resident() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    format!("{} (peak {})", field("VmRSS:"), field("VmHWM:"))
}
