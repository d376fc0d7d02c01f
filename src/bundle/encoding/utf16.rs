//! UTF-16: with or without a BOM, and UTF-16LE sections inside a file in another
//! encoding, decoded part by part.

use super::text::{Encoding, Part, Text};

/// The least number of ASCII characters in a row, each followed by a NUL, that make a
/// UTF-16LE section inside another encoding.
const UTF16_RUN: usize = 8;

/// Where `bytes` hold UTF-16LE sections (ASCII characters each followed by a NUL, at
/// least [`UTF16_RUN`] of them, with the BOM before them if there is one), as ranges.
fn utf16_runs(bytes: &[u8]) -> Vec<(usize, usize, bool)> {
    // Any ASCII character but NUL (colour codes' ESC included).
    let ascii = |b: u8| (0x01..0x80).contains(&b);
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if !(ascii(bytes[i]) && bytes[i + 1] == 0) {
            i += 1;
            continue;
        }
        let s = i;
        while i + 1 < bytes.len() && ascii(bytes[i]) && bytes[i + 1] == 0 {
            i += 2;
        }
        if (i - s) / 2 >= UTF16_RUN {
            let bom = s >= 2 && bytes[s - 2..s] == [0xff, 0xfe];
            out.push((if bom { s - 2 } else { s }, i, bom));
        }
    }
    out
}

/// A file that mixes encodings: UTF-16LE sections inside UTF-8 or Latin-1, decoded
/// part by part. None when there is no such section.
pub(super) fn mixed(bytes: &[u8]) -> Result<Option<Text>, String> {
    let runs = utf16_runs(bytes);
    if runs.is_empty() {
        return Ok(None);
    }
    let mut parts = Vec::new();
    let mut at = 0;
    let other = |b: &[u8], parts: &mut Vec<Part>| {
        if b.is_empty() {
            return;
        }
        let (text, encoding) = match std::str::from_utf8(b) {
            Ok(s) => (s.to_string(), Encoding::Utf8),
            Err(_) => (b.iter().map(|&c| c as char).collect(), Encoding::Latin1),
        };
        parts.push(Part { text, encoding });
    };
    for (s, e, bom) in runs {
        other(&bytes[at..s], &mut parts);
        let body = &bytes[if bom { s + 2 } else { s }..e];
        parts.push(Part {
            text: utf16(body, true)?,
            encoding: Encoding::Utf16Le { bom },
        });
        at = e;
    }
    other(&bytes[at..], &mut parts);
    Ok(Some(Text { parts, gzip: false }))
}

/// UTF-16 without a BOM: mostly-ASCII text has a NUL in every other byte.
pub(super) fn utf16_without_bom(bytes: &[u8]) -> Option<bool> {
    let head = &bytes[..bytes.len().min(4096) & !1];
    if head.len() < 4 {
        return None;
    }
    let pairs = head.len() / 2;
    let even_nul = head.iter().step_by(2).filter(|&&b| b == 0).count();
    let odd_nul = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    if odd_nul * 10 >= pairs * 7 && even_nul * 10 <= pairs {
        Some(true)
    } else if even_nul * 10 >= pairs * 7 && odd_nul * 10 <= pairs {
        Some(false)
    } else {
        None
    }
}

pub(super) fn utf16(bytes: &[u8], le: bool) -> Result<String, String> {
    if !bytes.len().is_multiple_of(2) {
        return Err("UTF-16 with an odd number of bytes".into());
    }
    let units = bytes.chunks_exact(2).map(|c| {
        if le {
            u16::from_le_bytes([c[0], c[1]])
        } else {
            u16::from_be_bytes([c[0], c[1]])
        }
    });
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|_| "UTF-16 with a broken surrogate pair".into())
}
