//! Units and their conversions, in one place. fio's MB/s (the procedures' tables) are
//! decimal (10^6 bytes); iostat's `rMB/s`/`wMB/s` (and its kB columns / 1024) are
//! binary (2^20 bytes): MiB/s. Every bandwidth the tool prints beside another is in the
//! same unit, converted here.

/// Bytes in a MiB.
pub const MIB: f64 = 1_048_576.0;
/// Bytes in a (decimal) MB.
pub const MB: f64 = 1_000_000.0;

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
