//! Renderers of the one analysis model: terminal text, Markdown (minijinja template).

pub mod pdf;
pub mod report;
pub mod svg;
pub mod templates;
pub mod terminal;

/// A list shown in one cell or line: the first three, then how many more.
pub fn few(v: &[String]) -> String {
    match v.len() {
        0 => "-".into(),
        1..=3 => v.join(", "),
        n => format!("{} and {} more", v[..3].join(", "), n - 3),
    }
}
