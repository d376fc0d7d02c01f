//! SPDK RAID benchmark inputs, generated the article's way: the SPDK JSON config and the
//! fio job files (`ioengine=spdk_bdev`), with raid5f's full-stripe rule checked first.

pub mod config;
pub mod jobs;

use std::fmt;

/// The array an SPDK config builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Raid {
    /// No array: the raw drives (the baseline).
    None,
    /// SPDK's own raid bdev: `raid0`, `raid1`, `concat`, or `raid5f`.
    Spdk(String),
    /// Xinnor SPDK RAID (`bdev_rdx_raid_create`) at a numeric level: 0, 1, 10, 5, 6, 50, ...
    Xinnor(u32),
}

impl Raid {
    pub fn parse(s: &str) -> Result<Raid, String> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "none" | "raw" => Ok(Raid::None),
            "raid5f" | "raid0" | "raid1" | "concat" => Ok(Raid::Spdk(s)),
            _ => match s.strip_prefix("xinnor:").or_else(|| s.strip_prefix("xinnor")) {
                Some(l) if !l.is_empty() => l
                    .trim_start_matches(':')
                    .parse()
                    .map(Raid::Xinnor)
                    .map_err(|_| format!("`{s}`: the Xinnor level must be a number, e.g. xinnor:5")),
                _ => Err(format!(
                    "`{s}` is not an array kind: use raid5f, raid0, raid1, concat, xinnor:<level> or none"
                )),
            },
        }
    }

    /// Data strips per stripe for parity levels (what a full-stripe write spans).
    pub fn data_drives(&self, drives: u32) -> Option<u32> {
        match self {
            Raid::Spdk(l) if l == "raid5f" => drives.checked_sub(1),
            Raid::Xinnor(5) => drives.checked_sub(1),
            Raid::Xinnor(6) => drives.checked_sub(2),
            _ => None,
        }
    }

    /// Whether the array refuses writes smaller than a full stripe (raid5f has no
    /// read-modify-write).
    pub fn full_stripe_writes_only(&self) -> bool {
        matches!(self, Raid::Spdk(l) if l == "raid5f")
    }
}

impl fmt::Display for Raid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Raid::None => f.write_str("raw drives"),
            Raid::Spdk(l) => f.write_str(l),
            Raid::Xinnor(l) => write!(f, "Xinnor RAID{l}"),
        }
    }
}

/// The full stripe in bytes: strip size x data drives.
pub fn stripe_bytes(raid: &Raid, drives: u32, strip_kb: u32) -> Option<u64> {
    raid.data_drives(drives)
        .map(|d| d as u64 * strip_kb as u64 * 1024)
        .filter(|s| *s > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_array_kinds_and_stripes() {
        assert_eq!(Raid::parse("raid5f"), Ok(Raid::Spdk("raid5f".into())));
        assert_eq!(Raid::parse("xinnor:6"), Ok(Raid::Xinnor(6)));
        assert_eq!(Raid::parse("none"), Ok(Raid::None));
        assert!(Raid::parse("raid7").is_err());
        assert!(Raid::parse("xinnor:x").is_err());
        assert_eq!(
            stripe_bytes(&Raid::Spdk("raid5f".into()), 8, 64),
            Some(448 * 1024)
        );
        assert_eq!(
            stripe_bytes(&Raid::Spdk("raid5f".into()), 16, 64),
            Some(960 * 1024)
        );
        assert_eq!(stripe_bytes(&Raid::Xinnor(6), 8, 64), Some(384 * 1024));
    }
}
