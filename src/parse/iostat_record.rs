//! What an `iostat -x` log is read into, from its text ([`super::iostat`]) or its JSON
//! ([`super::iostat_json`]): the samples after the since-boot block, each with its CPU
//! shares and one row per device.

use std::sync::Arc;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IostatLog {
    /// The banner's first line, e.g. `Linux 6.1.0 (host) 11/30/26 _x86_64_ (2 CPU)`.
    pub banner: Option<String>,
    /// Samples after the since-boot block, in order.
    pub samples: Vec<IostatSample>,
    /// Whether the last line was cut off (iostat killed mid-write) and dropped.
    pub truncated_tail: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IostatSample {
    /// 1 for the first interval after the since-boot block.
    pub index: usize,
    /// The `-t` timestamp, as iostat printed it (its locale's format).
    pub time: Option<String>,
    pub cpu_system: Option<f64>,
    pub cpu_iowait: Option<f64>,
    pub devices: Vec<DeviceRow>,
}

/// One device's row of one sample. Its eight values are kept as numbers with NaN for a
/// value the log does not give (a log holds tens of thousands of rows: eight `Option<f64>`
/// took 144 bytes a row, these 80); iostat never prints a NaN, every value read is finite.
#[derive(Debug, Clone)]
pub struct DeviceRow {
    /// The device's name, shared by its rows of every sample of the log.
    pub device: Arc<str>,
    /// r/s, w/s, rMB/s, wMB/s, r_await, w_await, await, %util.
    values: [f64; 8],
}

/// The names of [`DeviceRow`]'s values, in their order.
const FIELDS: [&str; 8] = [
    "r_s", "w_s", "r_mb_s", "w_mb_s", "r_await", "w_await", "await_ms", "util",
];

impl DeviceRow {
    /// A row from its values in the order r/s, w/s, rMB/s, wMB/s, r_await, w_await,
    /// await, %util (a non-finite value is no value).
    pub fn new(device: Arc<str>, values: [Option<f64>; 8]) -> DeviceRow {
        DeviceRow {
            device,
            values: values.map(|v| v.filter(|x| x.is_finite()).unwrap_or(f64::NAN)),
        }
    }

    fn get(&self, i: usize) -> Option<f64> {
        let v = self.values[i];
        (!v.is_nan()).then_some(v)
    }

    pub fn r_s(&self) -> Option<f64> {
        self.get(0)
    }
    pub fn w_s(&self) -> Option<f64> {
        self.get(1)
    }
    pub fn r_mb_s(&self) -> Option<f64> {
        self.get(2)
    }
    pub fn w_mb_s(&self) -> Option<f64> {
        self.get(3)
    }
    pub fn r_await(&self) -> Option<f64> {
        self.get(4)
    }
    pub fn w_await(&self) -> Option<f64> {
        self.get(5)
    }
    /// Older sysstat's `await`: reads and writes together (no `r_await`/`w_await`).
    pub fn await_ms(&self) -> Option<f64> {
        self.get(6)
    }
    pub fn util(&self) -> Option<f64> {
        self.get(7)
    }
}

impl PartialEq for DeviceRow {
    fn eq(&self, other: &Self) -> bool {
        self.device == other.device && (0..8).all(|i| self.get(i) == other.get(i))
    }
}

impl Serialize for DeviceRow {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = ser.serialize_struct("DeviceRow", 9)?;
        st.serialize_field("device", &*self.device)?;
        for (i, name) in FIELDS.iter().enumerate() {
            st.serialize_field(name, &self.get(i))?;
        }
        st.end()
    }
}

/// An empty sample, the `index`th of its log.
pub(crate) fn new_block(index: usize) -> IostatSample {
    IostatSample {
        index,
        time: None,
        cpu_system: None,
        cpu_iowait: None,
        devices: Vec::new(),
    }
}

impl IostatLog {
    /// The host the banner names: `Linux 6.1.0 (host) ...` gives `host`.
    pub fn banner_host(&self) -> Option<&str> {
        let b = self.banner.as_deref()?;
        let open = b.find('(')?;
        let close = open + b[open..].find(')')?;
        let host = b[open + 1..close].trim();
        (!host.is_empty()).then_some(host)
    }

    /// The dates the banner's date can be, as (year, month, day): `2026-11-30` is one,
    /// `11/30/26` or `30.11.2026` whichever of month-first and day-first the locale
    /// could have meant. Empty when the banner holds no date.
    pub fn banner_dates(&self) -> Vec<(i64, u32, u32)> {
        let Some(b) = self.banner.as_deref() else {
            return Vec::new();
        };
        // The date follows the host; a banner without one holds no date this can find
        // (a kernel version such as `6.1.0` is no date).
        let Some(after_host) = b.find(')').map(|i| &b[i + 1..]) else {
            return Vec::new();
        };
        let Some(token) = after_host.split_whitespace().find(|t| {
            t.bytes().any(|c| matches!(c, b'/' | b'-' | b'.'))
                && t.bytes().any(|c| c.is_ascii_digit())
        }) else {
            return Vec::new();
        };
        let parts: Vec<&str> = token.split(['/', '-', '.']).collect();
        let [a, m, c] = parts[..] else {
            return Vec::new();
        };
        let num = |s: &str| -> Option<i64> {
            (!s.is_empty() && s.len() <= 4 && s.bytes().all(|c| c.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (Some(x), Some(y), Some(z)) = (num(a), num(m), num(c)) else {
            return Vec::new();
        };
        let year = |v: i64, digits: usize| if digits == 2 { 2000 + v } else { v };
        let mut out = Vec::new();
        let mut put = |y: i64, mo: i64, d: i64| {
            if (1..=12).contains(&mo)
                && (1..=31).contains(&d)
                && !out.contains(&(y, mo as u32, d as u32))
            {
                out.push((y, mo as u32, d as u32));
            }
        };
        if a.len() == 4 {
            put(x, y, z);
        } else {
            let yr = year(z, c.len());
            put(yr, x, y);
            put(yr, y, x);
        }
        // sysstat's banner dates are this century's: anything else was not a date.
        out.retain(|(y, _, _)| *y >= 1990);
        out
    }

    /// Whether the banner's date can fall within the Unix times `from_s` to `to_s`,
    /// give or take a day (the banner has the host's local date, the times are UTC: a
    /// day apart is the same moment somewhere). None when the banner holds no date.
    pub fn dated_within(&self, from_s: i64, to_s: i64) -> Option<bool> {
        let dates = self.banner_dates();
        if dates.is_empty() {
            return None;
        }
        let (first, last) = (
            from_s.min(to_s).div_euclid(86_400),
            to_s.max(from_s).div_euclid(86_400),
        );
        Some(dates.iter().any(|&(y, m, d)| {
            let day = days_from_civil(y, m, d);
            day >= first - 1 && day <= last + 1
        }))
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The UTC date of a Unix time, as (year, month, day) (Howard Hinnant's algorithm).
pub fn civil_from_unix(unix_s: i64) -> (i64, u32, u32) {
    let z = unix_s.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(banner: &str) -> IostatLog {
        IostatLog {
            banner: Some(banner.to_string()),
            samples: Vec::new(),
            truncated_tail: false,
        }
    }

    #[test]
    fn reads_the_banner_host_and_the_dates_its_locale_allows() {
        let us = log("Linux 6.1.0-27-amd64 (bench01) 11/30/26 _x86_64_ (64 CPU)");
        assert_eq!(us.banner_host(), Some("bench01"));
        assert_eq!(us.banner_dates(), vec![(2026, 11, 30)]);
        let ambiguous = log("Linux 6.1.0 (h) 03/04/2016 _x86_64_ (2 CPU)");
        assert_eq!(ambiguous.banner_dates(), vec![(2016, 3, 4), (2016, 4, 3)]);
        let iso = log("Linux 6.8.0 (h) 2026-11-30 _x86_64_ (2 CPU)");
        assert_eq!(iso.banner_dates(), vec![(2026, 11, 30)]);
        let de = log("Linux 6.8.0 (h) 30.11.2026 _x86_64_ (2 CPU)");
        assert_eq!(de.banner_dates(), vec![(2026, 11, 30)]);
        assert!(log("Linux 6.8.0 (h) _x86_64_ (2 CPU)")
            .banner_dates()
            .is_empty());
    }

    #[test]
    fn a_date_is_near_a_unix_time_within_the_days_given() {
        // 1796001858 is Mon Nov 30 01:24:18 2026 UTC (fio's own `time` beside it).
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2026, 11, 30), 1_796_001_858 / 86_400);
        assert_eq!(civil_from_unix(1_796_001_858), (2026, 11, 30));
        assert_eq!(civil_from_unix(951_782_400), (2000, 2, 29));
        assert_eq!(civil_from_unix(-1), (1969, 12, 31));
        let t = 1_796_001_858;
        let here = log("Linux 6.1.0 (bench01) 11/30/26 _x86_64_ (64 CPU)");
        assert_eq!(here.dated_within(t, t), Some(true));
        let old = log("Linux 4.4.0 (old01) 03/14/16 _x86_64_ (8 CPU)");
        assert_eq!(old.dated_within(t, t), Some(false));
        assert_eq!(log("Linux (h)").dated_within(t, t), None);
        // A job of three days that ended on the 30th started on the 27th: its log's date.
        let started = log("Linux 6.1.0 (bench01) 11/27/26 _x86_64_ (64 CPU)");
        assert_eq!(started.dated_within(t - 3 * 86_400, t), Some(true));
        assert_eq!(started.dated_within(t, t), Some(false));
        // No host, no date: a kernel version is not read as one.
        assert!(log("Linux 6.1.0 11/30/26").banner_dates().is_empty());
    }
}
