//! `nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,memory.total
//! --format=csv -l 1`, as the ladder collector keeps it beside each level
//! (`<level>.gpu.csv`): a header naming the fields, then one line per GPU per second,
//! `2026/12/01 10:00:00.123, 0, 87 %, 70000 MiB, 143771 MiB`. Fields are found by the
//! header, so another order or more fields read the same; `[N/A]` is no value.

use serde::Serialize;

use crate::error::Problem;
use crate::parse::text::TextCheck;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    /// Seconds since the file's first sample.
    pub t_s: f64,
    pub gpu: u32,
    pub util_pct: Option<f64>,
    pub memory_used_mib: Option<f64>,
    pub memory_total_mib: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct GpuSeries {
    pub samples: Vec<Sample>,
}

/// Whether a file's first line is this header.
pub fn is_header(line: &str) -> bool {
    let l = line.trim().to_ascii_lowercase();
    l.starts_with("timestamp") && l.contains("utilization.gpu")
}

/// `2026/12/01 10:00:00.123` as seconds since 1970 (UTC as written; only differences
/// are used).
fn seconds(ts: &str) -> Option<f64> {
    let (date, time) = ts.trim().split_once(' ')?;
    let d: Vec<i64> = date
        .split('/')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let [y, m, day] = d[..] else { return None };
    let t: Vec<f64> = time
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let [hh, mm, ss] = t[..] else { return None };
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days as f64 * 86_400.0 + hh * 3600.0 + mm * 60.0 + ss)
}

fn number(field: &str) -> Option<f64> {
    let v = field
        .trim()
        .trim_end_matches('%')
        .trim_end_matches("MiB")
        .trim();
    v.parse().ok().filter(|x: &f64| x.is_finite())
}

pub fn parse_bytes(bytes: &[u8]) -> Result<GpuSeries, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(Problem::whole("empty file (nvidia-smi wrote nothing)"));
    };
    if !is_header(header) {
        return Err(Problem::at(
            1,
            "no `timestamp, ..., utilization.gpu` header",
        ));
    }
    let names: Vec<String> = header
        .split(',')
        .map(|h| {
            h.trim()
                .split(' ')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase()
        })
        .collect();
    let at = |n: &str| names.iter().position(|x| x == n);
    let (ts, idx) = (at("timestamp"), at("index"));
    let (util, used, total) = (at("utilization.gpu"), at("memory.used"), at("memory.total"));
    let mut samples = Vec::new();
    let mut t0 = None;
    for (i, line) in lines {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != names.len() {
            return Err(Problem::at(
                i + 1,
                format!("{} fields where the header names {}", f.len(), names.len()),
            ));
        }
        let t = ts
            .and_then(|k| seconds(f[k]))
            .ok_or_else(|| Problem::at(i + 1, "the timestamp is not `YYYY/MM/DD HH:MM:SS.mmm`"))?;
        let t0 = *t0.get_or_insert(t);
        let get = |k: Option<usize>| k.and_then(|k| number(f[k]));
        samples.push(Sample {
            t_s: t - t0,
            gpu: idx.and_then(|k| f[k].trim().parse().ok()).unwrap_or(0),
            util_pct: get(util),
            memory_used_mib: get(used),
            memory_total_mib: get(total),
        });
    }
    Ok(GpuSeries { samples })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_nvidia_smi_writes() {
        let text = "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n\
            2026/12/01 10:00:00.100, 0, 87 %, 70000 MiB, 143771 MiB\n\
            2026/12/01 10:00:00.100, 1, [N/A], 70000 MiB, 143771 MiB\n\
            2026/12/01 10:00:01.100, 0, 90 %, 71000 MiB, 143771 MiB\n";
        let s = parse_bytes(text.as_bytes()).expect("csv");
        assert_eq!(s.samples.len(), 3);
        assert_eq!(s.samples[0].util_pct, Some(87.0));
        assert_eq!(s.samples[1].util_pct, None, "[N/A] is no value");
        assert_eq!(s.samples[1].gpu, 1);
        assert!((s.samples[2].t_s - 1.0).abs() < 1e-6);
        assert_eq!(s.samples[2].memory_used_mib, Some(71000.0));
        // Across a month's end.
        assert_eq!(
            seconds("2026/03/01 00:00:00.0")
                .zip(seconds("2026/02/28 23:59:59.0"))
                .map(|(a, b)| a - b),
            Some(1.0)
        );
    }

    #[test]
    fn refuses_what_it_cannot_place() {
        assert_eq!(parse_bytes(b"a,b\n").err().and_then(|p| p.line), Some(1));
        let bad = "timestamp, index, utilization.gpu [%]\nyesterday, 0, 5 %\n";
        assert_eq!(
            parse_bytes(bad.as_bytes()).err().and_then(|p| p.line),
            Some(2)
        );
        let short = "timestamp, index, utilization.gpu [%]\n2026/12/01 10:00:00.1, 0\n";
        assert_eq!(
            parse_bytes(short.as_bytes()).err().and_then(|p| p.line),
            Some(2)
        );
        assert!(parse_bytes(b"").is_err());
    }
}
