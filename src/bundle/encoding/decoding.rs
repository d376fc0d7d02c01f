//! Bytes read as text: gzip unpacked (within a bound), the encoding told by a BOM or by
//! the bytes themselves (UTF-8, UTF-16, mixed sections, Latin-1), binary data refused.

use std::io::Read;

use super::text::{Encoding, Text};
use super::utf16::{mixed, utf16, utf16_without_bom};

/// Decompressed gzip content larger than this is left out: a bundle is not the place for
/// it, and a small crafted file could otherwise expand without bound.
pub const MAX_GUNZIP_BYTES: u64 = 256 * 1024 * 1024;

pub(super) fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(MAX_GUNZIP_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("gzip that cannot be read ({e})"))?;
    if out.len() as u64 > MAX_GUNZIP_BYTES {
        return Err(format!(
            "gzip that unpacks to more than {} MiB",
            MAX_GUNZIP_BYTES >> 20
        ));
    }
    Ok(out)
}

pub(super) fn plain(bytes: &[u8]) -> Result<Text, String> {
    let text = Text::one;
    if let Some(rest) = bytes.strip_prefix(&[0xef, 0xbb, 0xbf]) {
        return std::str::from_utf8(rest)
            .map(|s| text(s.to_string(), Encoding::Utf8Bom))
            .map_err(|_| "a UTF-8 BOM before bytes that are not UTF-8".into());
    }
    if let Some(rest) = bytes.strip_prefix(&[0xff, 0xfe]) {
        return utf16(rest, true).map(|s| text(s, Encoding::Utf16Le { bom: true }));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xfe, 0xff]) {
        return utf16(rest, false).map(|s| text(s, Encoding::Utf16Be { bom: true }));
    }
    if let Some(le) = utf16_without_bom(bytes).filter(|&le| utf16(bytes, le).is_ok()) {
        return utf16(bytes, le).map(|s| {
            text(
                s,
                if le {
                    Encoding::Utf16Le { bom: false }
                } else {
                    Encoding::Utf16Be { bom: false }
                },
            )
        });
    }
    if let Some(mixed) = mixed(bytes)? {
        return Ok(mixed);
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(text(s.to_string(), Encoding::Utf8));
    }
    if looks_binary(bytes) {
        return Err("binary data, not text: it cannot be checked for secrets".into());
    }
    // Not UTF-8 but text: Latin-1 maps every byte to one character and back.
    Ok(text(
        bytes.iter().map(|&b| b as char).collect(),
        Encoding::Latin1,
    ))
}

/// Control bytes other than tab, newlines, ESC and NUL (which logs do hold) mean binary.
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x1b | 0x0c | 0))
        .count();
    controls * 50 > head.len().max(1)
}
