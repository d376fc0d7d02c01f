//! `iostat -x` logs, as sysstat writes them: the header of each block names its columns
//! (sysstat 12's `r_await`/`w_await`, older ones' `await`, `rsec/s` and `avgrq-sz`), MB,
//! kB or sector units, `-t` timestamps in any locale (`11/30/2026 08:14:41 PM`,
//! `30.11.2026 20:14:42`, `2026年11月30日 20時14分44秒`, ISO), comma decimals, and
//! sysstat's JSON (`-o JSON`, also when iostat was killed mid-document). The first block
//! (the average since boot) is dropped; `avg-cpu` is kept.

mod columns;
#[cfg(test)]
mod real_logs;
#[cfg(test)]
mod tests;
mod text_log;

use std::path::Path;

use text_log::{Line, TextLog};

pub use super::iostat_record::{DeviceRow, IostatLog, IostatSample};
use super::iostat_row::{looks_numeric, plain_row, tokens};
use crate::error::{ParseError, Problem};
use crate::parse::text::{read_capped, TextCheck};

pub fn parse_path(path: &Path) -> Result<IostatLog, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

pub fn parse_bytes(bytes: &[u8]) -> Result<IostatLog, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
    if text.trim_start().starts_with('{') {
        return super::iostat_json::parse(&text);
    }
    let ends_cut = !bytes.is_empty() && !bytes.ends_with(b"\n");
    let mut st = TextLog::default();
    // Reused for every line: no allocation per line.
    let mut fields: Vec<&str> = Vec::with_capacity(32);
    let mut raw_lines = crate::parse::text::lines(&text).peekable();
    let mut line_no = 0;
    // The first `avg-cpu:` header line: every block repeats it, known at sight.
    let mut cpu_header: Option<&str> = None;
    while let Some(raw) = raw_lines.next() {
        line_no += 1;
        if st.in_devices {
            if let Some(c) = st.cols.as_ref() {
                let plain = c
                    .slot_of
                    .as_deref()
                    .and_then(|s| plain_row(raw.as_bytes(), s));
                if let Some((name, values)) = plain {
                    st.push_row(&raw[..name], values, c.scale);
                    continue;
                }
            }
        }
        let line = raw.trim();
        if line.is_empty() {
            st.in_devices = false;
            continue;
        }
        if cpu_header == Some(line) {
            st.cpu_header_again();
            continue;
        }
        if let Some((_, cols)) = st
            .header
            .as_ref()
            .filter(|(h, _)| !st.expect_cpu && h == line)
        {
            let cols = cols.clone();
            st.device_header(cols);
            continue;
        }
        fields.clear();
        let mut values_numeric = tokens(line, &mut fields);
        if fields.is_empty() {
            // Only non-ASCII blanks: not a line iostat writes.
            fields.extend(line.split_whitespace());
            values_numeric = fields[1..].iter().all(|v| looks_numeric(v));
        }
        if cpu_header.is_none() && fields[0] == "avg-cpu:" {
            cpu_header = Some(line);
        }
        let at = Line {
            text: line,
            no: line_no,
            cut: ends_cut && raw_lines.peek().is_none(),
        };
        st.line(&at, &fields, values_numeric)?;
    }
    st.finish(&text)
}
