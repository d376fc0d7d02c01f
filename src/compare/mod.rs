//! Comparing two runs (or two pools of runs): what differs between the setups, the
//! criteria of each side, and every measurement matched by its key with base, new, delta
//! and a noise-aware verdict. Also the trend of each criterion's number across inputs.

pub mod campaign;
mod comparison;
mod criteria;
pub mod judge;
mod matching;
pub mod measure;
mod pool;
pub mod render;
pub mod setup_diff;
pub mod trend;

pub use campaign::Campaign;
pub use comparison::{Comparison, CriterionPair, Pooled, RankTestRow, Row, Summary, Unmatched};
pub use judge::Change;
pub use matching::compare;

pub use crate::model::measurement::range_over;
