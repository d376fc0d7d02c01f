//! One fio reader: on every fio file the fixtures and samples hold, it reads what fio's
//! documentation says the file holds (the oracle in `fio_oracle.rs`).

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
fn the_one_reader_reads_every_fixture_as_fio_documents_its_output() {
    let mut all = Vec::new();
    for d in ["tests/fixtures", "samples"] {
        files(&root().join(d), &mut all);
    }
    let mut checked = 0;
    for p in &all {
        let bytes = std::fs::read(p).expect("read");
        match fio::parse_bytes(&bytes) {
            Ok(one) => match crate::fio_oracle::agrees(&bytes, &one) {
                Ok(true) => checked += 1,
                Ok(false) => {}
                Err(e) => panic!("{}: {e}", p.display()),
            },
            Err(e) => {
                // A real fio file the documentation reads is never refused.
                let text = String::from_utf8_lossy(&bytes);
                assert!(
                    !text.contains("\"fio version\"")
                        || p.to_string_lossy().contains("broken")
                        || !serde_json::from_str::<serde_json::Value>(&text)
                            .is_ok_and(|v| v.get("jobs").is_some()),
                    "{}: a whole fio document, refused: {e:?}",
                    p.display()
                );
            }
        }
    }
    assert!(checked > 100, "the documentation checked {checked} files");
}

/// A reader's mistake, made on a good reading.
type Spoil = fn(&mut fio::FioOutput);

/// The oracle is not a mirror: a reader off by a documented unit (bandwidth in KiB/s,
/// latencies in µs, I/O in KiB, a json+ bin dropped, a job's group) is caught.
#[test]
fn the_documentation_oracle_catches_a_reader_off_by_a_unit() {
    let bytes = std::fs::read(root().join("tests/fixtures/fio/json-plus.json")).expect("read");
    let one = fio::parse_bytes(&bytes).expect("reads");
    assert_eq!(crate::fio_oracle::agrees(&bytes, &one), Ok(true));
    let off: [(&str, Spoil); 6] = [
        ("bandwidth in KiB/s", |o| o.jobs[0].read.bw_bytes /= 1024.0),
        ("completion latency in µs", |o| {
            o.jobs[0].read.clat.mean /= 1000.0
        }),
        ("a percentile in µs", |o| {
            o.jobs[0].read.clat.percentiles[0].1 /= 1000.0
        }),
        ("I/O in KiB", |o| o.jobs[0].read.io_bytes /= 1024),
        ("a json+ bin dropped", |o| {
            if let Some(b) = o.jobs[0].read.clat.bins.as_mut() {
                b.pop();
            }
        }),
        ("another group", |o| o.jobs[0].groupid += 1),
    ];
    for (what, spoil) in off {
        let mut wrong = one.clone();
        spoil(&mut wrong);
        assert!(
            crate::fio_oracle::agrees(&bytes, &wrong).is_err(),
            "a reader with {what} passed the oracle"
        );
    }
}

/// Every number of a real fio file changed in turn to values fio never writes there (a
/// whole number written as a float, zero, a huge one, a negative one): wherever the tool
/// still reads the file, it reads what the documentation says the changed file holds.
#[test]
fn one_number_changed_at_a_time_the_reader_and_the_documentation_agree() {
    let mut checked = 0;
    for name in ["normal-json.json", "lat-percentiles.json", "job-error.json"] {
        let text =
            std::fs::read_to_string(root().join("tests/fixtures/fio").join(name)).expect("read");
        // Where each number token starts and ends.
        let b = text.as_bytes();
        let mut spans = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if (b[i].is_ascii_digit() || b[i] == b'-') && i > 0 && b" :[".contains(&b[i - 1]) {
                let s = i;
                while i < b.len() && (b[i].is_ascii_digit() || b".-+eE".contains(&b[i])) {
                    i += 1;
                }
                spans.push((s, i));
            }
            i += 1;
        }
        assert!(spans.len() > 50, "{name}: {} numbers", spans.len());
        for (s, e) in spans {
            for with in ["7.0", "0", "1e19", "-3", "123456789012"] {
                let changed = format!("{}{with}{}", &text[..s], &text[e..]);
                if let Ok(one) = fio::parse_bytes(changed.as_bytes()) {
                    if let Err(why) = crate::fio_oracle::agrees(changed.as_bytes(), &one) {
                        panic!("{name}: `{}` -> `{with}`: {why}", &text[s..e]);
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 500, "{checked} changed files read");
}
