//! `collect`: runs a procedure through the thin shell collectors in `collectors/`, after
//! checking that nothing in use is about to be overwritten.

pub mod kv_ladder;
pub mod safety;
pub mod storage;
