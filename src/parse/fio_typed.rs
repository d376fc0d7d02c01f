//! The one reader of a fio JSON document: the document's structure read straight into
//! typed records (every field reprobench does not use skipped, not built), its scalar
//! leaves checked one by one so a value of the wrong type is named by its field
//! (`jobs[0].read.iops: expected a number, found a string`). [`super::fio`] finds the
//! documents in a file and maps a problem to its line; this module reads one.

mod convert;
mod document;
mod scalars;
#[cfg(test)]
mod tests;

use convert::convert;
use document::Doc;

use super::fio_record::FioOutput;
use crate::error::Problem;

/// A file that is one fio document and nothing else (the usual case), read without
/// looking for text around it; None for anything else (the caller then finds the
/// documents and maps any problem to its line).
pub fn read(bytes: &[u8]) -> Option<FioOutput> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] != b'{' || !crate::parse::text::is_utf8(bytes) {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_slice(&bytes[start..]).into_iter::<Doc>();
    let doc = stream.next()?.ok()?;
    let end = start + stream.byte_offset();
    if !bytes[end..].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let line = 1 + bytes[..start].iter().filter(|&&b| b == b'\n').count();
    convert(doc, line).ok()
}

/// The document in `slice`, which starts on `line` of its file.
pub fn read_document(slice: &[u8], line: usize) -> Result<FioOutput, Problem> {
    let mut stream = serde_json::Deserializer::from_slice(slice).into_iter::<Doc>();
    match stream.next() {
        Some(Ok(doc)) => convert(doc, line),
        Some(Err(e)) => Err(Problem::at(
            line + e.line().saturating_sub(1),
            super::text::json_message(&e),
        )),
        None => Err(Problem::at(line, "no document")),
    }
}
