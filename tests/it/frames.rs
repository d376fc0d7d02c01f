//! Frames for every suite: `--export` writes the catalog's records, the suites' derived
//! frames and the verdicts for any folder, joined across inputs, with `schema.md`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::common::*;

/// `name -> (header, rows)` of every CSV in `dir`.
fn csvs(dir: &Path) -> BTreeMap<String, (Vec<String>, Vec<Vec<String>>)> {
    let mut out = BTreeMap::new();
    for e in fs::read_dir(dir).expect("dir").flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "csv") {
            let text = fs::read_to_string(&p).expect("csv");
            let mut lines = text.lines();
            let header: Vec<String> = lines
                .next()
                .unwrap_or("")
                .split(',')
                .map(str::to_string)
                .collect();
            // Only simple rows are split here; quoted cells are kept whole by count only.
            let rows: Vec<Vec<String>> = lines
                .map(|l| l.split(',').map(str::to_string).collect())
                .collect();
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.insert(name, (header, rows));
        }
    }
    out
}

fn export(inputs: &[&Path], out: &Path) -> Run {
    let mut args: Vec<&str> = vec!["analyze"];
    for i in inputs {
        args.push(i.to_str().unwrap_or(""));
    }
    args.extend(["--export", out.to_str().unwrap_or(""), "--format", "json"]);
    run(&args)
}

#[test]
fn every_suite_exports_its_frames_and_every_column_is_described() {
    let tmp = tempfile::tempdir().expect("tmp");
    for (sample, want) in [
        (
            "samples/storage-published",
            &[
                "fio_groups",
                "iostat_devices",
                "iostat_cpu",
                "storage_pairs",
                "verdicts",
                "deviations",
            ][..],
        ),
        (
            "samples/kv-cache-published",
            &[
                "ladder_requests",
                "prom_deltas",
                "restore_attempts",
                "server_facts",
                "ladder_levels",
                "ladder_medians",
                "verdicts",
            ][..],
        ),
        (
            "samples/spdk-raid-published",
            &["fio_groups", "spdk_runs", "verdicts"][..],
        ),
    ] {
        let out = tmp.path().join(sample.replace('/', "-"));
        let r = export(&[&root().join(sample)], &out);
        assert_ne!(r.code, 2, "{sample}: {}", r.stderr);
        let frames = csvs(&out);
        for name in want {
            let (header, rows) = frames
                .get(*name)
                .unwrap_or_else(|| panic!("{sample}: no {name}: {:?}", frames.keys()));
            assert_eq!(header[0], "input", "{sample} {name}: keyed by input first");
            // The procedure followed to the letter has no deviations: a header only.
            assert!(
                !rows.is_empty() || *name == "deviations",
                "{sample} {name} is empty"
            );
            let parquet = fs::read(out.join(format!("{name}.parquet"))).expect("parquet");
            assert_eq!(&parquet[..4], b"PAR1");
        }
        let schema = fs::read_to_string(out.join("schema.md")).expect("schema.md");
        assert!(!schema.contains("(not described)"), "{sample}:\n{schema}");
        for name in want {
            assert!(schema.contains(&format!("## {name}")), "{sample}: {name}");
        }
    }
}

#[test]
fn several_inputs_join_into_one_frame_per_kind() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = root().join("samples/storage-published");
    let b = root().join("samples/storage-loopback");
    let out = tmp.path().join("out");
    let r = export(&[&a, &b], &out);
    assert_ne!(r.code, 2, "{}", r.stderr);
    let frames = csvs(&out);
    let (_, rows) = &frames["fio_groups"];
    let inputs: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    let (_, verdicts) = &frames["verdicts"];
    assert!(verdicts.iter().any(|r| r[0].ends_with("storage-published")));
    assert!(verdicts.iter().any(|r| r[0].ends_with("storage-loopback")));
}

#[test]
fn json_verdicts_carry_their_numbers() {
    let (_, v) = analyze_json(&root().join("samples/storage-published"), &[]);
    let w = v["suites"][0]["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .find(|x| x["id"] == "storage.randwrite-8k-qd64")
        .cloned()
        .expect("verdict");
    assert_eq!(w["unit"], "x");
    assert_eq!(w["threshold_value"], 4.0);
    let m = w["measured_value"].as_f64().expect("measured number");
    assert!((m - 6934.0 / 1082.0).abs() < 0.01, "{w}");
    assert!(w["measured"]
        .as_str()
        .is_some_and(|s| s.starts_with("6.41x")));
    assert!(w["published_value"]
        .as_f64()
        .is_some_and(|p| (p - 6.4).abs() < 0.05));
    // Status names are one spelling everywhere: the summary's keys too.
    assert!(v["summary"]["not-measured"].is_number(), "{}", v["summary"]);
    let (_, kv) = analyze_json(&root().join("samples/kv-cache-published"), &[]);
    let time = kv["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["verdicts"].as_array().into_iter().flatten())
        .find(|x| x["id"] == "kv-restore.time")
        .cloned()
        .expect("time verdict");
    assert!(
        time["unit"].as_str().is_some_and(|u| u.starts_with('s')),
        "{time}"
    );
    assert!(time["measured_value"].is_number() && time["threshold_value"].is_number());
}

#[test]
fn the_ladder_medians_computed_with_polars_are_the_scripts_medians() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let r = export(&[&root().join("samples/kv-cache-published")], &out);
    assert_ne!(r.code, 2, "{}", r.stderr);
    let frames = csvs(&out);
    let (lh, levels) = &frames["ladder_levels"];
    let (mh, medians) = &frames["ladder_medians"];
    let at = |h: &[String], name: &str| h.iter().position(|c| c == name).expect(name);
    let (lv, lc, lo) = (at(lh, "variant"), at(lh, "clients"), at(lh, "output_tok_s"));
    let (mv, mc, mo) = (at(mh, "variant"), at(mh, "clients"), at(mh, "output_tok_s"));
    assert!(!medians.is_empty());
    for m in medians {
        let mut xs: Vec<f64> = levels
            .iter()
            .filter(|l| l[lv] == m[mv] && l[lc] == m[mc])
            .filter_map(|l| l[lo].parse().ok())
            .collect();
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        let want = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        let got: f64 = m[mo].parse().expect("median");
        assert!(
            (got - want).abs() < 1e-9,
            "{} L{}: {got} vs {want}",
            m[mv],
            m[mc]
        );
    }
}
