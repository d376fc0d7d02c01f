//! One fio reader: on every fio file the fixtures and samples hold, it reads what the
//! Value-based reader it replaced read, field for field.

use std::path::{Path, PathBuf};

use reprobench::parse::fio;

use crate::common::root;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json" || x == "out") {
            out.push(p);
        }
    }
}

#[test]
fn the_one_reader_reads_every_fixture_as_the_value_based_reader_did() {
    let mut all = Vec::new();
    for d in ["tests/fixtures", "samples"] {
        files(&root().join(d), &mut all);
    }
    let mut both = 0;
    for p in &all {
        let bytes = std::fs::read(p).expect("read");
        let (one, oracle) = (
            fio::parse_bytes(&bytes),
            crate::fio_oracle::read_general(&bytes),
        );
        match (one, oracle) {
            (Ok(one), Ok(oracle)) => {
                both += 1;
                assert_eq!(format!("{one:?}"), format!("{oracle:?}"), "{}", p.display());
            }
            (Err(e), Ok(_)) => panic!(
                "{}: the old reader read it, the one reader says {e:?}",
                p.display()
            ),
            (Ok(_), Err(_)) | (Err(_), Err(_)) => {}
        }
    }
    assert!(both > 100, "both readers read {both} files");
}
