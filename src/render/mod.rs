//! Renderers of the one analysis model: terminal text, Markdown (minijinja template).

pub mod markdown;
pub mod terminal;
