//! The wording shared by the verdicts' notes: reasons joined with `; `.

use crate::model::phrase::Phrase;

/// `why` before what the note already says.
pub(super) fn before(why: Phrase, note: &Phrase) -> Phrase {
    Phrase::joined([why, note.clone()], "; ")
}

pub(super) fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}; {b}"),
    }
}
