//! Renderers of the one analysis model: terminal text, Markdown (minijinja template).

pub mod limits;
pub mod pdf;
pub mod report;
pub mod svg;
pub mod templates;
pub mod terminal;

pub use crate::model::phrase::few;

/// A number with few enough digits to read.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.1 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}
