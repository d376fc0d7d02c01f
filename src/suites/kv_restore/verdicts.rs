//! Test 1's criteria, one verdict each: cached share, restore time, plain recompute, KV
//! cache size, connector.

mod cached;
mod named;
mod plain;
mod server_logs;
mod time;

pub(super) use cached::cached_verdict;
pub(super) use plain::plain_cold_verdict;
pub(super) use server_logs::{connector_verdict, kv_size_verdict};
pub(super) use time::time_verdict;
