//! `iostat -x` logs, as sysstat writes them: the header of each block names its columns
//! (sysstat 12's `r_await`/`w_await`, older ones' `await`, `rsec/s` and `avgrq-sz`), MB,
//! kB or sector units, `-t` timestamps in any locale (`11/30/2026 08:14:41 PM`,
//! `30.11.2026 20:14:42`, `2026年11月30日 20時14分44秒`, ISO), comma decimals, and
//! sysstat's JSON (`-o JSON`, also when iostat was killed mid-document). The first block
//! (the average since boot) is dropped; `avg-cpu` is kept.

use std::path::Path;
use std::sync::Arc;

use super::iostat_record::new_block;
pub use super::iostat_record::{DeviceRow, IostatLog, IostatSample};
use super::iostat_row::{looks_numeric, number, plain_row, tokens, UNUSED};
use crate::error::{ParseError, Problem};
use crate::parse::text::{read_capped, TextCheck};

pub fn parse_path(path: &Path) -> Result<IostatLog, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

/// Which column of a `Device` header holds what we keep (the keys of [`KEYS`], by index).
#[derive(Clone)]
struct Columns {
    width: usize,
    at: Slots,
    /// For each column (up to 64), the slot of [`KEYS`] it fills, or [`UNUSED`]: what the
    /// fast reading of a plain row ([`plain_row`]) looks up per field.
    slot_of: Option<Vec<u8>>,
    /// Divide throughput by this to get MB/s (1 with `-m`, 1024 with kB columns).
    scale: f64,
}

/// The columns kept, in the order of [`Slots`].
const KEYS: [&str; 8] = [
    "r/s", "w/s", "rMB/s", "wMB/s", "r_await", "w_await", "await", "%util",
];

/// Column positions by key, without hashing (looked up for every device row).
#[derive(Default, Clone)]
struct Slots([Option<usize>; 8]);

impl Slots {
    fn insert(&mut self, key: &str, at: usize) {
        if let Some(k) = KEYS.iter().position(|x| *x == key) {
            self.0[k] = Some(at);
        }
    }

    fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn get(&self, key: &str) -> Option<&usize> {
        KEYS.iter()
            .position(|x| *x == key)
            .and_then(|k| self.0[k].as_ref())
    }
}

impl Columns {
    fn from_header(fields: &[&str], line: usize) -> Result<Columns, Problem> {
        let find = |names: &[&str]| fields.iter().position(|f| names.contains(f));
        let mut at = Slots::default();
        let mut scale = 1.0;
        for (key, names) in [
            ("r/s", &["r/s"][..]),
            ("w/s", &["w/s"][..]),
            ("r_await", &["r_await"][..]),
            ("w_await", &["w_await"][..]),
            ("await", &["await"][..]),
            ("%util", &["%util"][..]),
        ] {
            if let Some(i) = find(names) {
                at.insert(key, i);
            }
        }
        match (find(&["rMB/s"]), find(&["wMB/s"])) {
            (Some(r), Some(w)) => {
                at.insert("rMB/s", r);
                at.insert("wMB/s", w);
            }
            _ => {
                if let (Some(r), Some(w)) = (find(&["rkB/s"]), find(&["wkB/s"])) {
                    at.insert("rMB/s", r);
                    at.insert("wMB/s", w);
                    scale = 1024.0;
                } else if let (Some(r), Some(w)) = (find(&["rsec/s"]), find(&["wsec/s"])) {
                    // Older sysstat without -k/-m: 512-byte sectors.
                    at.insert("rMB/s", r);
                    at.insert("wMB/s", w);
                    scale = 2048.0;
                }
            }
        }
        if !at.contains_key("r/s") || !at.contains_key("rMB/s") {
            return Err(Problem::at(
                line,
                "device header without r/s and rMB/s (or rkB/s, rsec/s) columns; run iostat with -x",
            ));
        }
        let slot_of = (fields.len() <= 64).then(|| {
            let mut slot_of = vec![UNUSED; fields.len()];
            for (k, col) in at.0.iter().enumerate() {
                if let Some(c) = col {
                    slot_of[*c] = k as u8;
                }
            }
            slot_of
        });
        Ok(Columns {
            width: fields.len(),
            at,
            slot_of,
            scale,
        })
    }
}

pub fn parse_bytes(bytes: &[u8]) -> Result<IostatLog, Problem> {
    TextCheck::of(bytes)?;
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    if text.trim_start().starts_with('{') {
        return super::iostat_json::parse(&text);
    }
    let ends_cut = !bytes.is_empty() && !bytes.ends_with(b"\n");
    let mut st = TextLog::default();
    // Reused for every line: no allocation per line.
    let mut fields: Vec<&str> = Vec::with_capacity(32);
    let all = text.as_bytes();
    let mut pos = 0;
    let mut line_no = 0;
    // Lines as `str::lines` gives them (a last `\n` ends the last line), found with memchr.
    while pos < all.len() {
        let end = memchr::memchr(b'\n', &all[pos..]).map_or(all.len(), |i| pos + i);
        let raw = &text[pos..end];
        pos = end + 1;
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
        let at = Line {
            text: line,
            no: line_no,
            cut: pos >= all.len() && ends_cut,
        };
        st.line(&at, &fields, values_numeric)?;
    }
    st.finish(&text)
}

/// One non-blank line: its text, its number, and whether it is a last line cut off (the
/// file does not end with a newline).
struct Line<'a> {
    text: &'a str,
    no: usize,
    cut: bool,
}

/// What the text reader has seen so far.
#[derive(Default)]
struct TextLog {
    pending_time: Option<String>,
    banner: Option<String>,
    blocks: Vec<IostatSample>,
    cols: Option<Columns>,
    expect_cpu: bool,
    in_devices: bool,
    truncated_tail: bool,
    saw_header: bool,
    /// Each device's name, allocated once per log.
    names: Vec<Arc<str>>,
    /// The last `Device` header line and its columns: every block repeats the same
    /// header, read once.
    header: Option<(String, Columns)>,
}

impl TextLog {
    fn line(&mut self, at: &Line, fields: &[&str], values_numeric: bool) -> Result<(), Problem> {
        let line = at.text;
        if self.banner.is_none()
            && self.blocks.is_empty()
            && !self.saw_header
            && line.starts_with("Linux")
        {
            self.banner = Some(line.split_whitespace().collect::<Vec<_>>().join(" "));
            return Ok(());
        }
        let header = matches!(fields[0], "avg-cpu:" | "Device" | "Device:");
        if self.in_devices && !header {
            return self.device_row(at, fields, values_numeric);
        }
        if !self.in_devices && !self.expect_cpu && is_timestamp(line) {
            self.pending_time = Some(line.to_string());
            return Ok(());
        }
        if fields[0] == "avg-cpu:" {
            self.blocks.push(new_block(self.blocks.len()));
            if let Some(b) = self.blocks.last_mut() {
                b.time = self.pending_time.take();
            }
            self.expect_cpu = true;
            self.in_devices = false;
            self.cols = None;
            return Ok(());
        }
        if self.expect_cpu {
            return self.cpu_row(at, fields);
        }
        if fields[0] == "Device" || fields[0] == "Device:" {
            let cols = Columns::from_header(&fields[1..], at.no)?;
            self.header = Some((line.to_string(), cols.clone()));
            self.device_header(cols);
            return Ok(());
        }
        if self.blocks.is_empty() && !self.saw_header {
            return Err(Problem::at(
                at.no,
                format!("not an iostat -x log: unexpected `{}`", clip(line)),
            ));
        }
        Err(Problem::at(
            at.no,
            format!("unexpected line `{}`", clip(line)),
        ))
    }

    fn device_row(
        &mut self,
        at: &Line,
        fields: &[&str],
        values_numeric: bool,
    ) -> Result<(), Problem> {
        let Some(c) = self.cols.as_ref() else {
            return Ok(());
        };
        let values = &fields[1..];
        if values.len() != c.width || !values_numeric {
            if at.cut {
                self.truncated_tail = true;
                return Ok(());
            }
            return Err(Problem::at(
                at.no,
                if values.len() != c.width {
                    format!(
                        "expected {} columns after the device name, found {}",
                        c.width,
                        values.len()
                    )
                } else {
                    format!("a value in `{}` is not a number", clip(at.text))
                },
            ));
        }
        let mut slots = [None; 8];
        for (k, col) in c.at.0.iter().enumerate() {
            slots[k] = col.and_then(|i| number(values[i]));
        }
        let scale = c.scale;
        self.push_row(fields[0], slots, scale);
        Ok(())
    }

    /// One device's row of the current block, from its name and the values of [`KEYS`].
    fn push_row(&mut self, name: &str, v: [Option<f64>; 8], scale: f64) {
        // Devices come in the same order in every block: try the next one first.
        let guess = self.blocks.last().map_or(0, |b| b.devices.len());
        let device = match self.names.get(guess).filter(|n| ***n == *name) {
            Some(n) => n.clone(),
            None => match self.names.iter().find(|n| ***n == *name) {
                Some(n) => n.clone(),
                None => {
                    self.names.push(Arc::from(name));
                    self.names[self.names.len() - 1].clone()
                }
            },
        };
        let known = self.names.len();
        if let Some(b) = self.blocks.last_mut() {
            if b.devices.capacity() == 0 {
                b.devices.reserve(known.max(4));
            }
            let mut v = v;
            v[2] = v[2].map(|x| x / scale);
            v[3] = v[3].map(|x| x / scale);
            b.devices.push(DeviceRow::new(device, v));
        }
    }

    fn cpu_row(&mut self, at: &Line, fields: &[&str]) -> Result<(), Problem> {
        self.expect_cpu = false;
        let mut v = [0.0; 6];
        let six = fields.len() == 6
            && fields
                .iter()
                .zip(v.iter_mut())
                .all(|(f, slot)| number(f).map(|x| *slot = x).is_some());
        if six {
            if let Some(b) = self.blocks.last_mut() {
                b.cpu_iowait = Some(v[3]);
                b.cpu_system = Some(v[2]);
            }
            Ok(())
        } else if at.cut {
            self.truncated_tail = true;
            Ok(())
        } else {
            Err(Problem::at(
                at.no,
                format!("expected six avg-cpu values, found `{}`", clip(at.text)),
            ))
        }
    }

    /// A `Device` header line, read into its columns.
    fn device_header(&mut self, cols: Columns) {
        self.saw_header = true;
        // Without -c/-d both sections share a block; a Device header with no avg-cpu
        // before it (iostat -d) starts a block of its own.
        let needs_block = match self.blocks.last() {
            None => true,
            Some(b) => !b.devices.is_empty() || self.cols.is_some(),
        };
        if needs_block {
            self.blocks.push(new_block(self.blocks.len()));
        }
        if let (Some(t), Some(b)) = (self.pending_time.take(), self.blocks.last_mut()) {
            b.time.get_or_insert(t);
        }
        self.cols = Some(cols);
        self.in_devices = true;
    }

    fn finish(self, text: &str) -> Result<IostatLog, Problem> {
        if self.blocks.is_empty() {
            return Err(if text.lines().all(|l| l.trim().is_empty()) {
                Problem::whole("empty file")
            } else {
                Problem::whole("no avg-cpu or Device blocks: not an iostat -x log")
            });
        }
        // The first block is the average since boot, not a sample of the run.
        let mut samples: Vec<IostatSample> = self.blocks.into_iter().skip(1).collect();
        for (i, s) in samples.iter_mut().enumerate() {
            s.index = i + 1;
        }
        Ok(IostatLog {
            banner: self.banner,
            samples,
            truncated_tail: self.truncated_tail,
        })
    }
}

/// A `-t` timestamp line: it starts with a digit and holds a time of day, in whatever
/// order and separators the locale gives (`08:14:41 PM`, `20時14分44秒`, ISO `T`).
fn is_timestamp(line: &str) -> bool {
    // Cheapest first: every other line of a log (`avg-cpu:` above all) fails the first.
    line.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && (line.contains(':') || line.contains('時'))
        && line.split_whitespace().count() <= 4
        && line.split_whitespace().all(|w| {
            w.bytes().any(|c| c.is_ascii_digit())
                || w.eq_ignore_ascii_case("AM")
                || w.eq_ignore_ascii_case("PM")
                || !w.is_ascii()
        })
}

fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "Linux 6.1.0 (host) \t11/30/26 \t_x86_64_\t(2 CPU)

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
           1.00    0.00    2.00    0.50    0.00   96.50

Device            r/s     rMB/s   r_await     w/s     wMB/s   w_await  %util
nvme0n1          1.00      0.10      0.20    2.00      0.30      0.40   5.00

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
          10,00    0,00   20,00    0,00    0,00   70,00

Device            r/s     rMB/s   r_await     w/s     wMB/s   w_await  %util
nvme0n1        100.00     10.00      0.50  200.00     20.00      0.90  50.00
md126          100.00     10.00      0.00  200.00     20.00      0.00   0.00

";

    #[test]
    fn drops_the_since_boot_block_and_reads_columns_by_header() {
        let log = parse_bytes(LOG.as_bytes()).expect("parses");
        assert_eq!(log.samples.len(), 1);
        let s = &log.samples[0];
        assert_eq!(s.index, 1);
        assert_eq!(s.cpu_system, Some(20.0), "comma decimals are read");
        assert_eq!(s.devices.len(), 2);
        assert_eq!(s.devices[0].w_mb_s(), Some(20.0));
        assert_eq!(s.devices[0].w_await(), Some(0.9));
        assert_eq!(&*s.devices[1].device, "md126");
        assert!(log.banner.is_some_and(|b| b.starts_with("Linux 6.1.0")));
    }

    #[test]
    fn converts_kilobyte_columns() {
        let log = LOG.replace("rMB/s", "rkB/s").replace("wMB/s", "wkB/s");
        let log = parse_bytes(log.as_bytes()).expect("parses");
        assert_eq!(log.samples[0].devices[0].r_mb_s(), Some(10.0 / 1024.0));
    }

    #[test]
    fn names_the_line_of_a_short_row() {
        let bad = LOG.replace("md126          100.00     10.00", "md126   1");
        let err = parse_bytes(bad.as_bytes()).expect_err("short row");
        assert_eq!(err.line, Some(14));
        assert!(err.reason.contains("expected 7 columns"), "{err:?}");
    }

    #[test]
    fn drops_a_last_line_cut_off_by_kill() {
        let cut = &LOG[..LOG.len() - 30];
        let log = parse_bytes(cut.as_bytes()).expect("parses");
        assert!(log.truncated_tail);
        assert_eq!(log.samples[0].devices.len(), 1);
    }

    #[test]
    fn refuses_other_text() {
        let err = parse_bytes(b"hello world\n").expect_err("not iostat");
        assert_eq!(err.line, Some(1));
        assert!(parse_bytes(b"").is_err());
    }
}

#[cfg(test)]
mod real_logs {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn reads_a_real_sysstat_12_log() {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio/procedure/raid10/iostat/randread-8k-j2-d4.iostat");
        let log = parse_path(&p).expect("real iostat log parses");
        assert!(!log.samples.is_empty());
        assert!(log
            .banner
            .as_deref()
            .is_some_and(|b| b.starts_with("Linux")));
        let s = &log.samples[0];
        assert!(s.cpu_system.is_some());
        assert!(s
            .devices
            .iter()
            .all(|d| d.r_s().is_some() && d.w_await().is_some() && d.util().is_some()));
    }
}
