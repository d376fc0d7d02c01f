//! What an analysis is, apart from how it is made: the reports the suites fill.

pub mod report;
