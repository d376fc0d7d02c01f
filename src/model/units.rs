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

/// A formatted number (`6934`, `-16851.25`, `+1250.0`) with its integer part grouped in
/// thousands as the procedures print them (`6,934`, `-16,851.25`, `+1,250.0`): the one
/// number format of what the tool writes in words. Anything that is not a plain decimal
/// number (`NaN`, `inf`, `1e300` printed whole is still digits) is given back as it is.
pub fn grouped(formatted: &str) -> String {
    let (sign, rest) = match formatted.as_bytes().first() {
        Some(b'-' | b'+') => formatted.split_at(1),
        _ => ("", formatted),
    };
    let int_len = rest.find('.').unwrap_or(rest.len());
    let (int, frac) = rest.split_at(int_len);
    let numeric = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().skip(1).all(|b| b.is_ascii_digit());
    if !numeric || int.len() <= 3 {
        return formatted.to_string();
    }
    let mut out = String::with_capacity(formatted.len() + int.len() / 3);
    out.push_str(sign);
    for (i, c) in int.char_indices() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(frac);
    out
}

/// MiB/s (iostat's "MB/s") as decimal MB/s.
pub fn mib_to_mb(mib_s: f64) -> f64 {
    mib_s * MIB / MB
}

/// Decimal MB/s as MiB/s.
pub fn mb_to_mib(mb_s: f64) -> f64 {
    mb_s * MB / MIB
}

/// A value to three significant digits, whole and grouped from 100 up: `0.416`, `50.8`,
/// `888,757`; under a millionth, and from 10^15 up, in exponent form (`4.16e-9`,
/// `1.00e300`): written whole, such a number's digits past the 17th would be binary
/// rounding, not the file's.
pub fn three_digits(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    // Rounded to three digits first, so 99.96 is 100 and 0.9996 is 1.00.
    let r: f64 = format!("{x:.2e}").parse().unwrap_or(x);
    if r.abs() >= 1e15 {
        return format!("{r:.2e}");
    }
    if r.abs() >= 100.0 {
        return grouped(&format!("{x:.0}"));
    }
    if r.abs() < 1e-6 {
        return format!("{r:.2e}");
    }
    let decimals = usize::from(three_digit_decimals(r));
    format!("{r:.decimals$}")
}

/// The decimals that show a value to three significant digits: none from 100 up (nor for
/// 0 or a value that is not finite), 2 from 1, 3 from 0.1, ...
pub fn three_digit_decimals(x: f64) -> u8 {
    let a = x.abs();
    if a >= 100.0 || a == 0.0 || !a.is_finite() {
        0
    } else {
        (2.0 - a.log10().floor()).clamp(0.0, 9.0) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands_as_the_procedures_print_them() {
        assert_eq!(grouped("6934"), "6,934");
        assert_eq!(grouped("1082"), "1,082");
        assert_eq!(grouped("999"), "999");
        assert_eq!(grouped("-16851.25"), "-16,851.25");
        assert_eq!(grouped("+1250.0"), "+1,250.0");
        assert_eq!(grouped("1234567"), "1,234,567");
        assert_eq!(grouped("0.961"), "0.961");
        assert_eq!(grouped("NaN"), "NaN");
        assert_eq!(grouped("inf"), "inf");
        assert_eq!(grouped("-"), "-");
        assert_eq!(grouped(""), "");
    }

    #[test]
    fn converts_both_ways() {
        assert!((mib_to_mb(18682.0) - 19589.5).abs() < 0.1);
        assert!((mb_to_mib(mib_to_mb(123.0)) - 123.0).abs() < 1e-9);
    }
}
