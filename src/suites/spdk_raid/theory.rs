//! Theoretical maxima of RAID levels from the raw drives: what n drives can give for each
//! kind of I/O once the level's penalty is paid.

/// The kinds of I/O the article measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    RandomRead,
    StripeRead,
    StripeWrite,
    RandomWrite,
}

impl Op {
    pub fn label(self) -> &'static str {
        match self {
            Op::RandomRead => "random read",
            Op::StripeRead => "full-stripe read",
            Op::StripeWrite => "full-stripe write",
            Op::RandomWrite => "random write",
        }
    }
}

/// How many drives' worth of `op` a level delivers from `n` drives:
/// RAID0 n; RAID5 reads n, full-stripe writes n-1, random writes n/4 (read-modify-write:
/// two reads and two writes); RAID6 reads n, n-2 and n/6; RAID10 reads n, writes n/2.
pub fn drives_worth(level: &str, op: Op, n: u32) -> Option<f64> {
    let n = n as f64;
    let v = match (level, op) {
        ("raw" | "raid0", _) => n,
        ("raid5" | "raid5f", Op::RandomRead | Op::StripeRead) => n,
        ("raid5" | "raid5f", Op::StripeWrite) => n - 1.0,
        ("raid5" | "raid5f", Op::RandomWrite) => n / 4.0,
        ("raid6", Op::RandomRead | Op::StripeRead) => n,
        ("raid6", Op::StripeWrite) => n - 2.0,
        ("raid6", Op::RandomWrite) => n / 6.0,
        ("raid10", Op::RandomRead | Op::StripeRead) => n,
        ("raid10", Op::StripeWrite | Op::RandomWrite) => n / 2.0,
        _ => return None,
    };
    (v > 0.0).then_some(v)
}

/// The RAID level an array name or an SPDK config's `raid_level` means.
pub fn level_of(name: &str) -> Option<&'static str> {
    let n = name.trim().to_ascii_lowercase();
    let n = n.trim_start_matches("raid");
    Some(match n {
        "raw" | "none" => "raw",
        "0" => "raid0",
        "5f" => "raid5f",
        "5" => "raid5",
        "6" => "raid6",
        "10" => "raid10",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_has_its_arithmetic() {
        assert_eq!(drives_worth("raid0", Op::RandomWrite, 8), Some(8.0));
        assert_eq!(drives_worth("raid5", Op::RandomRead, 8), Some(8.0));
        assert_eq!(drives_worth("raid5f", Op::StripeRead, 16), Some(16.0));
        assert_eq!(drives_worth("raid5", Op::StripeWrite, 8), Some(7.0));
        assert_eq!(drives_worth("raid5", Op::RandomWrite, 8), Some(2.0));
        assert_eq!(drives_worth("raid6", Op::StripeRead, 8), Some(8.0));
        assert_eq!(drives_worth("raid6", Op::StripeWrite, 8), Some(6.0));
        assert_eq!(drives_worth("raid6", Op::RandomWrite, 12), Some(2.0));
        assert_eq!(drives_worth("raid10", Op::RandomRead, 8), Some(8.0));
        assert_eq!(drives_worth("raid10", Op::StripeWrite, 8), Some(4.0));
        assert_eq!(drives_worth("raid10", Op::RandomWrite, 8), Some(4.0));
        assert_eq!(drives_worth("raid1", Op::RandomRead, 2), None);
        assert_eq!(level_of("RAID5"), Some("raid5"));
        assert_eq!(level_of("5f"), Some("raid5f"));
        assert_eq!(level_of("10"), Some("raid10"));
    }
}
