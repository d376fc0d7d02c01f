//! Tests of the terminal view: columns aligned and cut to fit, short reasons, short ids.

use super::summary::short_ids;
use super::*;

#[test]
fn aligns_columns() {
    let text = aligned(
        &["a".into(), "bb".into()],
        &[vec!["xxx".into(), "y".into()]],
    );
    assert_eq!(text, "a    bb\nxxx  y\n");
}

#[test]
fn a_table_wider_than_the_terminal_is_cut_to_fit_its_widest_columns() {
    let columns: Vec<String> = vec!["status".into(), "criterion".into(), "measured".into()];
    let rows = vec![vec![
        "pass".to_string(),
        "a criterion sentence much longer than the terminal is wide, by far".to_string(),
        "6.41x (6934 vs 1082 MB/s)".to_string(),
    ]];
    let mut out = Styled::default();
    aligned_into(&mut out, &columns, &rows, Fit::to(Some(60)), |_, _| None);
    for line in out.text().lines() {
        assert!(line.chars().count() <= 60, "{line:?}");
    }
    assert!(out.text().contains('…'), "{}", out.text());
    // The narrow column is left whole; the widest one gave way.
    assert!(out.text().contains("pass"));
    // Piped (no width): nothing is cut.
    let plain = aligned(&columns, &rows);
    assert!(plain.contains("by far") && !plain.contains('…'));
}

#[test]
fn a_short_reason_is_the_first_clause_cut_at_a_word() {
    assert_eq!(short_reason("one; two", 100), "one");
    let long = "word ".repeat(40);
    let s = short_reason(&long, 30);
    assert!(s.chars().count() <= 30 && s.ends_with('…'), "{s}");
    assert!(!s.contains("wor…"), "{s}");
}

#[test]
fn ids_sharing_a_suite_say_it_once() {
    assert_eq!(
        short_ids(&["toy.L1-parity", "toy.L2-parity"]),
        "toy.L1-parity, L2-parity"
    );
    assert_eq!(short_ids(&["a.x", "b.y"]), "a.x, b.y");
}
