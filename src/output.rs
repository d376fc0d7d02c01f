//! The terminal: standard output that a closed pipe (`reprobench analyze x | head`) ends
//! quietly instead of with a panic, and nothing an input holds can forge. Every byte
//! written to standard output or standard error goes through [`write`] or [`write_err`],
//! which show control characters visibly (caret notation, as `cat -v`: ESC is `^[`, BEL
//! `^G`, CR `^M`), so a file name, a job name or a quoted log line cannot move the
//! cursor, clear the screen, set the title or overwrite a line. Names also lose their
//! line breaks where they enter ([`visible_name`]): a name cannot start a line of its own.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static QUIET: AtomicBool = AtomicBool::new(false);
static COLOR: AtomicBool = AtomicBool::new(false);
/// The progress bar being drawn on standard error, if any: everything else written there
/// is printed above it, never onto its line.
static BAR: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);

/// `--quiet`: standard error carries errors and warnings only (no notes, no progress,
/// no "wrote ..." lines).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// When status words are coloured (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set (to anything but empty) or TERM is dumb.
    Auto,
    Always,
    Never,
}

pub fn set_color(when: ColorWhen) {
    COLOR.store(
        color_on(when, std::io::stdout().is_terminal(), |k| {
            std::env::var_os(k)
        }),
        Ordering::Relaxed,
    );
}

/// The `--color` rule: `always` and `never` as said; `auto` colours a terminal unless
/// `NO_COLOR` is set and not empty (no-color.org) or `TERM` is `dumb`.
fn color_on(
    when: ColorWhen,
    terminal: bool,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            terminal
                && env("NO_COLOR").is_none_or(|v| v.is_empty())
                && env("TERM").is_none_or(|t| t != "dumb")
        }
    }
}

/// The terminal's width when standard output is one (`COLUMNS` first, as shells set it);
/// none when piped or redirected: then nothing is cut to fit.
pub fn width() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .or_else(|| {
            console::Term::stdout()
                .size_checked()
                .map(|(_, w)| usize::from(w))
        })
        .filter(|&w| w >= 20)
}

/// Shows `bar` until [`end_progress`]: lines written to standard error meanwhile are
/// printed above it.
pub fn start_progress(bar: &indicatif::ProgressBar) {
    if let Ok(mut b) = BAR.lock() {
        *b = Some(bar.clone());
    }
}

pub fn end_progress() {
    if let Ok(mut b) = BAR.lock() {
        *b = None;
    }
}

/// How a span of [`Styled`] text is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    Good,
    Bad,
    Warn,
}

impl Paint {
    fn code(self) -> &'static str {
        match self {
            Paint::Good => "\u{1b}[32m",
            Paint::Bad => "\u{1b}[1;31m",
            Paint::Warn => "\u{1b}[33m",
        }
    }
}

/// Text with coloured spans. The spans are recorded by the code that writes its own words
/// (status labels), never found by looking at the text: nothing an input holds can turn
/// into colour or any other terminal sequence.
#[derive(Debug, Default, Clone)]
pub struct Styled {
    text: String,
    marks: Vec<(usize, usize, Paint)>,
}

impl Styled {
    pub fn push_plain(&mut self, s: &str) {
        self.text.push_str(s);
    }

    pub fn painted(&mut self, s: &str, paint: Paint) {
        let at = self.text.len();
        self.text.push_str(s);
        self.marks.push((at, self.text.len(), paint));
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn into_text(self) -> String {
        self.text
    }

    /// The text with its spans in ANSI colour codes (every other control character
    /// shown as [`visible`] shows it).
    fn coloured(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + self.marks.len() * 9);
        let mut at = 0;
        for &(from, to, paint) in &self.marks {
            out.push_str(&visible(&self.text[at..from]));
            out.push_str(paint.code());
            out.push_str(&visible(&self.text[from..to]));
            out.push_str("\u{1b}[0m");
            at = to;
        }
        out.push_str(&visible(&self.text[at..]));
        out
    }
}

impl std::fmt::Write for Styled {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

/// Writes `s` to standard output, coloured when `--color` says so.
pub fn write_styled(s: &Styled) {
    if COLOR.load(Ordering::Relaxed) {
        write_raw(&s.coloured());
    } else {
        write(format_args!("{}", s.text()));
    }
}

/// `text` with every control character but a line break and a tab in caret notation.
pub fn visible(text: &str) -> Cow<'_, str> {
    shown(text, |c| c == '\n' || c == '\t')
}

/// A name from an input (a file name, a link target, a job name) as it may be shown
/// anywhere: every control character in caret notation, line breaks and tabs included,
/// and every character that reorders or hides text as `<U+202E>`.
pub fn visible_name(name: &str) -> Cow<'_, str> {
    shown(name, |_| false)
}

/// Characters that reorder or hide the text around them on a terminal (bidirectional
/// overrides and isolates, marks, zero-width characters): a name holding one could
/// show as another (`x.json<U+202E>nosj.txt` reads as `x.jsontxt.json`).
fn reorders_or_hides(c: char) -> bool {
    matches!(
        c as u32,
        0x061c | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xfeff
    )
}

fn shown(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let control = |c: char| (c.is_control() || reorders_or_hides(c)) && !keep(c);
    if !text.chars().any(control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c as u32 {
            _ if !control(c) => out.push(c),
            _ if reorders_or_hides(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            0x7f => out.push_str("^?"),
            n @ 0x80..=0x9f => {
                out.push_str("M-^");
                out.push(char::from((n - 0x80 + 0x40) as u8));
            }
            n => {
                out.push('^');
                out.push(char::from((n as u8) ^ 0x40));
            }
        }
    }
    Cow::Owned(out)
}

pub fn write(args: std::fmt::Arguments) {
    let text = std::fmt::format(args);
    write_raw(&visible(&text));
}

/// Standard output, as given (already made [`visible`]).
fn write_raw(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        write_err(format_args!(
            "error: cannot write to standard output: {e}\n"
        ));
        std::process::exit(2);
    }
}

/// Standard error, shown as [`write`] shows standard output; above the progress bar
/// while one is drawn. With `--quiet`, only errors and warnings (and the timing lines
/// asked for with `REPROBENCH_TIMING`).
pub fn write_err(args: std::fmt::Arguments) {
    let text = std::fmt::format(args);
    if quiet()
        && !["error", "warning", "timing:"]
            .iter()
            .any(|w| text.starts_with(w))
    {
        return;
    }
    let shown = visible(&text);
    let bar = BAR.lock().ok().and_then(|b| b.clone());
    match bar {
        Some(bar) if !bar.is_finished() && !bar.is_hidden() => {
            bar.suspend(|| {
                let _ = std::io::stderr().lock().write_all(shown.as_bytes());
            });
        }
        _ => {
            let _ = std::io::stderr().lock().write_all(shown.as_bytes());
        }
    }
}

/// `eprintln!` through [`write_err`]: what reprobench says on standard error.
#[macro_export]
macro_rules! errln {
    ($($t:tt)*) => { $crate::output::write_err(format_args!("{}\n", format_args!($($t)*))) };
}

/// `println!` that survives a closed pipe.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => { $crate::output::write(format_args!("{}\n", format_args!($($t)*))) };
}

/// `print!` that survives a closed pipe.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::output::write(format_args!($($t)*)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_flag_the_terminal_and_no_color() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert!(color_on(ColorWhen::Auto, true, env(&[])));
        assert!(!color_on(ColorWhen::Auto, false, env(&[])));
        assert!(!color_on(ColorWhen::Auto, true, env(&[("NO_COLOR", "1")])));
        // An empty NO_COLOR does not count (no-color.org).
        assert!(color_on(ColorWhen::Auto, true, env(&[("NO_COLOR", "")])));
        assert!(!color_on(ColorWhen::Auto, true, env(&[("TERM", "dumb")])));
        assert!(color_on(
            ColorWhen::Always,
            false,
            env(&[("NO_COLOR", "1")])
        ));
        assert!(!color_on(ColorWhen::Never, true, env(&[])));
    }

    #[test]
    fn only_marked_spans_are_coloured_and_input_cannot_forge_one() {
        let mut s = Styled::default();
        use std::fmt::Write as _;
        let _ = write!(s, "x \u{1b}[31mforged ");
        s.painted("FAIL", Paint::Bad);
        let _ = write!(s, " y");
        assert_eq!(s.text(), "x \u{1b}[31mforged FAIL y");
        assert_eq!(s.coloured(), "x ^[[31mforged \u{1b}[1;31mFAIL\u{1b}[0m y");
    }

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(
            visible("plain text\n\tand a tab"),
            "plain text\n\tand a tab"
        );
        assert_eq!(
            visible("\u{1b}]0;owned\u{7}\u{1b}[2Jx\ry\u{7f}\u{9b}31m"),
            "^[]0;owned^G^[[2Jx^My^?M-^[31m"
        );
        assert_eq!(visible_name("a\nerror: FORGED\tb"), "a^Jerror: FORGED^Ib");
        assert!(matches!(visible("nothing to do"), Cow::Borrowed(_)));
        // What is shown holds no control character at all, whatever came in.
        let all: String = (0u32..0x200).filter_map(char::from_u32).collect();
        assert!(!visible_name(&all).chars().any(char::is_control));
        assert!(!visible(&all)
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'));
    }

    /// A name cannot show as another by reordering: bidirectional overrides, isolates,
    /// marks and zero-width characters are named. Before, `adp-1-L1.json<U+202E>nosj.txt`
    /// was printed as it is and read `adp-1-L1.jsontxt.json`.
    #[test]
    fn characters_that_reorder_or_hide_text_are_named() {
        assert_eq!(
            visible_name("adp-1-L1.json\u{202e}nosj.txt"),
            "adp-1-L1.json<U+202E>nosj.txt"
        );
        for c in [
            '\u{200b}', '\u{200f}', '\u{2066}', '\u{2069}', '\u{feff}', '\u{61c}',
        ] {
            let text = format!("a{c}b");
            let shown = visible(&text);
            assert!(
                !shown.contains(c) && shown.contains("<U+"),
                "{c:?}: {shown}"
            );
        }
        assert_eq!(visible_name("résumé ü 🚀.json"), "résumé ü 🚀.json");
    }
}
