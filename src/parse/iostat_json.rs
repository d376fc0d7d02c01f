//! sysstat's JSON (`iostat -x -o JSON`): `{"sysstat": {"hosts": [{..., "statistics":
//! [{"timestamp"?, "avg-cpu": {...}, "disk": [...]}, ...]}]}}`. The procedure's helper
//! stops iostat with `kill`, which leaves the document cut off inside `statistics`: every
//! complete sample before the cut is read, the cut is said.

use serde::Deserialize;
use serde_json::Value;

use crate::error::Problem;

use super::iostat_record::{new_block, DeviceRow, IostatLog, IostatSample};

#[derive(Deserialize)]
struct Cpu {
    system: Option<f64>,
    iowait: Option<f64>,
}

/// The text before `"statistics"`: the host's fields.
fn host_field(head: &str, key: &str) -> Option<String> {
    let at = head.find(&format!("\"{key}\""))?;
    let rest = head[at + key.len() + 2..].trim_start().strip_prefix(':')?;
    let rest = rest.trim_start();
    if let Some(s) = rest.strip_prefix('"') {
        return s.split('"').next().map(str::to_string);
    }
    let end = rest.find([',', '\n', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

pub fn parse(text: &str) -> Result<IostatLog, Problem> {
    let Some(stats_at) = text.find("\"statistics\"") else {
        return Err(if text.contains("\"sysstat\"") {
            Problem::at(
                1,
                "sysstat JSON without `statistics`: iostat stopped before its first sample",
            )
        } else {
            Problem::at(
                1,
                "JSON, but not sysstat's iostat output (no `sysstat` object)",
            )
        });
    };
    let banner = banner(&text[..stats_at]);
    let Some(open) = text[stats_at..].find('[').map(|i| stats_at + i + 1) else {
        return Err(Problem::at(
            line_of(text, stats_at),
            "`statistics` is not a list",
        ));
    };
    let (blocks, truncated_tail) = blocks(text, open)?;
    if blocks.is_empty() {
        return Err(Problem::at(
            line_of(text, stats_at),
            "sysstat JSON with no complete sample",
        ));
    }
    let mut samples: Vec<IostatSample> = blocks.into_iter().skip(1).collect();
    for (i, s) in samples.iter_mut().enumerate() {
        s.index = i + 1;
    }
    Ok(IostatLog {
        banner,
        samples,
        truncated_tail,
    })
}

/// The samples of `statistics` from `open` (just inside its `[`), each read as one JSON
/// value, and whether the list is cut short (the file ends inside it).
fn blocks(text: &str, open: usize) -> Result<(Vec<IostatSample>, bool), Problem> {
    let mut blocks: Vec<IostatSample> = Vec::new();
    let mut at = open;
    let mut truncated_tail = false;
    let bytes = text.as_bytes();
    loop {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b',') {
            at += 1;
        }
        if at >= bytes.len() {
            truncated_tail = true;
            break;
        }
        if bytes[at] == b']' {
            break;
        }
        let mut stream = serde_json::Deserializer::from_slice(&bytes[at..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => {
                let start = at;
                at += stream.byte_offset();
                blocks.push(
                    sample(&v, blocks.len())
                        .map_err(|why| Problem::at(line_of(text, start), why))?,
                );
            }
            Some(Err(e)) if e.is_eof() => {
                truncated_tail = true;
                break;
            }
            Some(Err(e)) => {
                let msg = e.to_string();
                let msg = msg
                    .rsplit_once(" at line ")
                    .map_or(msg.as_str(), |(m, _)| m);
                return Err(Problem::at(
                    line_of(text, at) + e.line().saturating_sub(1),
                    format!("invalid JSON in `statistics`: {msg}"),
                ));
            }
            None => {
                truncated_tail = true;
                break;
            }
        }
    }
    Ok((blocks, truncated_tail))
}

/// iostat's first line, as its text output prints it, from sysstat's `hosts` fields.
fn banner(head: &str) -> Option<String> {
    match (
        host_field(head, "sysname"),
        host_field(head, "release"),
        host_field(head, "nodename"),
        host_field(head, "date"),
        host_field(head, "machine"),
        host_field(head, "number-of-cpus"),
    ) {
        (Some(sys), Some(rel), Some(node), Some(date), machine, cpus) => Some(format!(
            "{sys} {rel} ({node}) {date} _{}_ ({} CPU)",
            machine.unwrap_or_default(),
            cpus.unwrap_or_default()
        )),
        _ => None,
    }
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64).filter(|x| x.is_finite())
}

fn sample(v: &Value, index: usize) -> Result<IostatSample, String> {
    let mut s = new_block(index);
    s.time = v
        .get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(cpu) = v.get("avg-cpu") {
        let c: Cpu = serde_json::from_value(cpu.clone())
            .map_err(|e| format!("`avg-cpu` is not sysstat's: {e}"))?;
        s.cpu_system = c.system;
        s.cpu_iowait = c.iowait;
    }
    for d in v
        .get("disk")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = d.get("disk_device").and_then(Value::as_str) else {
            return Err("a `disk` entry without `disk_device`".into());
        };
        let (r, w, scale) = if d.get("rMB/s").is_some() {
            (num(d, "rMB/s"), num(d, "wMB/s"), 1.0)
        } else if d.get("rkB/s").is_some() {
            (num(d, "rkB/s"), num(d, "wkB/s"), 1024.0)
        } else {
            (num(d, "rsec/s"), num(d, "wsec/s"), 2048.0)
        };
        s.devices.push(DeviceRow::new(
            std::sync::Arc::from(name),
            [
                num(d, "r/s"),
                num(d, "w/s"),
                r.map(|x| x / scale),
                w.map(|x| x / scale),
                num(d, "r_await"),
                num(d, "w_await"),
                num(d, "await"),
                num(d, "util").or_else(|| num(d, "%util")),
            ],
        ));
    }
    Ok(s)
}
