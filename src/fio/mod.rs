//! fio semantics shared by the suites that read fio: jobs summed per reporting group as
//! `group_reporting` would, and a run's shape read from its options.

pub mod groups;
pub mod params;
pub mod signature;
