//! Every file that goes into a bundle is read as text, whatever its encoding, so nothing
//! escapes redaction: UTF-8 (with NUL bytes too), UTF-8 with a BOM, UTF-16 with or
//! without a BOM, Latin-1, gzip'd text, and files that mix them (a UTF-16 section
//! appended to a UTF-8 log is decoded as the UTF-16 it is, section by section). A tar
//! archive (gzip'd or not) is recognised as one, for its members to be read one by one.
//! What cannot be read as text is left out, with the reason.

mod decoding;
#[cfg(test)]
mod tests;
mod text;
mod utf16;

use std::io::Write;

pub use decoding::MAX_GUNZIP_BYTES;
use decoding::{gunzip, plain};
pub use text::{Decoded, Encoding, Part, Text};

/// Whether `bytes` are a tar archive (the ustar magic of the first header).
pub fn is_tar(bytes: &[u8]) -> bool {
    bytes.len() >= 512 && &bytes[257..262] == b"ustar"
}

/// The file as text or as an archive to open, or why it cannot be read.
pub fn decode_file(bytes: &[u8]) -> Result<Decoded, String> {
    if is_tar(bytes) {
        return Ok(Decoded::Tar {
            bytes: bytes.to_vec(),
            gzip: false,
        });
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let out = gunzip(bytes)?;
        if is_tar(&out) {
            return Ok(Decoded::Tar {
                bytes: out,
                gzip: true,
            });
        }
    }
    decode(bytes).map(Decoded::Text)
}

/// The file as text, or why it cannot be.
pub fn decode(bytes: &[u8]) -> Result<Text, String> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let out = gunzip(bytes)?;
        if out.starts_with(&[0x1f, 0x8b]) {
            return Err("gzip inside gzip: not unpacked twice".into());
        }
        let mut t = plain(&out)?;
        t.gzip = true;
        return Ok(t);
    }
    for (magic, what) in [
        (&[0x28, 0xb5, 0x2f, 0xfd][..], "zstd"),
        (&[0xfd, b'7', b'z', b'X', b'Z', 0x00][..], "xz"),
        (&b"BZh"[..], "bzip2"),
        (&b"PK\x03\x04"[..], "zip"),
    ] {
        if bytes.starts_with(magic) {
            return Err(format!(
                "{what}-compressed: it cannot be redacted here; decompress it and add the plain file with --include"
            ));
        }
    }
    plain(bytes)
}

/// The text written back the way it came: same encodings, BOMs and compression.
pub fn encode(t: &Text) -> Vec<u8> {
    let mut bytes: Vec<u8> = t.parts.iter().flat_map(encode_part).collect();
    if t.gzip {
        bytes = gzip(&bytes);
    }
    bytes
}

/// Bytes gzip'd with a fixed time, as the bundle writes every archive.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::default());
    // Writing to memory cannot fail.
    let _ = gz.write_all(bytes);
    gz.finish().unwrap_or_default()
}

fn encode_part(p: &Part) -> Vec<u8> {
    let t = p;
    match t.encoding {
        Encoding::Utf8 => t.text.as_bytes().to_vec(),
        Encoding::Utf8Bom => [&[0xef, 0xbb, 0xbf][..], t.text.as_bytes()].concat(),
        Encoding::Utf16Le { bom } | Encoding::Utf16Be { bom } => {
            let le = matches!(t.encoding, Encoding::Utf16Le { .. });
            let mut out = Vec::with_capacity(t.text.len() * 2 + 2);
            if bom {
                out.extend(if le { [0xff, 0xfe] } else { [0xfe, 0xff] });
            }
            for u in t.text.encode_utf16() {
                out.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            out
        }
        // Redaction and pseudonyms only add ASCII; anything else was a byte to begin with.
        Encoding::Latin1 => t
            .text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect(),
    }
}
