//! `dataset compact`: a dataset's campaigns merged into one file per table and suite,
//! read back the same; replacing a campaign of a merged segment; a dataset of schema 1
//! refused by `add` and rewritten by `compact` with every row.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars_core::prelude::*;
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use serde_json::Value;

use crate::common::{copy_dir, edit_json, root, run, s, samples, snapshot, Run};

/// The trend of every sample's campaign in the dataset but those named `except`.
fn trend_except(ds: &Path, except: &[&str]) -> String {
    let names: Vec<String> = samples()
        .iter()
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .filter(|n| !except.contains(&n.as_str()))
        .collect();
    let r = run(&[
        "analyze",
        "--trend",
        &format!("{}:{}", s(ds), names.join(",")),
        "--format",
        "json",
    ]);
    ok(&r).to_string()
}

/// The dataset's files (the lock aside), relative to it.
fn tree(ds: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot(ds)
        .into_iter()
        .filter(|(p, _)| !p.ends_with(".lock"))
        .map(|(p, b)| (p.strip_prefix(ds).expect("inside").to_path_buf(), b))
        .collect()
}

fn parquet_files(ds: &Path) -> Vec<PathBuf> {
    tree(ds)
        .into_keys()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect()
}

fn ok(r: &Run) -> &str {
    assert!(r.code == 0 || r.code == 1, "{}{}", r.stdout, r.stderr);
    &r.stdout
}

/// What the tool reads back from a dataset: the trend over every campaign, and two
/// campaigns compared.
fn read_back(ds: &Path) -> (String, String) {
    let trend = run(&["analyze", "--trend", s(ds), "--format", "json"]);
    let compare = run(&[
        "compare",
        &format!("{}:storage-published", s(ds)),
        &format!("{}:storage-loopback", s(ds)),
        "--format",
        "json",
    ]);
    (ok(&trend).to_string(), ok(&compare).to_string())
}

fn frame(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).expect("open"))
        .finish()
        .expect("parquet")
}

#[test]
fn compact_merges_every_campaign_into_one_file_per_table_and_suite_and_reads_the_same() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    let r = run(&[
        &["dataset", "add", s(&ds)][..],
        &samples().iter().map(|p| s(p)).collect::<Vec<_>>(),
    ]
    .concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let before = read_back(&ds);
    let suites = std::fs::read_dir(ds.join("verdicts"))
        .expect("verdicts")
        .count();
    let index: Value =
        serde_json::from_slice(&std::fs::read(ds.join("_index.json")).expect("index"))
            .expect("json");
    let campaign_suites: usize = index["campaigns"]
        .as_object()
        .expect("campaigns")
        .values()
        .map(|e| e["suites"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(
        parquet_files(&ds).len(),
        6 * campaign_suites,
        "one file per table, suite and campaign as added"
    );
    assert!(campaign_suites > suites, "{campaign_suites} {suites}");

    // Files no query reads (a Spark job's marker, a desktop's) are left alone.
    std::fs::write(ds.join("verdicts/suite=storage/_SUCCESS"), b"").expect("marker");
    std::fs::write(ds.join("verdicts/suite=storage/.DS_Store"), b"x").expect("hidden");
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(&format!(
            "compacted from {} files to {}",
            6 * campaign_suites,
            6 * suites
        )),
        "{}",
        r.stdout
    );
    assert_eq!(parquet_files(&ds).len(), 6 * suites);
    assert_eq!(read_back(&ds), before, "the same campaigns read back");

    // Again: nothing to do, not a byte moved.
    let compacted = tree(&ds);
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("already compact"), "{}", r.stdout);
    assert_eq!(tree(&ds), compacted);

    // A changed campaign under a name the merged segment holds: it is replaced, the
    // others are written again without it and read back as before.
    let changed = d.path().join("storage-published");
    copy_dir(&root().join("samples/storage-published"), &changed);
    edit_json(&changed.join("results/adp/randwrite-8k-j8-d8.json"), |v| {
        let w = &mut v["jobs"][0]["write"];
        w["iops"] = Value::from(w["iops"].as_f64().expect("iops") * 0.5);
        w["bw_bytes"] = Value::from(w["bw_bytes"].as_u64().expect("bw") / 2);
        w["bw"] = Value::from(w["bw"].as_u64().expect("bw") / 2);
    });
    let others = |ds: &Path| trend_except(ds, &["storage-published"]);
    let others_before = others(&ds);
    let r = run(&["dataset", "add", s(&ds), s(&changed)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("replaced campaign"), "{}", r.stdout);
    assert_eq!(
        parquet_files(&ds).len(),
        6 * suites + 6,
        "the rewritten segment and the new one"
    );
    assert_eq!(
        others(&ds),
        others_before,
        "the other campaigns are untouched"
    );
    assert_ne!(
        read_back(&ds).1,
        before.1,
        "the replaced campaign is the new one"
    );

    // One add with two inputs replacing two campaigns of the merged segment: the second
    // sees the first's rewrite (staged, not yet in place) and rewrites it again.
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Folders named as the campaigns they replace, both changed.
    let published = d.path().join("b/storage-published");
    copy_dir(&root().join("samples/storage-published"), &published);
    edit_json(
        &published.join("results/adp/randwrite-8k-j8-d8.json"),
        |v| {
            let w = &mut v["jobs"][0]["write"];
            w["iops"] = Value::from(w["iops"].as_f64().expect("iops") * 0.25);
        },
    );
    let loopback = d.path().join("b/storage-loopback");
    copy_dir(&root().join("samples/storage-loopback"), &loopback);
    let json = std::fs::read_dir(loopback.join("results/adp"))
        .expect("adp")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a fio result");
    edit_json(&json, |v| {
        let w = &mut v["jobs"][0];
        for side in ["read", "write"] {
            if let Some(iops) = w[side]["iops"].as_f64() {
                w[side]["iops"] = Value::from(iops * 0.7);
            }
        }
    });
    let others_now = |ds: &Path| trend_except(ds, &["storage-published", "storage-loopback"]);
    let kv_before = others_now(&ds);
    let r = run(&["dataset", "add", s(&ds), s(&published), s(&loopback)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.matches("replaced campaign").count(),
        2,
        "{}",
        r.stdout
    );
    // Read back: the two new campaigns, as analyze reads their folders.
    for (name, folder) in [
        ("storage-published", &published),
        ("storage-loopback", &loopback),
    ] {
        let from_ds = run(&[
            "analyze",
            "--trend",
            &format!("{}:{name}", s(&ds)),
            s(folder),
            "--format",
            "json",
        ]);
        let v: Value = serde_json::from_str(ok(&from_ds)).expect("json");
        for row in v["trend"]["rows"].as_array().expect("rows") {
            assert_eq!(row["statuses"][0], row["statuses"][1], "{name}: {row}");
        }
    }
    assert_eq!(
        others_now(&ds),
        kv_before,
        "the other campaigns are untouched"
    );
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(parquet_files(&ds).len(), 6 * suites);
    assert_eq!(others_now(&ds), kv_before);

    // A damaged file: compaction refuses and changes nothing (a campaign added since
    // the last compaction, so that there is something to do).
    let r = run(&["dataset", "add", s(&ds), s(&changed), "--name", "extra"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let victim = parquet_files(&ds)[0].clone();
    let mut b = std::fs::read(ds.join(&victim)).expect("read");
    let mid = b.len() / 2;
    b[mid] ^= 0x55;
    std::fs::write(ds.join(&victim), &b).expect("write");
    let damaged = tree(&ds);
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("sha256 differs"), "{}", r.stderr);
    assert_eq!(tree(&ds), damaged, "nothing changed");
}

#[test]
fn a_schema_1_dataset_is_refused_by_add_and_rewritten_by_compact_with_every_row() {
    let d = tempfile::tempdir().expect("tempdir");
    let old = root().join("tests/fixtures/dataset/written-by-schema-1.1");
    let ds = d.path().join("ds");
    copy_dir(&old, &ds);
    let was = tree(&ds);
    let sample = root().join("samples/storage-published");
    let r = run(&["dataset", "add", s(&ds), s(&sample)]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("schema major version 1")
            && r.stderr
                .contains(&format!("reprobench dataset compact {}", ds.display())),
        "{}",
        r.stderr
    );
    assert_eq!(tree(&ds), was, "refused, nothing changed");

    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("rewritten from schema 1"), "{}", r.stdout);
    assert!(
        parquet_files(&ds)
            .iter()
            .all(|p| !p.to_string_lossy().contains("campaign=")),
        "{:?}",
        parquet_files(&ds)
    );
    // Every row of every schema 1 file is in the new file of its table and suite, with
    // its campaign's id; its values the same, column by column.
    let mut rows = 0;
    for rel in was
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
    {
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let (table, suite, id) = (
            &parts[0],
            &parts[1],
            parts[2].trim_start_matches("campaign="),
        );
        let old_df = frame(&old.join(rel));
        let new_files: Vec<PathBuf> = parquet_files(&ds)
            .into_iter()
            .filter(|p| p.starts_with(Path::new(table).join(suite)))
            .collect();
        assert_eq!(new_files.len(), 1, "{new_files:?}");
        let all = frame(&ds.join(&new_files[0]));
        let mask = all
            .column("campaign")
            .expect("campaign")
            .str()
            .expect("str")
            .equal(id);
        let new_df = all.filter(&mask).expect("filter");
        assert_eq!(new_df.height(), old_df.height(), "{}", rel.display());
        for c in old_df.columns() {
            let name = c.name().as_str();
            let got = new_df.column(name).expect("column kept");
            if name == "schema_version" {
                continue;
            }
            if name == "started" {
                // Schema 1's text (RFC 3339, UTC) is now a timestamp: the same instants.
                let was: Vec<Option<i64>> = c
                    .str()
                    .expect("text")
                    .iter()
                    .map(|t| t.map(|t| reprobench::instant::instant(t).expect("an instant")))
                    .collect();
                let now: Vec<Option<i64>> = got
                    .cast(&DataType::Int64)
                    .expect("micros")
                    .i64()
                    .expect("i64")
                    .iter()
                    .collect();
                assert_eq!(now, was, "{}: started", rel.display());
                assert!(
                    matches!(got.dtype(), DataType::Datetime(..)),
                    "{:?}",
                    got.dtype()
                );
                continue;
            }
            assert!(
                got.as_materialized_series()
                    .equals_missing(c.as_materialized_series()),
                "{}: {name}",
                rel.display()
            );
        }
        rows += old_df.height();
    }
    assert!(rows > 50, "{rows}");
    // Now a dataset of this version: the same campaign again changes nothing.
    let r = run(&["dataset", "add", s(&ds), s(&sample)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("unchanged"), "{}", r.stdout);
    let r = run(&["analyze", "--trend", s(&ds)]);
    ok(&r);
}

/// What a hand or a copy can do to a dataset, each caught before anything is read wrong
/// or written: a campaign pointed at another campaign's segment, a file the index does
/// not list, a lost index. And a first add that fails leaves a folder the next add uses.
#[test]
fn a_dataset_its_index_does_not_match_is_refused_never_read_wrong() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    let inputs = [
        root().join("samples/storage-published"),
        root().join("samples/storage-loopback"),
    ];
    let r = run(&["dataset", "add", s(&ds), s(&inputs[0]), s(&inputs[1])]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let index_path = ds.join("_index.json");
    let good = std::fs::read_to_string(&index_path).expect("index");

    // One campaign pointed at the other's segment: the index still reads as whole, but
    // the segment does not hold it.
    let mut v: Value = serde_json::from_str(&good).expect("json");
    let campaigns = v["campaigns"].as_object_mut().expect("campaigns");
    let ids: Vec<String> = campaigns.keys().cloned().collect();
    let other = campaigns[&ids[1]]["segment"].clone();
    campaigns.get_mut(&ids[0]).expect("first")["segment"] = other;
    let orphan = v["segments"]
        .as_object()
        .expect("segments")
        .keys()
        .find(|k| {
            !v["campaigns"]
                .as_object()
                .expect("c")
                .values()
                .any(|e| e["segment"] == **k)
        })
        .cloned()
        .expect("the first campaign's old segment");
    v["segments"]
        .as_object_mut()
        .expect("segments")
        .remove(&orphan);
    std::fs::write(&index_path, v.to_string()).expect("write");
    let before = tree(&ds);
    let r = run(&["analyze", "--trend", s(&ds)]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("the index does not match the files"),
        "{}",
        r.stderr
    );
    // Compaction: the orphaned segment's files are ones the index no longer lists.
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(&format!("part-{orphan}.parquet")),
        "{}",
        r.stderr
    );
    assert_eq!(tree(&ds), before, "nothing changed");
    // A segment the index names but no campaign is in: refused as it is read.
    let mut v: Value = serde_json::from_str(&good).expect("json");
    v["segments"]["0123456789abcdef"] = Value::from("0".repeat(64));
    std::fs::write(&index_path, v.to_string()).expect("write");
    let r = run(&["dataset", "list", s(&ds)]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("holds no campaign"), "{}", r.stderr);
    std::fs::write(&index_path, &good).expect("restore");

    // A file the index does not list, beside a segment's: compaction refuses, naming it.
    let stray = ds.join("verdicts/suite=storage/part-copy.parquet");
    let first = parquet_files(&ds)
        .into_iter()
        .find(|p| p.starts_with("verdicts"))
        .expect("a verdicts file");
    std::fs::copy(ds.join(first), &stray).expect("copy");
    let before = tree(&ds);
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("verdicts/suite=storage/part-copy.parquet")
            && r.stderr.contains("the index does not list"),
        "{}",
        r.stderr
    );
    assert_eq!(tree(&ds), before, "nothing changed");
    std::fs::remove_file(&stray).expect("remove");

    // A lost index: the tables are still there, and nothing adds to them blind.
    std::fs::remove_file(&index_path).expect("remove");
    let before = tree(&ds);
    for args in [
        vec!["dataset", "add", s(&ds), s(&inputs[0])],
        vec!["dataset", "compact", s(&ds)],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains("_index.json` is missing"), "{}", r.stderr);
    }
    assert_eq!(tree(&ds), before, "nothing changed");

    // A first add that fails (its input does not exist) leaves nothing in the way.
    let fresh = d.path().join("fresh");
    let r = run(&["dataset", "add", s(&fresh), "/nonexistent/input"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let r = run(&["dataset", "add", s(&fresh), s(&inputs[0])]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}
