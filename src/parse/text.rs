//! Reading input files safely: a size cap, no binary junk, line offsets.

use std::io::Read;
use std::path::Path;

use crate::error::{ParseError, Problem};

/// Results files are small (a fio JSON of 128 jobs with json+ bins is a few MB); anything
/// larger than this is not one of ours, and parsing it would take ten times its size.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a whole file, refusing non-regular files and files over [`MAX_FILE_BYTES`].
/// How a file that could not be read at all is said (the reader's problem, not the
/// file's content): see [`is_unreadable`].
const CANNOT_READ: &str = "cannot read: ";
const NOT_REGULAR: &str = "not a regular file";

/// Whether a reason says the file could not be read here (permissions, a special file, a
/// read error), as opposed to what its content is.
pub fn is_unreadable(reason: &str) -> bool {
    reason.starts_with(CANNOT_READ) || reason.starts_with(NOT_REGULAR)
}

pub fn read_capped(path: &Path) -> Result<Vec<u8>, ParseError> {
    let mut buf = Vec::new();
    read_capped_into(path, &mut buf)?;
    Ok(buf)
}

/// [`read_capped`] into a buffer the caller keeps (cleared first): reading many files
/// into one buffer per thread touches memory once, not once per file.
pub fn read_capped_into(path: &Path, buf: &mut Vec<u8>) -> Result<(), ParseError> {
    buf.clear();
    let fail = |reason: String| ParseError::new(path, None, reason);
    // Looked at before opening: opening a FIFO would wait for a writer.
    let meta = std::fs::metadata(path).map_err(|e| fail(format!("{CANNOT_READ}{e}")))?;
    if !meta.is_file() {
        return Err(fail(NOT_REGULAR.into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(fail(format!(
            "{} bytes is larger than the {} MiB a results file may be",
            meta.len(),
            MAX_FILE_BYTES >> 20
        )));
    }
    let mut file = std::fs::File::open(path).map_err(|e| fail(format!("{CANNOT_READ}{e}")))?;
    let filled = read_sized(&mut file, meta.len() as usize, buf)
        .map_err(|e| fail(format!("{CANNOT_READ}{e}")))?;
    if filled as u64 > MAX_FILE_BYTES {
        return Err(fail(format!(
            "it grew past the {} MiB a results file may be while it was read",
            MAX_FILE_BYTES >> 20
        )));
    }
    Ok(())
}

/// Reads a file whose size was `size` when looked at into `buf` (cleared), in as few
/// reads as its size allows: one for the bytes, one that finds the end. (`Read::take`
/// hides the size from `read_to_end`, which then reads 8, 16, 32, 64 KiB ... in turn: five
/// system calls for an 84 KB iostat log instead of two.) A file that grows meanwhile is
/// read on, up to one byte past [`MAX_FILE_BYTES`]. Returns the bytes read.
fn read_sized(file: &mut std::fs::File, size: usize, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    const CAP: usize = MAX_FILE_BYTES as usize + 1;
    buf.clear();
    // One byte more than the size: the read that finds the end needs no larger buffer.
    buf.resize((size + 1).min(CAP), 0);
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if buf.len() >= CAP {
                break;
            }
            buf.resize((buf.len() * 2).clamp(8192, CAP), 0);
        }
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(filled)
}

/// The bytes as text: borrowed when they are UTF-8, else with each invalid sequence
/// replaced, as `String::from_utf8_lossy` does. The check runs 16 or 32 bytes at a time
/// (simdutf8), several times faster than the standard one on results files.
pub fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Whether the bytes are UTF-8 (checked as [`lossy`] does).
pub fn is_utf8(bytes: &[u8]) -> bool {
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// Rejects input that is plainly not text.
pub struct TextCheck;

impl TextCheck {
    pub fn of(bytes: &[u8]) -> Result<(), Problem> {
        let head = &bytes[..bytes.len().min(8192)];
        if memchr::memchr(0, head).is_some() {
            return Err(Problem::whole("binary data, not a text file"));
        }
        if controls(head) * 20 > head.len().max(1) {
            return Err(Problem::whole("binary data, not a text file"));
        }
        Ok(())
    }
}

/// Control bytes other than tab, newlines, form feed and escape. Counted without a branch,
/// in runs of 255 into one byte each, so the compiler counts 16 bytes at a time (a test
/// holds it to the byte-by-byte count).
fn controls(head: &[u8]) -> usize {
    let odd =
        |b: u8| u8::from(b < 0x09) | (u8::from(b.wrapping_sub(0x0e) < 0x12) & u8::from(b != 0x1b));
    head.chunks(255)
        .map(|run| usize::from(run.iter().fold(0u8, |n, &b| n + odd(b))))
        .sum()
}

/// serde_json's message without its " at line L column C": the line it counts is the
/// document's, and the caller says the line in the file's own numbering.
pub fn json_message(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}

/// What is wrong with a JSON document, worded once for every reader: truncated (the file
/// ends inside `inside`: the document, the list) or invalid (serde_json's message).
pub fn json_problem(e: &serde_json::Error, inside: &str) -> String {
    if e.is_eof() {
        format!("truncated JSON: the file ends inside the {inside}")
    } else {
        format!("invalid JSON: {}", json_message(e))
    }
}

/// Byte offsets at which each line starts (the first line starts at 0).
pub fn line_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        memchr::memchr_iter(b'\n', bytes)
            .filter(|&i| i + 1 < bytes.len())
            .map(|i| i + 1),
    );
    if bytes.is_empty() {
        starts.clear();
    }
    starts
}

/// The text's lines, split at `\n` (found with memchr, several times faster than the
/// standard search) and without it, as `str::lines` gives them but with a `\r` before
/// the `\n` kept (the readers trim): a last `\n` ends the last line.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= text.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| pos + i);
        // Both ends are at `\n` or the text's ends: char boundaries.
        let line = &text[pos..end];
        pos = end + 1;
        Some(line)
    })
}

/// `str::trim`, answered at once for a line that starts and ends with a visible ASCII
/// character (the usual one).
pub(crate) fn trim(s: &str) -> &str {
    let visible = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_graphic());
    if visible(s.as_bytes().first()) && visible(s.as_bytes().last()) {
        s
    } else {
        s.trim()
    }
}

/// `str::trim_start`, as [`trim`].
pub(crate) fn trim_start(s: &str) -> &str {
    if s.as_bytes().first().is_some_and(u8::is_ascii_graphic) {
        s
    } else {
        s.trim_start()
    }
}

/// The first of the fields `str::split_whitespace` gives, answered at once for ASCII.
pub(crate) fn first_field(s: &str) -> Option<&str> {
    let s = trim_start(s);
    let ascii_blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    match s.bytes().position(|b| ascii_blank(&b) || !b.is_ascii()) {
        Some(end) if s.as_bytes()[end].is_ascii() => Some(&s[..end]).filter(|f| !f.is_empty()),
        Some(_) => s.split_whitespace().next(),
        None => Some(s).filter(|f| !f.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_standard_split_at_newlines() {
        let alphabet: Vec<char> = "a\n\r é".chars().collect();
        let mut rng = crate::test_rng::XorShift(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let seed = rng.next();
            let len = (seed % 12) as usize;
            let t: String = (0..len)
                .map(|k| alphabet[((seed >> (k * 5)) % alphabet.len() as u64) as usize])
                .collect();
            let want: Vec<&str> = t
                .split_inclusive('\n')
                .map(|l| l.strip_suffix('\n').unwrap_or(l))
                .collect();
            assert_eq!(lines(&t).collect::<Vec<_>>(), want, "{t:?}");
            let trimmed: Vec<&str> = t.lines().map(str::trim).collect();
            assert_eq!(
                lines(&t).map(str::trim).collect::<Vec<_>>(),
                trimmed,
                "{t:?}"
            );
        }
    }

    #[test]
    fn the_quick_trims_and_first_field_agree_with_the_standard_ones() {
        let alphabet: Vec<char> = " \t\n\r\x0b\x0c\x01\u{a0}\u{85}\u{2003}a1.é{}=\""
            .chars()
            .collect();
        let mut rng = crate::test_rng::XorShift(0x5851_f42d_4c95_7f2d);
        for _ in 0..50_000 {
            let seed = rng.next();
            let len = (seed % 9) as usize;
            let s: String = (0..len)
                .map(|k| alphabet[((seed >> (k * 7)) % alphabet.len() as u64) as usize])
                .collect();
            assert_eq!(trim(&s), s.trim(), "{s:?}");
            assert_eq!(trim_start(&s), s.trim_start(), "{s:?}");
            assert_eq!(first_field(&s), s.split_whitespace().next(), "{s:?}");
        }
    }

    #[test]
    fn controls_counts_as_the_byte_by_byte_rule_does() {
        let odd = |b: u8| b < 0x09 || ((0x0e..0x20).contains(&b) && b != 0x1b);
        let mut rng = crate::test_rng::XorShift(0x243f_6a88_85a3_08d3);
        for round in 0..2_000 {
            let len = round % 700;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let seed = rng.next();
                    // Mostly text, often a control byte, sometimes anything.
                    match seed % 4 {
                        0 => (seed >> 8) as u8 % 0x21,
                        1 => (seed >> 8) as u8,
                        _ => b'a' + (seed >> 8) as u8 % 26,
                    }
                })
                .collect();
            let expected = bytes.iter().filter(|&&b| odd(b)).count();
            assert_eq!(controls(&bytes), expected, "{bytes:?}");
        }
        // Every byte value once, and a run longer than one count byte holds.
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(controls(&all), all.iter().filter(|&&b| odd(b)).count());
        assert_eq!(controls(&[0x01; 1000]), 1000);
    }

    #[test]
    fn lossy_borrows_utf8_and_replaces_what_is_not() {
        // The fast check says yes exactly where the standard one does: around the 16-,
        // 32- and 64-byte blocks it works in, every malformed sequence (surrogate,
        // overlong, past U+10FFFF, cut short), and random bytes.
        let bad: [&[u8]; 6] = [
            b"\xed\xa0\x80",
            b"\xc0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x82",
            b"\xff",
            "é".as_bytes(),
        ];
        let mut rng = crate::test_rng::XorShift(0x1319_8a2e_0370_7344);
        for round in 0..3_000usize {
            let mut bytes = vec![b'a'; round % 130];
            let at = (round * 7) % (bytes.len() + 1);
            let insert = bad[round % bad.len()];
            bytes.splice(at..at, insert.iter().copied());
            if round % 5 == 0 {
                let seed = rng.next();
                bytes.extend(seed.to_le_bytes());
            }
            assert_eq!(
                is_utf8(&bytes),
                std::str::from_utf8(&bytes).is_ok(),
                "{bytes:?}"
            );
            assert_eq!(lossy(&bytes), String::from_utf8_lossy(&bytes), "{bytes:?}");
        }
        assert!(matches!(
            lossy(b"r/s 1.0"),
            std::borrow::Cow::Borrowed("r/s 1.0")
        ));
        assert_eq!(
            lossy(b"a\xffb\xe2\x82"),
            String::from_utf8_lossy(b"a\xffb\xe2\x82")
        );
        assert_eq!(lossy("Grüße 2026年".as_bytes()), "Grüße 2026年");
        assert!(is_utf8("é".as_bytes()) && !is_utf8(b"\xc3"));
    }

    #[test]
    fn finds_line_starts() {
        assert_eq!(line_starts(b"a\nbc\n"), vec![0, 2]);
        assert_eq!(line_starts(b"a\n\nb"), vec![0, 2, 3]);
        assert!(line_starts(b"").is_empty());
    }

    #[test]
    fn tells_binary_from_text() {
        assert!(TextCheck::of(b"plain\ttext\n").is_ok());
        assert!(TextCheck::of(b"\x1b[32mcoloured\x1b[0m\n").is_ok());
        assert!(TextCheck::of(b"a\0b").is_err());
        assert!(TextCheck::of(&[1, 2, 3, 4, 5, 6, 7, 8]).is_err());
    }

    /// The sized reader gives the file's bytes whatever size it was told: the size the
    /// file had when looked at, a smaller one (the file grew since), a larger one (it
    /// shrank), none; into a buffer that held another file before.
    #[test]
    fn reads_whole_files_whatever_size_was_seen() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("f");
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &content).expect("write");
        let mut buf = b"left over from another file".to_vec();
        for told in [content.len(), 0, 10, 8191, 8192, content.len() + 5000] {
            let mut f = std::fs::File::open(&path).expect("open");
            let n = read_sized(&mut f, told, &mut buf).expect("read");
            assert_eq!(n, content.len(), "told {told}");
            assert!(buf == content, "told {told}");
        }
        std::fs::write(&path, b"").expect("write");
        assert!(read_capped(&path).expect("read").is_empty());
    }
}
