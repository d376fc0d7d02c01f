//! A run's shape (rw, block size, jobs, depth, mix) read from fio's options, so runs are
//! matched by what they did even when their names are the user's own.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::model::units::format_size;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Signature {
    pub rw: String,
    pub bs: Option<u64>,
    pub numjobs: u64,
    pub iodepth: u64,
    /// Only for mixed workloads (randrw, rw/readwrite).
    pub rwmixread: Option<u64>,
}

impl Signature {
    pub fn from_options(opts: &BTreeMap<String, String>) -> Signature {
        let get = |keys: &[&str]| keys.iter().find_map(|k| opts.get(*k)).map(String::as_str);
        let rw = normalize_rw(get(&["rw", "readwrite"]).unwrap_or("read"));
        let mixed = rw == "randrw" || rw == "rw";
        let rwmixread = if mixed {
            match (get(&["rwmixread"]), get(&["rwmixwrite"])) {
                (Some(r), _) => r.trim().parse().ok(),
                (None, Some(w)) => w
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .map(|w| 100u64.saturating_sub(w)),
                (None, None) => Some(50),
            }
        } else {
            None
        };
        Signature {
            rw,
            bs: get(&["bs", "blocksize"]).and_then(parse_size),
            numjobs: get(&["numjobs"])
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(1),
            // What each job really queued: a synchronous engine ignores iodepth.
            iodepth: super::params::effective_iodepth(opts),
            rwmixread,
        }
    }

    pub fn queue_depth(&self) -> u64 {
        self.numjobs.saturating_mul(self.iodepth)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bs = self.bs.map_or("?".to_string(), format_size);
        write!(f, "{} {bs} {}x{}", self.rw, self.numjobs, self.iodepth)?;
        if let Some(m) = self.rwmixread {
            write!(f, " {m}/{}", 100u64.saturating_sub(m))?;
        }
        Ok(())
    }
}

impl Signature {
    /// The signature as a phrase, its numbers typed: what deviations show.
    pub fn phrase(&self) -> crate::model::phrase::Phrase {
        use crate::model::phrase::{count, name, size, Phrase};
        let bs = self
            .bs
            .map_or(Phrase::from("?"), |b| crate::phrase!("{}", size(b)));
        let mix = self.rwmixread.map_or(Phrase::default(), |m| {
            crate::phrase!(" {}/{}", count(m), count(100u64.saturating_sub(m)))
        });
        crate::phrase!(
            "{} {} {}x{}{}",
            name(&self.rw),
            bs,
            count(self.numjobs),
            count(self.iodepth),
            mix
        )
    }
}

fn normalize_rw(rw: &str) -> String {
    match rw.trim() {
        "readwrite" => "rw".into(),
        "randread" | "randwrite" | "randrw" | "read" | "write" | "rw" | "trim" | "randtrim"
        | "trimwrite" => rw.trim().into(),
        other => other.to_string(),
    }
}

/// fio sizes: `8k`, `8K`, `1m`, `8192`, `4k,8k` (read,write: the first is taken),
/// `4k-8k` (a range: the lower bound). k/m/g are powers of 1024, as fio's default kb_base.
pub fn parse_size(s: &str) -> Option<u64> {
    let first = s.split([',', ':']).next()?.split('-').next()?.trim();
    let lower = first.to_ascii_lowercase();
    let digits_end = lower
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (num, unit) = lower.split_at(digits_end);
    let n: u64 = num.parse().ok()?;
    let mult: u64 = match unit.trim_end_matches('b').trim_end_matches('i') {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_fio_sizes() {
        assert_eq!(parse_size("8k"), Some(8192));
        assert_eq!(parse_size("8K"), Some(8192));
        assert_eq!(parse_size("1m"), Some(1 << 20));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("8192"), Some(8192));
        assert_eq!(parse_size("4k,8k"), Some(4096));
        assert_eq!(parse_size("4k-16k"), Some(4096));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(format_size(8192), "8k");
        assert_eq!(format_size(1 << 20), "1m");
    }

    #[test]
    fn reads_the_procedure_options() {
        let s = Signature::from_options(&opts(&[
            ("readwrite", "randrw"),
            ("bs", "8k"),
            ("numjobs", "128"),
            ("iodepth", "8"),
            ("rwmixread", "70"),
        ]));
        assert_eq!(s.rw, "randrw");
        assert_eq!(s.bs, Some(8192));
        assert_eq!(s.queue_depth(), 1024);
        assert_eq!(s.rwmixread, Some(70));
        assert_eq!(s.to_string(), "randrw 8k 128x8 70/30");
    }

    #[test]
    fn fills_fio_defaults() {
        let s = Signature::from_options(&opts(&[("rw", "randrw"), ("rwmixwrite", "30")]));
        assert_eq!((s.numjobs, s.iodepth, s.rwmixread), (1, 1, Some(70)));
        let s = Signature::from_options(&opts(&[("rw", "randread")]));
        assert_eq!(s.rwmixread, None);
    }
}
