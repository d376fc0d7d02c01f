//! The text reader's state, line by line: the banner, `-t` timestamps, `avg-cpu` and
//! `Device` blocks and their rows, a last line cut off, and the log it adds up to.

use std::sync::Arc;

use super::columns::Columns;
use crate::error::Problem;
use crate::parse::iostat_record::{new_block, DeviceRow, IostatLog, IostatSample};
use crate::parse::iostat_row::number;

/// One non-blank line: its text, its number, and whether it is a last line cut off (the
/// file does not end with a newline).
pub(super) struct Line<'a> {
    pub(super) text: &'a str,
    pub(super) no: usize,
    pub(super) cut: bool,
}

/// What the text reader has seen so far.
#[derive(Default)]
pub(super) struct TextLog {
    pending_time: Option<String>,
    banner: Option<String>,
    blocks: Vec<IostatSample>,
    pub(super) cols: Option<Columns>,
    pub(super) expect_cpu: bool,
    pub(super) in_devices: bool,
    truncated_tail: bool,
    saw_header: bool,
    /// Each device's name, allocated once per log.
    names: Vec<Arc<str>>,
    /// The last `Device` header line and its columns: every block repeats the same
    /// header, read once.
    pub(super) header: Option<(String, Columns)>,
    /// Where the current `avg-cpu:` header puts the values kept, and the first such
    /// header's (a line equal to it is known at sight, see [`TextLog::cpu_header_again`]).
    cpu_cols: CpuColumns,
    first_cpu_cols: Option<CpuColumns>,
}

/// An `avg-cpu:` header read into its columns: how many values its row holds, and which
/// of them are `%system` and `%iowait` (read by name: a sysstat that ordered them
/// otherwise is read right, one without them gives no value).
#[derive(Clone, Copy, Default)]
struct CpuColumns {
    width: usize,
    system: Option<usize>,
    iowait: Option<usize>,
}

impl CpuColumns {
    fn of(names: &[&str]) -> CpuColumns {
        CpuColumns {
            width: names.len(),
            system: names.iter().position(|n| *n == "%system"),
            iowait: names.iter().position(|n| *n == "%iowait"),
        }
    }
}

impl TextLog {
    pub(super) fn line(
        &mut self,
        at: &Line,
        fields: &[&str],
        values_numeric: bool,
    ) -> Result<(), Problem> {
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
            self.cpu_cols = CpuColumns::of(&fields[1..]);
            self.first_cpu_cols.get_or_insert(self.cpu_cols);
            self.cpu_header();
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

    /// A line equal to the first `avg-cpu:` header, whatever state the reader is in: a
    /// new block with that header's columns.
    pub(super) fn cpu_header_again(&mut self) {
        if let Some(c) = self.first_cpu_cols {
            self.cpu_cols = c;
        }
        self.cpu_header();
    }

    /// An `avg-cpu:` header line, its columns read: a new block, its CPU row next.
    fn cpu_header(&mut self) {
        self.blocks.push(new_block(self.blocks.len()));
        if let Some(b) = self.blocks.last_mut() {
            b.time = self.pending_time.take();
        }
        self.expect_cpu = true;
        self.in_devices = false;
        self.cols = None;
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
        // Rates, waits and shares of time: iostat prints none below 0 (a plain row,
        // read by the fast path, cannot hold a sign at all).
        if let Some(v) = values.iter().find(|v| number(v).is_some_and(|x| x < 0.0)) {
            return Err(Problem::at(
                at.no,
                format!(
                    "`{v}` in `{}`: iostat prints no value below 0, so the line is not iostat's",
                    clip(at.text)
                ),
            ));
        }
        let scale = c.scale;
        self.push_row(fields[0], slots, scale);
        Ok(())
    }

    /// One device's row of the current block, from its name and the values of [`KEYS`].
    pub(super) fn push_row(&mut self, name: &str, v: [Option<f64>; 8], scale: f64) {
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
        let c = self.cpu_cols;
        let value = |i: Option<usize>| i.and_then(|i| fields.get(i)).and_then(|f| number(f));
        // A header that names no column (a bare `avg-cpu:`) says nothing of its row's
        // values: read as numbers, each unknown.
        let width_ok = fields.len() == c.width || c.width == 0;
        if width_ok && fields.iter().all(|f| number(f).is_some()) {
            if let Some(b) = self.blocks.last_mut() {
                b.cpu_iowait = value(c.iowait);
                b.cpu_system = value(c.system);
            }
            Ok(())
        } else if at.cut {
            self.truncated_tail = true;
            Ok(())
        } else {
            Err(Problem::at(
                at.no,
                format!(
                    "expected {} avg-cpu value{} (one per name of its header), found `{}`",
                    c.width,
                    if c.width == 1 { "" } else { "s" },
                    clip(at.text)
                ),
            ))
        }
    }

    /// A `Device` header line, read into its columns.
    pub(super) fn device_header(&mut self, cols: Columns) {
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

    pub(super) fn finish(self, text: &str) -> Result<IostatLog, Problem> {
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
