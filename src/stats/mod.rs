//! Small statistics shared by the suites, compare and the readers: the median and spread
//! of a few runs, Student's t distribution, and the interval of a ratio of two pools of
//! runs.

pub mod batch;
pub mod rank;
pub mod ratio;
pub mod student;
pub mod summary;

pub use summary::{geometric_mean, median, spread};
