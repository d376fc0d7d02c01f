//! The reading of one line of an `iostat -x` log: the general tokenizer, the fast
//! reading of a plain device row by bit masks, and iostat's numbers.

use super::decimal;

/// What a byte is to the tokenizer, as bits: a blank (ASCII blank or control), a digit,
/// or a byte no number holds (anything but digits, `.`, `,`, a sign, an exponent). A
/// field's bytes are OR-ed together and looked at once, at its end.
const BLANK: u8 = 1;
const DIGIT: u8 = 2;
const OTHER: u8 = 4;

const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut c = 0;
    while c <= b' ' as usize {
        t[c] = BLANK;
        c += 1;
    }
    let mut d = b'0';
    while d <= b'9' {
        t[d as usize] = DIGIT;
        d += 1;
    }
    t[b'.' as usize] = 0;
    t[b',' as usize] = 0;
    t[b'-' as usize] = 0;
    t[b'+' as usize] = 0;
    t[b'e' as usize] = 0;
    t[b'E' as usize] = 0;
    t
};

/// The fields of a line, split at ASCII blanks and control bytes, in one pass over the
/// bytes (iostat lines are mostly padding and numbers); returns whether every field after
/// the first [`looks_numeric`]. Per byte: one table load, one OR, one test. (Eight bytes
/// at a time, with bit masks for the classes, was tried: no faster here.)
pub(super) fn tokens<'a>(line: &'a str, out: &mut Vec<&'a str>) -> bool {
    let b = line.as_bytes();
    let n = b.len();
    let mut i = 0;
    let mut numeric = true;
    while i < n {
        while i < n && b[i] <= b' ' {
            i += 1;
        }
        let start = i;
        let mut seen = 0u8;
        while i < n {
            let c = CLASS[b[i] as usize];
            if c & BLANK != 0 {
                break;
            }
            seen |= c;
            i += 1;
        }
        if start < i {
            if !out.is_empty() {
                numeric &= seen & DIGIT != 0 && seen & OTHER == 0;
            }
            // Both ends are at ASCII bytes: valid boundaries.
            out.push(&line[start..i]);
        }
    }
    numeric
}

/// A column of a device header that nothing is kept from.
pub(super) const UNUSED: u8 = u8::MAX;

/// A device row as iostat nearly always prints it, read in one pass: the name at the
/// line's start, then exactly the header's number of fields (`slot_of` holds, for each,
/// the slot it fills or [`UNUSED`]) of digits with at most one
/// `.`, 15 digits at most, separated by spaces, each value read as it is scanned (the same
/// value [`number`] gives). Runs of spaces are skipped eight bytes at a time. Anything
/// else (a tab, a comma decimal, a sign, a header word, a short row) gives `None`, and
/// the line is read by the general path, which also words the error.
pub(super) fn plain_row(line: &[u8], slot_of: &[u8]) -> Option<(usize, [Option<f64>; 8])> {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    let n = line.len();
    let name = line.iter().position(|&b| b <= b' ').unwrap_or(n);
    if name == 0 || line[name..].iter().next().is_some_and(|&b| b != b' ') {
        return None;
    }
    if matches!(&line[..name], b"avg-cpu:" | b"Device" | b"Device:") {
        return None;
    }
    let mut out = [None; 8];
    let mut field = 0;
    let mut i = name;
    loop {
        while let Some(w) = line.get(i..i + 8) {
            let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) ^ SPACES;
            if x != 0 {
                i += (x.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        while i < n && line[i] == b' ' {
            i += 1;
        }
        if i == n {
            break;
        }
        let slot = *slot_of.get(field)?;
        if slot == UNUSED {
            // A value nothing keeps: checked (digits, at most one `.`, 15 digits at most,
            // as below), not read.
            let start = i;
            let mut dots = 0usize;
            while let Some(&b) = line.get(i) {
                if b.wrapping_sub(b'0') >= 10 {
                    if b == b'.' {
                        dots += 1;
                    } else if b == b' ' {
                        break;
                    } else {
                        return None;
                    }
                }
                i += 1;
            }
            let digits = i - start - dots;
            if digits == 0 || digits > 15 || dots > 1 {
                return None;
            }
            field += 1;
            continue;
        }
        let mut int: u64 = 0;
        let mut digits = 0usize;
        let mut dot = usize::MAX;
        while let Some(&b) = line.get(i) {
            let d = b.wrapping_sub(b'0');
            if d < 10 {
                int = int.wrapping_mul(10).wrapping_add(u64::from(d));
                digits += 1;
            } else if b == b'.' && dot == usize::MAX {
                dot = digits;
            } else if b == b' ' {
                break;
            } else {
                return None;
            }
            i += 1;
        }
        if digits == 0 || digits > 15 {
            return None;
        }
        let scale = if dot == usize::MAX { 0 } else { digits - dot };
        out[usize::from(slot)] = Some(int as f64 / decimal::POW10[scale]);
        field += 1;
    }
    (field == slot_of.len()).then_some((name, out))
}

/// Whether a field is a number iostat could print (digits, one separator, a sign).
pub(super) fn looks_numeric(f: &str) -> bool {
    let b = f.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b',' | b'-' | b'+' | b'e' | b'E'))
        && b.iter().any(u8::is_ascii_digit)
}

/// A number as iostat prints it: `1574.60`, or `1574,60` in locales with a comma. The
/// usual short decimals are read directly ([`decimal::short`]); anything else goes
/// through `str::parse`.
pub(super) fn number(f: &str) -> Option<f64> {
    decimal::short(f.as_bytes(), decimal::Separator::DotOrComma).or_else(|| {
        f.parse::<f64>()
            .ok()
            .or_else(|| f.replace(',', ".").parse::<f64>().ok())
            .filter(|v| v.is_finite())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers_exactly_as_str_parse() {
        for t in [
            "0",
            "0.00",
            "-0.00",
            "1574.60",
            "32855.45",
            "99.99",
            "0.01",
            "123456789012.3",
            "12345678901234",
            "9999999999999999999999",
            "1e5",
            "-2.5",
            "17232.00",
        ] {
            assert_eq!(number(t), t.parse::<f64>().ok(), "{t}");
        }
        assert_eq!(number("55,97"), Some(55.97));
        assert_eq!(number("1,234.5"), None);
        assert_eq!(number("x"), None);
    }

    #[test]
    fn the_one_pass_tokenizer_agrees_with_split_and_looks_numeric() {
        let alphabet: Vec<char> = " \t\r\x01\x7f09.,-+eEx%é/_".chars().collect();
        let mut rng = crate::test_rng::XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let mut line = String::new();
            let seed = rng.next();
            let len = if seed.is_multiple_of(7) {
                seed % 300
            } else {
                seed % 24
            };
            for k in 0..len {
                line.push(alphabet[((seed >> (k % 50)) as usize + k as usize) % alphabet.len()]);
            }
            let mut fields = Vec::new();
            let numeric = tokens(&line, &mut fields);
            let expected: Vec<&str> = line
                .split(|c: char| c.is_ascii() && c as u32 <= 32)
                .filter(|f| !f.is_empty())
                .collect();
            assert_eq!(fields, expected, "{line:?}");
            let all = fields.iter().skip(1).all(|f| looks_numeric(f));
            assert_eq!(numeric, all, "{line:?}");
        }
    }

    #[test]
    fn the_plain_row_reading_agrees_with_the_general_one() {
        // Kept columns between columns nothing keeps, as sysstat 12 orders them.
        let header: Vec<&str> = "r/s rMB/s rrqm/s r_await w/s wMB/s wrqm/s w_await aqu-sz %util"
            .split(' ')
            .collect();
        // The slot of each column in the order r/s, w/s, rMB/s, wMB/s, r_await, w_await,
        // await, %util (the parser's `KEYS`).
        let slot_of = [0, 2, UNUSED, 4, 1, 3, UNUSED, 5, UNUSED, 7];
        let alphabet: Vec<char> = "     0123456789..,-\t\rxeé".chars().collect();
        let mut rng = crate::test_rng::XorShift(0x2545_f491_4f6c_dd1d);
        let mut plain = 0;
        for round in 0..50_000 {
            let mut line = String::from(if round % 3 == 0 { "nvme0n1" } else { "sda" });
            for _ in 0..header.len() + usize::from(round % 11 == 0) {
                line.push(' ');
                let seed = rng.next();
                // Mostly well-formed numbers, sometimes a byte from the alphabet.
                let len = 1 + (seed % 17) as usize;
                for k in 0..len {
                    let r = (seed >> (3 * k % 60)) as usize;
                    if r.is_multiple_of(97) {
                        line.push(alphabet[r % alphabet.len()]);
                    } else if k == len / 2 && r.is_multiple_of(5) {
                        line.push('.');
                    } else {
                        line.push(char::from(b'0' + (r % 10) as u8));
                    }
                }
            }
            // What the plain reading promises to take, said the slow way: space-separated
            // fields after a name, as many as the header, each of 1 to 15 digits and at
            // most one dot.
            let parts: Vec<&str> = line.split(' ').filter(|f| !f.is_empty()).collect();
            let is_plain = parts.len() == slot_of.len() + 1
                && !parts[0].bytes().any(|b| b <= b' ')
                && parts[1..].iter().all(|f| {
                    let digits = f.bytes().filter(u8::is_ascii_digit).count();
                    (1..=15).contains(&digits)
                        && f.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                        && f.len() - digits <= 1
                });
            let Some((name, out)) = plain_row(line.as_bytes(), &slot_of) else {
                assert!(!is_plain, "a plain row read the slow way: {line:?}");
                continue;
            };
            assert!(is_plain, "{line:?}");
            plain += 1;
            let mut fields = Vec::new();
            let numeric = tokens(&line, &mut fields);
            assert!(numeric, "{line:?}");
            assert_eq!(fields[0], &line[..name]);
            assert_eq!(fields.len() - 1, slot_of.len(), "{line:?}");
            let mut general = [None; 8];
            for (col, &slot) in slot_of.iter().enumerate() {
                if slot != UNUSED {
                    general[usize::from(slot)] = number(fields[1 + col]);
                }
            }
            assert_eq!(out, general, "{line:?}");
        }
        assert!(plain > 5_000, "only {plain} rows took the plain reading");
    }
}
