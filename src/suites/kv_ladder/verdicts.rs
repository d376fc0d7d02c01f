//! Test 2's criteria: parity at 1-4 clients, the advantage past the GPU cache, failures,
//! the connector staying on.

mod advantage;
mod base;
mod parity;
mod whole_ladder;

pub(super) use advantage::advantage_verdict;
pub(super) use base::base;
pub(super) use parity::parity_verdict;
pub(super) use whole_ladder::{failures_verdict, turned_off_verdict};
