//! Tests of the ladder: name splitting and the procedure script's fixture table.

use super::read::median;
use super::*;

#[test]
fn splits_names() {
    assert_eq!(
        split_level("results/adp-1-L16"),
        Some(("results/adp-1", 16))
    );
    assert_eq!(split_level("adp-1-Lx"), None);
    assert_eq!(
        split_run("results/gpu-only-2"),
        ("gpu-only".into(), "2".into())
    );
    assert_eq!(median(vec![3.0, 1.0, 2.0, 10.0]), Some(2.5));
}

#[test]
fn reproduces_the_fixture_table_of_the_procedure_script() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kv-ladder-client");
    let catalog = Catalog::scan(&root).expect("scan");
    let mut skipped = Vec::new();
    let levels = load(&catalog, &mut skipped);
    assert!(skipped.is_empty(), "{skipped:?}");
    let mut text = vec![script_header()];
    text.extend(
        levels
            .iter()
            .map(|l| l.script_line.clone().expect("readable")),
    );
    // Printed by the procedure's own script over these files (fixture README).
    assert_eq!(
        text.join("\n"),
        "variant-run      clients requests output tok/s TTFT p50 s gen tok/s  GPU hit card hit\n\
         adp-1                  1       40         93.4       0.03     106.7     75 %      0 %\n\
         gpu-only-1             1       40         91.7       0.03     104.9     75 %        -"
    );
    assert_eq!(levels[0].failures, Some(0));
}
