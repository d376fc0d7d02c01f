//! Renderers of the one analysis model: terminal text, Markdown (minijinja template).

pub mod markdown;
pub mod pdf;
pub mod report;
pub mod svg;
pub mod terminal;
