//! What the procedure asks to look at without a pass mark: QD 1 read latency, host CPU
//! on random reads, write wait and balance across drives, usable capacity.

mod headline_runs;
mod latency;
mod member_drives;
mod pairs;

use crate::model::verdict::Observation;

use super::judge::Sides;
use super::load::{Loaded, RunGroup};
use super::reference::Reference;
// The sibling module the parts (`member_drives`) name as `super::members::...`.
use super::members;

use headline_runs::{random_read_cpu, random_write_wait};
use latency::{mixed_qd256_write_p99, qd1_read_latency};
use member_drives::{drive_balance, usable_capacity};

pub use latency::beside_published;

pub fn observations(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Vec<Observation> {
    let mut out = Vec::new();
    out.extend(qd1_read_latency(groups, sides, reference));
    out.extend(random_read_cpu(loaded, groups, sides, reference));
    out.extend(mixed_qd256_write_p99(groups, sides, reference));
    out.extend(random_write_wait(loaded, groups, sides, reference));
    out.extend(drive_balance(loaded, groups, sides, reference));
    out.push(usable_capacity(loaded, groups, sides, reference));
    out
}
