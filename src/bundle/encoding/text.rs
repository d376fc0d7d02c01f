//! A file read as text: its parts, the encoding of each, whether it was gzip'd, and what
//! a file's bytes are to a bundle (text, or a tar archive to open).

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
    pub(super) fn one(text: String, encoding: Encoding) -> Text {
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
