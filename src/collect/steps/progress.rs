//! Progress while the steps run: a bar with an ETA on a terminal, plain lines otherwise;
//! and durations as people read them.

use std::io::IsTerminal;

/// A progress bar with an ETA on a terminal; plain lines otherwise.
pub(super) struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

pub(super) fn progress(total_s: u64, steps: usize) -> Progress {
    if crate::output::quiet() {
        return Progress { bar: None };
    }
    if !std::io::stderr().is_terminal() {
        crate::errln!("{steps} steps, about {} to go", duration(total_s));
        return Progress { bar: None };
    }
    let bar = indicatif::ProgressBar::new(total_s);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} eta {eta} · {msg}",
    ) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    // What is said while it runs (notes, warnings) goes above the bar, not onto its line.
    crate::output::start_progress(&bar);
    Progress { bar: Some(bar) }
}

impl Progress {
    pub(super) fn step(&self, i: usize, n: usize, name: &str) {
        match &self.bar {
            Some(b) => b.set_message(format!("{}/{n} {name}", i + 1)),
            None => crate::errln!("[{}/{n}] {name}", i + 1),
        }
    }

    pub(super) fn done(&self, estimate_s: u64) {
        if let Some(b) = &self.bar {
            b.inc(estimate_s);
        }
    }

    pub(super) fn finish(&self) {
        if let Some(b) = &self.bar {
            crate::output::end_progress();
            b.finish_and_clear();
        }
    }
}

/// A session that returns early (an error saving the manifest) takes its bar down too.
impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `1 h 05 min`, `3 min`, `40 s`.
pub fn duration(s: u64) -> String {
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min", s.div_ceil(60)),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}
