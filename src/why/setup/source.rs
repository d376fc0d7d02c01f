//! Where a fact was read: the file, and its line where there is one.

pub(super) fn at(rel: &str, line: Option<usize>) -> String {
    match line {
        Some(l) => format!("{rel}:{l}"),
        None => rel.to_string(),
    }
}
