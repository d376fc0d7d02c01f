//! `collect`: runs a procedure through the thin shell collectors in `collectors/`, after
//! checking that nothing in use is about to be overwritten.

pub mod guard;
pub mod kv_ladder;
pub mod outcome;
pub mod steps;
pub mod storage;
