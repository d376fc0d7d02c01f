//! What an analysis is, apart from how it is made: verdicts and their observations,
//! deviations, measurements and their units, phrases, qualifiers, charts, physical
//! limits, and the reports the suites fill. It imports only std, serde and its own files.

pub mod chart;
pub mod deviation;
pub mod limit;
pub mod measurement;
pub mod phrase;
pub mod qualifier;
pub mod report;
pub mod units;
pub mod verdict;
