//! Lines and blanks in a text's bytes: blanks and colour codes skipped, where a line
//! starts and ends, its indentation.

/// Skips blanks and ANSI colour sequences from `at`.
pub(crate) fn skip_blank(b: &[u8], mut at: usize) -> usize {
    loop {
        while at < b.len() && matches!(b[at], b' ' | b'\t') {
            at += 1;
        }
        if at + 1 < b.len() && b[at] == 0x1b && b[at + 1] == b'[' {
            at += 2;
            while at < b.len() && !b[at].is_ascii_alphabetic() {
                at += 1;
            }
            at = (at + 1).min(b.len());
            continue;
        }
        return at;
    }
}

/// Lines end at a newline, and at a NUL (an environ file's records are NUL-separated).
pub(super) fn line_start(b: &[u8], at: usize) -> usize {
    b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == 0)
        .map_or(0, |i| i + 1)
}

pub(crate) fn line_end(b: &[u8], at: usize) -> usize {
    b[at..]
        .iter()
        .position(|&c| c == b'\n' || c == b'\r' || c == 0)
        .map_or(b.len(), |i| at + i)
}

/// Where the blanks before `at` on its line begin (`at` when none).
pub(super) fn blank_back(b: &[u8], mut at: usize) -> usize {
    while at > 0 && matches!(b[at - 1], b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
        at -= 1;
    }
    at
}

/// Whether `at` is where a line starts.
pub(super) fn at_line_start(b: &[u8], at: usize) -> bool {
    at == 0 || matches!(b[at - 1], b'\n' | 0)
}

pub(crate) fn indent(b: &[u8], start: usize) -> usize {
    b[start..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count()
}
