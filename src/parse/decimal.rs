//! Short decimals read directly: `1574.60`, `-0.25`, `17232` — what results files are
//! mostly made of. An integer below 10^15 over a power of ten, both exact in an f64,
//! rounds once: the value `str::parse` gives, without its general algorithm.

/// Powers of ten exactly representable in an f64.
pub(crate) const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// What separates a decimal's whole part from its fraction.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Separator {
    Dot,
    /// `.` or `,` (iostat in a locale with a decimal comma).
    DotOrComma,
}

/// An optional `-`, then digits with at most one separator, 15 characters at most after
/// the sign; `None` for anything else (an exponent, a `+`, a longer number), which the
/// caller reads the general way. With [`Separator::Dot`] the value is the one
/// `str::parse::<f64>` gives.
pub(crate) fn short(b: &[u8], sep: Separator) -> Option<f64> {
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    // At most 15 characters: the integer stays exact (below 10^15) and cannot overflow.
    // The digits before the separator, then those after it: no test per digit of which
    // side it is on.
    let digits_from = |mut i: usize, int: &mut u64| {
        while let Some(&c) = digits.get(i).filter(|c| c.is_ascii_digit()) {
            *int = *int * 10 + u64::from(c - b'0');
            i += 1;
        }
        i
    };
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    let mut int: u64 = 0;
    let before = digits_from(0, &mut int);
    let separator = |c: u8| c == b'.' || (c == b',' && sep == Separator::DotOrComma);
    let (end, scale) = match digits.get(before) {
        Some(&c) if separator(c) => {
            let end = digits_from(before + 1, &mut int);
            (end, end - before - 1)
        }
        _ => (before, 0),
    };
    if end != digits.len() || before + scale == 0 {
        return None;
    }
    let v = int as f64 / POW10[scale];
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_decimal_is_what_str_parse_gives() {
        // Every shape around the limits: read directly, the value str::parse gives...
        for t in [
            "0",
            "0.00",
            "-0.00",
            "-0",
            ".5",
            "5.",
            "-.5",
            "1574.60",
            "99.99",
            "0.01",
            "123456789012.3",
            "12345678901234",
            "123456789012345",
            "00000000000001",
            "0.000000000001",
            "722657.7",
            "2930106.4",
        ] {
            let v = short(t.as_bytes(), Separator::Dot).expect(t);
            assert_eq!(v.to_bits(), t.parse::<f64>().expect(t).to_bits(), "{t}");
        }
        // ...or left to it.
        for t in [
            "1234567890123456",
            "9999999999999999999999",
            "1e5",
            "+5",
            "-",
            ".",
            "-.",
            "1.2.3",
            "1,5",
            "",
            "1 ",
            " 1",
            "0x1",
            "inf",
            "NaN",
        ] {
            assert_eq!(short(t.as_bytes(), Separator::Dot), None, "{t}");
        }
        assert_eq!(short(b"1,5", Separator::DotOrComma), Some(1.5));
        let mut rng = crate::test_rng::XorShift(0x1234_5678_9abc_def1);
        let mut read = 0;
        for _ in 0..200_000 {
            let seed = rng.next();
            let len = 1 + (seed % 17) as usize;
            let t: String = (0..len)
                .map(|k| match (seed >> (k * 3 % 61)) % 13 {
                    10 => '.',
                    11 if k == 0 => '-',
                    12 => ',',
                    d => char::from(b'0' + (d % 10) as u8),
                })
                .collect();
            if let Some(v) = short(t.as_bytes(), Separator::Dot) {
                assert_eq!(v.to_bits(), t.parse::<f64>().expect(&t).to_bits(), "{t}");
                read += 1;
            }
            if let Some(v) = short(t.as_bytes(), Separator::DotOrComma) {
                let dotted = t.replace(',', ".");
                assert_eq!(
                    v.to_bits(),
                    dotted.parse::<f64>().expect(&t).to_bits(),
                    "{t}"
                );
            }
        }
        assert!(read > 20_000, "{read}");
    }
}
