//! Renderers of the one analysis model: terminal text, Markdown (minijinja template).

pub mod pdf;
pub mod report;
pub mod svg;
pub mod templates;
pub mod terminal;
