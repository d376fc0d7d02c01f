//! Why a number is what it is: how the setup differs from the procedure's reference setup
//! (conformance), what the hardware allows (physical limits beside the measurements), and
//! what to check next when a criterion is not met. Everything here is read from the
//! files or quoted from the procedures; a cell the files do not give is `unknown`, with
//! the file that would give it.

pub mod conformance;

pub mod next_steps;
pub mod setup;

/// `12.3 GB` from bytes, decimal units as the procedures use.
pub fn gb(bytes: f64) -> String {
    if bytes >= 1e12 {
        format!("{:.2} TB", bytes / 1e12)
    } else if bytes >= 1e9 {
        format!("{:.1} GB", bytes / 1e9)
    } else {
        format!("{:.0} MB", bytes / 1e6)
    }
}
