//! What the criteria read from an array folder and its runs: the RAID level and stripe,
//! which op each run is, and the best result of an op, the raw drives' per drive.

use crate::suites::spdk_raid::load::{ArrayDir, Run};
use crate::suites::spdk_raid::reference::SpdkReference;
use crate::suites::spdk_raid::theory::{level_of, Op};

/// The RAID level of an array folder: its config, its raid state, else its name.
pub fn level(a: &ArrayDir) -> Option<&'static str> {
    a.config
        .as_ref()
        .and_then(|c| c.raid_level.as_deref())
        .and_then(level_of)
        .or_else(|| a.state.as_ref().and_then(|s| level_of(&s.raid_level)))
        .or_else(|| match a.array.to_ascii_lowercase().as_str() {
            "raw" => Some("raw"),
            "raid5f" => Some("raid5f"),
            "xinnor" => Some("raid5"),
            other => level_of(other),
        })
}

/// Strip size in KiB: the config's, the raid state's, else the article's.
fn strip_kb(a: &ArrayDir, r: &SpdkReference) -> u32 {
    a.config
        .as_ref()
        .and_then(|c| c.strip_kb)
        .or_else(|| a.state.as_ref().and_then(|s| s.strip_size_kb))
        .unwrap_or_else(|| r.strip_kb())
}

/// Bytes a full-stripe I/O spans on this array, for parity and striped levels.
pub fn stripe_bytes(a: &ArrayDir, r: &SpdkReference) -> Option<u64> {
    let data = match level(a)? {
        "raid5" | "raid5f" => a.drives.checked_sub(1)?,
        "raid6" => a.drives.checked_sub(2)?,
        "raid0" => a.drives,
        "raid10" => a.drives / 2,
        _ => return None,
    };
    // A zero strip or no data drives (`strip_size_kb: 0`, a one-drive raid5f) has no
    // stripe to be a multiple of.
    Some(data as u64 * strip_kb(a, r) as u64 * 1024).filter(|s| *s > 0)
}

/// Which op a run is, if it is one the criteria use; full-stripe ops only when bs spans
/// whole stripes.
pub fn op_of(run: &Run, a: &ArrayDir, r: &SpdkReference) -> Option<Op> {
    let stripe = stripe_bytes(a, r);
    let whole = |bs: Option<u64>| match (stripe, bs) {
        (Some(s), Some(b)) => b % s == 0,
        (None, _) => true,
        _ => false,
    };
    match run.sig.rw.as_str() {
        "randread" => Some(Op::RandomRead),
        "randwrite" => Some(Op::RandomWrite),
        "read" if whole(run.sig.bs) => Some(Op::StripeRead),
        "write" if whole(run.sig.bs) => Some(Op::StripeWrite),
        _ => None,
    }
}

/// raid5f refuses sub-stripe writes: such runs fail by design, not by accident.
pub fn unsupported(run: &Run, a: &ArrayDir, r: &SpdkReference) -> bool {
    let writes = matches!(run.sig.rw.as_str(), "write" | "randwrite" | "randrw" | "rw");
    let sub_stripe = match (stripe_bytes(a, r), run.sig.bs) {
        (Some(s), Some(b)) => b % s != 0,
        _ => false,
    };
    level(a) == Some("raid5f") && writes && sub_stripe && run.failed()
}

/// The best result of `op` on `a`: IOPS for random ops, GB/s for full-stripe ones.
pub fn best(a: &ArrayDir, op: Op, r: &SpdkReference, degraded: bool) -> Option<(f64, String)> {
    a.runs
        .iter()
        .filter(|run| run.degraded == degraded && run.clean() && op_of(run, a, r) == Some(op))
        .map(|run| {
            let v = match op {
                Op::RandomRead | Op::RandomWrite => run.iops(),
                Op::StripeRead | Op::StripeWrite => run.gbps(),
            };
            (v, run.file.clone())
        })
        .max_by(|x, y| x.0.total_cmp(&y.0))
}

/// The raw drives' result per drive for `op`: from raw at the same count, else any raw.
pub(super) fn per_drive(
    arrays: &[ArrayDir],
    n: u32,
    op: Op,
    r: &SpdkReference,
) -> Option<(f64, String, bool)> {
    let mut raws: Vec<&ArrayDir> = arrays.iter().filter(|a| level(a) == Some("raw")).collect();
    raws.sort_by_key(|a| (a.drives != n, a.drives));
    raws.into_iter()
        .find_map(|a| best(a, op, r, false).map(|(v, f)| (v / a.drives as f64, f, a.drives == n)))
}
