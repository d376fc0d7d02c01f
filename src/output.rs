//! The terminal: standard output that a closed pipe (`reprobench analyze x | head`) ends
//! quietly instead of with a panic, and nothing an input holds can forge. Every byte
//! written to standard output or standard error goes through [`write`] or [`write_err`],
//! which show control characters visibly (caret notation, as `cat -v`: ESC is `^[`, BEL
//! `^G`, CR `^M`), so a file name, a job name or a quoted log line cannot move the
//! cursor, clear the screen, set the title or overwrite a line. Names also lose their
//! line breaks where they enter ([`visible_name`]): a name cannot start a line of its own.

use std::borrow::Cow;
use std::io::Write;

/// `text` with every control character but a line break and a tab in caret notation.
pub fn visible(text: &str) -> Cow<'_, str> {
    shown(text, |c| c == '\n' || c == '\t')
}

/// A name from an input (a file name, a link target, a job name) as it may be shown
/// anywhere: every control character in caret notation, line breaks and tabs included.
pub fn visible_name(name: &str) -> Cow<'_, str> {
    shown(name, |_| false)
}

fn shown(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let control = |c: char| (c.is_control()) && !keep(c);
    if !text.chars().any(control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c as u32 {
            _ if !control(c) => out.push(c),
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
    let mut out = std::io::stdout().lock();
    if let Err(e) = out
        .write_all(visible(&text).as_bytes())
        .and_then(|_| out.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        write_err(format_args!(
            "error: cannot write to standard output: {e}\n"
        ));
        std::process::exit(2);
    }
}

/// Standard error, shown as [`write`] shows standard output.
pub fn write_err(args: std::fmt::Arguments) {
    let text = std::fmt::format(args);
    let _ = std::io::stderr()
        .lock()
        .write_all(visible(&text).as_bytes());
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
}
