//! How wide a text is in the drawing's monospaced font, and a title or a category label
//! broken into lines that fit; text escaped for SVG.

use super::ADVANCE;

/// How wide `text` is at `size` in [`FONT`].
pub(super) fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * ADVANCE * size
}

/// `text` in lines of at most `width` at `size`, broken between words (a word longer
/// than a line is cut, ending in `…`).
pub(super) fn wrap(text: &str, width: f64, size: f64) -> Vec<String> {
    let max = ((width / (ADVANCE * size)).floor() as usize).max(8);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let word: String = if word.chars().count() > max {
            let mut w: String = word.chars().take(max - 1).collect();
            w.push('…');
            w
        } else {
            word.to_string()
        };
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A category's label in lines that fit `width` at `size`: broken after a `-`, `_` or
/// `/`, or at a space (`randwrite-8k-` / `qd64`), so neighbouring labels never run into
/// each other; a piece longer than a line is cut, ending in `…`. At most three lines.
pub(super) fn label_lines(label: &str, width: f64, size: f64) -> Vec<String> {
    let max = ((width / (ADVANCE * size)).floor() as usize).max(3);
    if label.chars().count() <= max {
        return vec![label.to_string()];
    }
    // Pieces ending at a break: `randwrite-`, `8k-`, `qd64`; `adp `, `8 `, `clients`
    // (a space stays with the piece before it, and is dropped where a line ends).
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    for c in label.chars() {
        piece.push(c);
        if matches!(c, '-' | '_' | '/' | ' ') {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for p in pieces {
        let joined = line.chars().count() + p.trim_end().chars().count();
        if !line.trim_end().is_empty() && joined > max {
            lines.push(std::mem::take(&mut line).trim_end().to_string());
        }
        line.push_str(&p);
    }
    if !line.trim_end().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    for l in lines.iter_mut() {
        if l.chars().count() > max {
            *l = l.chars().take(max - 1).chain(['…']).collect();
        }
    }
    if lines.len() > 3 {
        lines.truncate(3);
        let last = &mut lines[2];
        let keep: String = last.chars().take(max.saturating_sub(1)).collect();
        *last = format!("{keep}…");
    }
    lines
}

pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
