//! `collect`: how a procedure runs through the thin shell collectors in `collectors/`,
//! after checking that nothing in use is about to be overwritten: the steps, the device
//! guard, the plan and its preflight, the rounds, the scripts. What each procedure runs
//! lives with its suite (`src/suites/<suite>/collect.rs`).

pub mod guard;
pub mod outcome;
pub mod plan;
pub mod plugin;
pub mod rounds;
pub mod scripts;
pub mod steps;
pub mod sysinfo;
