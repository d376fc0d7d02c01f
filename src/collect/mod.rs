//! `collect`: runs a procedure through the thin shell collectors in `collectors/`, after
//! checking that nothing in use is about to be overwritten.

pub mod guard;
pub mod kv;
pub mod kv_dram;
pub mod kv_ladder;
pub mod kv_restore;
pub mod kv_server;
pub mod outcome;
pub mod plan;
pub mod rounds;
pub mod scripts;
pub mod spdk_raid;
pub mod steps;
pub mod storage;
pub mod sysinfo;
