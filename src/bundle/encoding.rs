//! Every file that goes into a bundle is read as text, whatever its encoding, so nothing
//! escapes redaction: UTF-8 (with NUL bytes too), UTF-8 with a BOM, UTF-16 with or
//! without a BOM, Latin-1, gzip'd text, and files that mix them (a UTF-16 section
//! appended to a UTF-8 log is decoded as the UTF-16 it is, section by section). A tar
//! archive (gzip'd or not) is recognised as one, for its members to be read one by one.
//! What cannot be read as text is left out, with the reason.

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

/// One stretch of a file in one encoding.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub text: String,
    pub encoding: Encoding,
}

/// A file read as text (one part, or several for a file that mixes encodings), and how
/// to write it back.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub parts: Vec<Part>,
    /// It was gzip'd, and is compressed again when written.
    pub gzip: bool,
}

impl Text {
    fn one(text: String, encoding: Encoding) -> Text {
        Text {
            parts: vec![Part { text, encoding }],
            gzip: false,
        }
    }

    /// The whole text (the parts joined).
    pub fn joined(&self) -> String {
        self.parts.iter().map(|p| p.text.as_str()).collect()
    }

    /// Rewrites every part with `f` (redaction and pseudonyms work part by part: no
    /// secret spans two encodings).
    pub fn map(&mut self, mut f: impl FnMut(&str) -> String) {
        for p in &mut self.parts {
            p.text = f(&p.text);
        }
    }

    pub fn label(&self) -> String {
        let mut names: Vec<&str> = self.parts.iter().map(|p| p.encoding.label()).collect();
        names.dedup();
        let l = if names.len() > 1 {
            format!("mixed: {}", names.join(" + "))
        } else {
            names.first().copied().unwrap_or("utf-8").to_string()
        };
        if self.gzip {
            format!("{l} in gzip")
        } else {
            l
        }
    }
}

/// What a file's bytes are, to a bundle.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    Text(Text),
    /// A tar archive (`gzip` when it was a .tar.gz): its members are read one by one.
    Tar {
        bytes: Vec<u8>,
        gzip: bool,
    },
}

/// Whether `bytes` are a tar archive (the ustar magic of the first header).
pub fn is_tar(bytes: &[u8]) -> bool {
    bytes.len() >= 512 && &bytes[257..262] == b"ustar"
}

/// Decompressed gzip content larger than this is left out: a bundle is not the place for
/// it, and a small crafted file could otherwise expand without bound.
pub const MAX_GUNZIP_BYTES: u64 = 256 * 1024 * 1024;

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

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
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

fn plain(bytes: &[u8]) -> Result<Text, String> {
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
fn mixed(bytes: &[u8]) -> Result<Option<Text>, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8], want: Encoding, text: &str) {
        let t = decode(bytes).expect("decodes");
        assert_eq!(t.parts.len(), 1);
        assert_eq!(t.parts[0].encoding, want);
        assert_eq!(t.joined(), text);
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
        assert!(t.gzip && t.joined() == "TOKEN=abc\n");
        let back = encode(&t);
        let mut out = String::new();
        flate2::read::GzDecoder::new(&back[..])
            .read_to_string(&mut out)
            .expect("gz");
        assert_eq!(out, "TOKEN=abc\n");
    }

    #[test]
    fn a_utf16_section_inside_utf8_is_read_as_utf16() {
        let mut bytes = b"INFO start \xc3\xa9\n".to_vec();
        bytes.extend([0xff, 0xfe]);
        bytes.extend(
            "HF_TOKEN=hf_secret_value_here\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        bytes.extend(b"INFO end\n");
        let t = decode(&bytes).expect("decodes");
        assert_eq!(t.parts.len(), 3, "{t:?}");
        assert_eq!(t.parts[1].encoding, Encoding::Utf16Le { bom: true });
        assert!(t.joined().contains("HF_TOKEN=hf_secret_value_here"));
        assert_eq!(encode(&t), bytes, "written back as it came");
        // NUL-separated variables are not UTF-16.
        let environ = b"A=1\0B=2\0HOME=/root\0";
        assert_eq!(decode(environ).expect("text").parts.len(), 1);
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
