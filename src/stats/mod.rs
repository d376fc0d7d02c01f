//! Small statistics shared by the suites, compare and the readers: the median and spread
//! of a few runs, Student's t distribution, the interval of a ratio of two pools of
//! runs, and the band of a limit computed from a pool.

pub mod band;
pub mod batch;
pub mod rank;
pub mod ratio;
pub mod student;
pub mod summary;

pub use summary::{geometric_mean, median, spread};
