//! The two compared arrays' figures side by side, and the published pair beside them.

use crate::model::phrase::{name, plain, Phrase};
use crate::phrase;
use crate::suites::storage::judge::Sides;
use crate::suites::storage::reference::Reference;

pub(super) fn pair(sides: &Sides, b: Option<Phrase>, c: Option<Phrase>) -> Phrase {
    phrase!(
        "{}: {} · {}: {}",
        name(&sides.baseline),
        b.unwrap_or_else(Phrase::dash),
        name(&sides.candidate),
        c.unwrap_or_else(Phrase::dash)
    )
}

/// The published pair in microseconds (the procedure writes `us`).
pub(super) fn published_pair(reference: &Reference, key: &str) -> (Phrase, String) {
    let v = |x: Option<f64>| x.map_or(Phrase::dash(), |v| phrase!("{}", plain(v)));
    match reference.observation(key) {
        Some(o) => (
            phrase!(
                "{}: {} us · {}: {} us",
                name(&reference.arrays.baseline),
                v(o.baseline),
                name(&reference.arrays.candidate),
                v(o.candidate)
            ),
            o.source.clone(),
        ),
        None => (Phrase::dash(), String::new()),
    }
}
