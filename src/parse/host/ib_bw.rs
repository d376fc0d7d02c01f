//! perftest's bandwidth tests (`ib_read_bw`, `ib_write_bw`, ...): the result rows under
//! `#bytes #iterations BW peak[...] BW average[...]`, in Gb/s (`--report_gbits`) or MiB/s
//! (perftest's default `MB/sec` is 2^20 bytes per second).

use serde::Serialize;

use crate::error::Problem;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbBw {
    /// `RDMA_Read BW Test`, when the header is kept.
    pub test: Option<String>,
    pub device: Option<String>,
    /// `Link type : IB` or `Ethernet`.
    pub link_type: Option<String>,
    /// The largest message size's average bandwidth, in Gb/s (10^9 bits per second).
    pub average_gbit_s: f64,
    pub peak_gbit_s: Option<f64>,
    /// Message size of that row, bytes.
    pub message_bytes: u64,
    /// Line of the result row.
    pub line: usize,
    /// The unit as printed (`Gb/sec` or `MB/sec`).
    pub unit: String,
}

pub fn looks_like(head: &str) -> bool {
    head.contains("BW average[") && head.contains("#bytes")
}

fn unit_in(header: &str) -> Option<&'static str> {
    if header.contains("BW average[Gb/sec]") {
        Some("Gb/sec")
    } else if header.contains("BW average[MB/sec]") {
        Some("MB/sec")
    } else if header.contains("BW average[MiB/sec]") {
        Some("MiB/sec")
    } else {
        None
    }
}

fn to_gbit(v: f64, unit: &str) -> f64 {
    match unit {
        "Gb/sec" => v,
        // perftest's MB/sec and MiB/sec are both 2^20 bytes per second.
        _ => v * 1_048_576.0 * 8.0 / 1e9,
    }
}

/// The word after `key :` in a header line (`Device         : mlx5_0`).
fn field(line: &str, key: &str) -> Option<String> {
    let at = line.find(key)?;
    let rest = line[at + key.len()..].trim_start().strip_prefix(':')?;
    rest.split_whitespace().next().map(str::to_string)
}

pub fn parse(text: &str) -> Result<IbBw, Problem> {
    let mut unit: Option<&str> = None;
    let mut header_line = 0;
    let mut best: Option<IbBw> = None;
    let mut test = None;
    let mut device = None;
    let mut link_type = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.ends_with("BW Test") && test.is_none() {
            test = Some(l.to_string());
        }
        if device.is_none() {
            device = field(l, "Device");
        }
        if link_type.is_none() {
            link_type = field(l, "Link type");
        }
        if l.starts_with("#bytes") {
            unit = unit_in(l);
            header_line = i + 1;
            if unit.is_none() {
                return Err(Problem::at(
                    i + 1,
                    "perftest header without a BW average column in Gb/sec or MB/sec",
                ));
            }
            continue;
        }
        let Some(u) = unit else { continue };
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        let (Ok(bytes), Ok(_iters)) = (f[0].parse::<u64>(), f[1].parse::<u64>()) else {
            continue;
        };
        let (peak, avg) = (f[2].parse::<f64>().ok(), f[3].parse::<f64>().ok());
        let Some(avg) = avg.filter(|v| v.is_finite() && *v >= 0.0) else {
            return Err(Problem::at(i + 1, format!("`{}` is not a bandwidth", f[3])));
        };
        if best.as_ref().is_none_or(|b| bytes >= b.message_bytes) {
            best = Some(IbBw {
                test: None,
                device: None,
                link_type: None,
                average_gbit_s: to_gbit(avg, u),
                peak_gbit_s: peak.filter(|p| p.is_finite()).map(|p| to_gbit(p, u)),
                message_bytes: bytes,
                line: i + 1,
                unit: u.to_string(),
            });
        }
    }
    let mut bw = best.ok_or_else(|| match header_line {
        0 => Problem::whole("no perftest result header (`#bytes #iterations BW peak ...`)"),
        l => Problem::at(l, "perftest header without a result row under it"),
    })?;
    bw.test = test;
    bw.device = device;
    bw.link_type = link_type;
    Ok(bw)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GBITS: &str =
        "---------------------------------------------------------------------------------------
                    RDMA_Read BW Test
 Dual-port       : OFF          Device         : mlx5_0
 Number of qps   : 1            Transport type : IB
 Link type       : IB
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      1000             49.12              48.97              0.093402
---------------------------------------------------------------------------------------
";

    #[test]
    fn reads_gbit_rows_and_the_header() {
        let b = parse(GBITS).expect("parses");
        assert_eq!(b.average_gbit_s, 48.97);
        assert_eq!(b.peak_gbit_s, Some(49.12));
        assert_eq!(b.line, 8);
        assert_eq!(b.device.as_deref(), Some("mlx5_0"));
        assert_eq!(b.link_type.as_deref(), Some("IB"));
        assert_eq!(b.test.as_deref(), Some("RDMA_Read BW Test"));
    }

    #[test]
    fn mb_per_sec_is_mebibytes_and_the_largest_message_wins() {
        let t = " #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]\n 2 1000 0.5 0.4 0.2\n 65536 1000 11634.95 11632.38 0.186118\n";
        let b = parse(t).expect("parses");
        assert!((b.average_gbit_s - 11632.38 * 1_048_576.0 * 8.0 / 1e9).abs() < 1e-9);
        assert_eq!(b.message_bytes, 65536);
    }

    #[test]
    fn a_header_without_rows_names_its_line() {
        let e = parse("x\n #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]\n")
            .expect_err("an error");
        assert_eq!(e.line, Some(2));
        let e = parse(" #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]\n 65536 10 1 abc\n")
            .expect_err("an error");
        assert!(e.reason.contains("abc"), "{}", e.reason);
    }
}
