//! Units and their conversions, in one place. fio's MB/s (the procedures' tables) are
//! decimal (10^6 bytes); iostat's `rMB/s`/`wMB/s` (and its kB columns / 1024) are
//! binary (2^20 bytes): MiB/s. Every bandwidth the tool prints beside another is in the
//! same unit, converted here.

/// A size as fio writes one in a job's name: `8k`, `1m`, `512` (binary multiples).
pub fn format_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}m", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{}k", bytes >> 10)
    } else {
        bytes.to_string()
    }
}

/// Bytes in a MiB.
pub const MIB: f64 = 1_048_576.0;
/// Bytes in a (decimal) MB.
pub const MB: f64 = 1_000_000.0;

/// A bandwidth in decimal MB/s (fio's, the procedures' tables).
///
/// The two bandwidth types do not mix: comparing or adding a MiB/s figure to an MB/s
/// one does not compile, it has to be converted first.
///
/// ```compile_fail
/// use reprobench::model::units::{MBps, MiBps};
/// let _ = MBps(100.0) < MiBps(100.0);
/// ```
///
/// ```
/// use reprobench::model::units::{MBps, MiBps};
/// assert!(MBps(100.0) < MBps::from(MiBps(100.0)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, serde::Serialize)]
#[serde(transparent)]
pub struct MBps(pub f64);

/// A bandwidth in MiB/s (2^20 bytes per second): what iostat calls MB/s.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, serde::Serialize)]
#[serde(transparent)]
pub struct MiBps(pub f64);

impl From<MiBps> for MBps {
    fn from(x: MiBps) -> MBps {
        MBps(mib_to_mb(x.0))
    }
}

impl From<MBps> for MiBps {
    fn from(x: MBps) -> MiBps {
        MiBps(mb_to_mib(x.0))
    }
}

impl std::iter::Sum for MiBps {
    fn sum<I: Iterator<Item = MiBps>>(it: I) -> MiBps {
        MiBps(it.map(|x| x.0).sum())
    }
}

impl std::iter::Sum for MBps {
    fn sum<I: Iterator<Item = MBps>>(it: I) -> MBps {
        MBps(it.map(|x| x.0).sum())
    }
}

/// MiB/s (iostat's "MB/s") as decimal MB/s.
pub fn mib_to_mb(mib_s: f64) -> f64 {
    mib_s * MIB / MB
}

/// Decimal MB/s as MiB/s.
pub fn mb_to_mib(mb_s: f64) -> f64 {
    mb_s * MB / MIB
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_both_ways() {
        assert!((mib_to_mb(18682.0) - 19589.5).abs() < 0.1);
        assert!((mb_to_mib(mib_to_mb(123.0)) - 123.0).abs() < 1e-9);
    }
}
