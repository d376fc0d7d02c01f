//! Every file that goes into a bundle is read as text, whatever its encoding, so nothing
//! escapes redaction: UTF-8 (with NUL bytes too), UTF-8 with a BOM, UTF-16 with or
//! without a BOM, Latin-1, and gzip'd text. What cannot be read as text is left out, with
//! the reason.

use std::io::{Read, Write};

/// How a file's bytes map to text, to write it back the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf8Bom,
    Utf16Le { bom: bool },
    Utf16Be { bom: bool },
    Latin1,
}

impl Encoding {
    pub fn label(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf8Bom => "utf-8 with BOM",
            Encoding::Utf16Le { bom: true } => "utf-16le with BOM",
            Encoding::Utf16Le { bom: false } => "utf-16le",
            Encoding::Utf16Be { bom: true } => "utf-16be with BOM",
            Encoding::Utf16Be { bom: false } => "utf-16be",
            Encoding::Latin1 => "latin-1",
        }
    }
}

/// A file read as text, and how to write it back.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub text: String,
    pub encoding: Encoding,
    /// It was gzip'd, and is compressed again when written.
    pub gzip: bool,
}

impl Text {
    pub fn label(&self) -> String {
        if self.gzip {
            format!("{} in gzip", self.encoding.label())
        } else {
            self.encoding.label().to_string()
        }
    }
}

/// Decompressed gzip content larger than this is left out: a bundle is not the place for
/// it, and a small crafted file could otherwise expand without bound.
pub const MAX_GUNZIP_BYTES: u64 = 256 * 1024 * 1024;

/// The file as text, or why it cannot be.
pub fn decode(bytes: &[u8]) -> Result<Text, String> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
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

fn plain(bytes: &[u8]) -> Result<Text, String> {
    let text = |text: String, encoding| Text {
        text,
        encoding,
        gzip: false,
    };
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
    if let Some(le) = utf16_without_bom(bytes) {
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

/// UTF-16 without a BOM: mostly-ASCII text has a NUL in every other byte.
fn utf16_without_bom(bytes: &[u8]) -> Option<bool> {
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

fn utf16(bytes: &[u8], le: bool) -> Result<String, String> {
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

/// Control bytes other than tab, newlines, ESC and NUL (which logs do hold) mean binary.
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x1b | 0x0c | 0))
        .count();
    controls * 50 > head.len().max(1)
}

/// The text written back the way it came: same encoding, BOM and compression.
pub fn encode(t: &Text) -> Vec<u8> {
    let mut bytes = match t.encoding {
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
    };
    if t.gzip {
        let mut gz = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::default());
        // Writing to memory cannot fail.
        let _ = gz.write_all(&bytes);
        bytes = gz.finish().unwrap_or_default();
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8], want: Encoding, text: &str) {
        let t = decode(bytes).expect("decodes");
        assert_eq!(t.encoding, want);
        assert_eq!(t.text, text);
        assert_eq!(encode(&t), bytes, "written back as it came");
    }

    #[test]
    fn reads_and_writes_back_every_text_encoding() {
        round_trip(b"plain\n", Encoding::Utf8, "plain\n");
        round_trip(b"log\0with nul\n", Encoding::Utf8, "log\0with nul\n");
        round_trip(b"\xef\xbb\xbfbom", Encoding::Utf8Bom, "bom");
        round_trip(b"caf\xe9 na\xefve\n", Encoding::Latin1, "café naïve\n");
        let le: Vec<u8> = "pw=x\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        round_trip(
            &[&[0xff, 0xfe][..], &le].concat(),
            Encoding::Utf16Le { bom: true },
            "pw=x\n",
        );
        round_trip(&le, Encoding::Utf16Le { bom: false }, "pw=x\n");
        let be: Vec<u8> = "pw=x\n"
            .encode_utf16()
            .flat_map(|u| u.to_be_bytes())
            .collect();
        round_trip(&be, Encoding::Utf16Be { bom: false }, "pw=x\n");
    }

    #[test]
    fn gzip_is_read_and_written_again() {
        let mut gz = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::default());
        gz.write_all(b"TOKEN=abc\n").expect("w");
        let bytes = gz.finish().expect("gz");
        let t = decode(&bytes).expect("gunzips");
        assert!(t.gzip && t.text == "TOKEN=abc\n");
        let back = encode(&t);
        let mut out = String::new();
        flate2::read::GzDecoder::new(&back[..])
            .read_to_string(&mut out)
            .expect("gz");
        assert_eq!(out, "TOKEN=abc\n");
    }

    #[test]
    fn what_cannot_be_text_is_refused_with_a_reason() {
        assert!(decode(b"\x28\xb5\x2f\xfd....")
            .expect_err("zstd")
            .contains("zstd"));
        assert!(decode(&[1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0x81])
            .expect_err("binary")
            .contains("binary"));
    }
}
