//! `dataset add`: identical files on a second add, replacement by name, atomicity under
//! a real kill, the schema (every file's columns and types against `_schema.json`, and
//! `_schema.json` against the committed 1.0 schema: additive changes only), pseudonyms
//! beside the dataset, compare and --trend from a dataset equal to the folders', and the
//! queries of docs/compare-and-datasets.md in a real DuckDB checked against
//! `analyze --format json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use polars_core::prelude::DataType;
use polars_io::prelude::ParquetReader;
use polars_io::SerReader;
use serde_json::Value;

use crate::common::{
    bin, copy_dir, everything_installed, output_of, python_with, root, run, skipped,
};

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

use crate::common::samples;

fn add(ds: &Path, inputs: &[PathBuf], extra: &[&str]) -> crate::common::Run {
    let mut args = vec!["dataset", "add", s(ds)];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend_from_slice(extra);
    run(&args)
}

/// Every file of a dataset (the lock aside) with its bytes and modification time.
fn files(ds: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    crate::common::snapshot(ds)
        .into_iter()
        .filter(|(p, _)| !p.ends_with(".lock"))
        .map(|(p, b)| {
            let t = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .expect("mtime");
            (p.strip_prefix(ds).expect("inside").to_path_buf(), (b, t))
        })
        .collect()
}

fn bytes_only(
    f: BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)>,
) -> BTreeMap<PathBuf, Vec<u8>> {
    f.into_iter().map(|(p, (b, _))| (p, b)).collect()
}

/// `n` generated campaigns of the storage sample's shape (bench/campaigns.py).
fn generated(dir: &Path, n: usize) -> Option<Vec<(PathBuf, Value)>> {
    if !crate::common::need("python3") {
        return None;
    }
    let out = Command::new("python3")
        .arg(root().join("bench/campaigns.py"))
        .arg(root().join("samples/storage-published"))
        .arg(dir)
        .arg(n.to_string())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("json line");
                (dir.join(v["name"].as_str().expect("name")), v)
            })
            .collect(),
    )
}

#[test]
fn adding_the_same_campaigns_again_leaves_identical_files() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    let r = add(&ds, &samples(), &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.matches(": added").count(),
        samples().len(),
        "{}",
        r.stdout
    );
    let first = files(&ds);
    assert!(first
        .keys()
        .any(|p| p.starts_with("verdicts/suite=storage")));
    let r = add(&ds, &samples(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.matches("unchanged").count(),
        samples().len(),
        "{}",
        r.stdout
    );
    assert_eq!(files(&ds), first, "bytes and modification times unchanged");
    // A fresh dataset from the same inputs, given in another order, is the same bytes.
    let other = d.path().join("other");
    let mut rev = samples();
    rev.reverse();
    assert_eq!(add(&other, &rev, &[]).code, 0);
    assert_eq!(bytes_only(files(&other)), bytes_only(first));
    // `list` as a table and as JSON: the same campaigns in the same order, JSON with the
    // whole id.
    let table = run(&["dataset", "list", s(&ds)]);
    let json = run(&["dataset", "list", s(&ds), "--format", "json"]);
    assert_eq!((table.code, json.code), (0, 0), "{}", json.stderr);
    let list: Value = serde_json::from_str(&json.stdout).expect("a JSON list");
    let list = list.as_array().expect("list");
    assert_eq!(list.len(), samples().len());
    let rows: Vec<&str> = table.stdout.lines().skip(1).collect();
    for (row, c) in rows.iter().zip(list) {
        let id = c["id"].as_str().expect("id");
        assert_eq!(id.len(), 64, "{c}");
        assert!(row.starts_with(&id[..12]), "{row} vs {c}");
        assert!(row.contains(c["name"].as_str().expect("name")));
        assert!(c["suites"].as_array().is_some_and(|s| !s.is_empty()), "{c}");
    }
}

#[test]
fn a_changed_campaign_under_the_same_name_replaces_it() {
    let d = tempfile::tempdir().expect("tempdir");
    let (ds, run_dir) = (d.path().join("ds"), d.path().join("site-3"));
    copy_dir(&root().join("samples/storage-published"), &run_dir);
    assert_eq!(add(&ds, std::slice::from_ref(&run_dir), &[]).code, 0);
    let old: Vec<PathBuf> = files(&ds)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains("/part-"))
        .collect();
    assert_eq!(old.len(), 6, "one file per table: {old:?}");
    // One number changes: the same campaign, measured again.
    crate::common::edit_json(&run_dir.join("results/adp/randwrite-8k-j8-d8.json"), |v| {
        let w = &mut v["jobs"][0]["write"];
        w["iops"] = Value::from(w["iops"].as_f64().expect("iops") * 0.5);
        w["bw_bytes"] = Value::from(w["bw_bytes"].as_u64().expect("bw") / 2);
        w["bw"] = Value::from(w["bw"].as_u64().expect("bw") / 2);
    });
    let r = add(&ds, std::slice::from_ref(&run_dir), &[]);
    assert!(r.stdout.contains("replaced campaign"), "{}", r.stdout);
    let now: Vec<PathBuf> = files(&ds)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains("/part-"))
        .collect();
    assert_eq!(now.len(), 6);
    assert!(
        old.iter().all(|p| !now.contains(p)),
        "the old partitions are gone"
    );
    let index: Value =
        serde_json::from_slice(&std::fs::read(ds.join("_index.json")).expect("index"))
            .expect("json");
    let names: Vec<&str> = index["campaigns"]
        .as_object()
        .expect("map")
        .values()
        .map(|e| e["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["site-3"]);
}

#[test]
fn an_add_killed_at_any_moment_leaves_the_dataset_before_or_after() {
    let d = tempfile::tempdir().expect("tempdir");
    let Some(gen) = generated(&d.path().join("gen"), 40) else {
        return;
    };
    let inputs: Vec<PathBuf> = gen.into_iter().map(|g| g.0).collect();
    let base = d.path().join("base");
    assert_eq!(add(&base, &inputs[..5], &[]).code, 0);
    let before = bytes_only(files(&base));
    let done = d.path().join("done");
    copy_dir(&base, &done);
    assert_eq!(add(&done, &inputs, &[]).code, 0);
    let after = bytes_only(files(&done));
    let mut seen = (0, 0);
    for (i, delay_ms) in [0u64, 30, 80, 150, 250, 400, 700, 1000, 1500, 2500]
        .iter()
        .enumerate()
    {
        let ds = d.path().join(format!("k{i}"));
        copy_dir(&base, &ds);
        let mut cmd = bin();
        cmd.args(["dataset", "add", s(&ds)]).args(&inputs);
        let mut child = cmd
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(*delay_ms));
        let _ = child.kill(); // SIGKILL: no cleanup runs
        let _ = child.wait();
        // The next reader finishes a committed change or throws an uncommitted one away.
        let r = run(&["dataset", "list", s(&ds)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let got = bytes_only(files(&ds));
        if got == before {
            seen.0 += 1;
        } else if got == after {
            seen.1 += 1;
        } else {
            panic!("killed after {delay_ms} ms: the dataset is neither before nor after the add");
        }
    }
    assert!(seen.0 + seen.1 == 10, "{seen:?}");
}

fn dtype_name(t: &DataType) -> &'static str {
    match t {
        DataType::String => "str",
        DataType::Float64 => "f64",
        DataType::Int64 => "i64",
        DataType::Boolean => "bool",
        DataType::Datetime(..) => "timestamp",
        _ => "other",
    }
}

/// (name, type) of every column of every table a `_schema.json` describes.
fn described(schema: &Value) -> BTreeMap<String, Vec<(String, String)>> {
    schema["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            let cols = t["columns"]
                .as_array()
                .expect("columns")
                .iter()
                .map(|c| {
                    (
                        c["name"].as_str().unwrap_or("").to_string(),
                        c["type"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect();
            (t["name"].as_str().unwrap_or("").to_string(), cols)
        })
        .collect()
}

#[test]
fn every_file_holds_the_documented_columns_and_the_schema_only_grows() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    assert_eq!(add(&ds, &samples(), &[]).code, 0);
    let schema: Value =
        serde_json::from_slice(&std::fs::read(ds.join("_schema.json")).expect("schema"))
            .expect("json");
    let version = schema["schema_version"]
        .as_str()
        .expect("version")
        .to_string();
    let tables = described(&schema);
    let mut checked = 0;
    for (rel, bytes) in bytes_only(files(&ds)) {
        if rel.extension().is_none_or(|e| e != "parquet") {
            continue;
        }
        let table = rel
            .iter()
            .next()
            .and_then(|t| t.to_str())
            .expect("table folder");
        let want = tables
            .get(table)
            .unwrap_or_else(|| panic!("{}: table not in _schema.json", rel.display()));
        let df = ParquetReader::new(std::io::Cursor::new(bytes))
            .finish()
            .expect("parquet");
        let got: Vec<(String, String)> = df
            .columns()
            .iter()
            .map(|c| (c.name().to_string(), dtype_name(c.dtype()).to_string()))
            .collect();
        assert_eq!(
            &got,
            want,
            "{}: columns and types as documented",
            rel.display()
        );
        let v = df.column("schema_version").expect("schema_version");
        assert!(
            v.str()
                .expect("str")
                .iter()
                .all(|x| x == Some(version.as_str())),
            "{}",
            rel.display()
        );
        checked += 1;
    }
    assert!(checked >= 6 * 7, "{checked} files");
    // Against the committed schema of this major version's first release: within a
    // major, every table and column stays, in its place and of its type; new ones only
    // at the end and with a higher minor. A new major version needs a new committed
    // schema.
    let major = version.split('.').next().expect("major");
    let old: Value = serde_json::from_str(
        &std::fs::read_to_string(
            root().join(format!("tests/fixtures/dataset/schema-{major}.0.json")),
        )
        .expect("the committed schema of this major version"),
    )
    .expect("json");
    let (was, now) = (described(&old), tables);
    for (t, cols) in &was {
        let n = now
            .get(t)
            .unwrap_or_else(|| panic!("table {t} removed within major {major}"));
        assert!(
            n.len() >= cols.len() && &n[..cols.len()] == cols.as_slice(),
            "table {t}: columns changed within major {major}: {cols:?} -> {n:?}"
        );
    }
    if now != was {
        assert_ne!(
            version,
            format!("{major}.0"),
            "the schema grew: raise the minor version"
        );
    }
}

fn all_strings(ds: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, bytes) in bytes_only(files(ds)) {
        if rel.extension().is_some_and(|e| e == "parquet") {
            let df = ParquetReader::new(std::io::Cursor::new(bytes))
                .finish()
                .expect("parquet");
            for c in df.columns() {
                if let Ok(ca) = c.str() {
                    out.extend(ca.iter().flatten().map(str::to_string));
                }
            }
        }
    }
    out
}

#[test]
fn pseudonyms_come_from_one_mapping_beside_the_dataset_and_secrets_never_enter() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("fleet");
    let mut sites = Vec::new();
    for site in ["site-a", "site-b"] {
        let dir = d.path().join(site);
        copy_dir(&root().join("samples/kv-cache-published"), &dir);
        let log = dir.join("logs/adp-vllm.log");
        let text = std::fs::read_to_string(&log).expect("log").replacen(
            "non-default args: {",
            &format!("non-default args: {{'host': '10.20.30.40', 'api_key': 'sk-proj-Q7v2Lm9XaR4tY8bN3cW6eZ1d{site}', "),
            1,
        );
        std::fs::write(&log, text).expect("write");
        sites.push(dir);
    }
    // Two adds: the second campaign finds the first one's pseudonyms in the mapping.
    for site in &sites {
        let r = add(&ds, std::slice::from_ref(site), &["--pseudonymize"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let strings = all_strings(&ds);
    assert!(
        !strings.iter().any(|t| t.contains("10.20.30.40")),
        "the address left"
    );
    assert!(
        !strings.iter().any(|t| t.contains("sk-proj-Q7v2")),
        "the key left"
    );
    let hosts: Vec<&String> = strings.iter().filter(|t| t.as_str() == "ip-1").collect();
    assert!(
        hosts.len() >= 2,
        "both campaigns' server host is ip-1: {}",
        hosts.len()
    );
    let mapping = d.path().join("fleet.pseudonyms.json");
    let m: Value =
        serde_json::from_slice(&std::fs::read(&mapping).expect("mapping beside")).expect("json");
    assert_eq!(m["10.20.30.40"], "ip-1");
    assert!(
        !crate::common::snapshot(&ds)
            .keys()
            .any(|p| p.to_string_lossy().contains("pseudonyms")),
        "never inside"
    );
}

fn trend_rows(args: &[&str]) -> Vec<Value> {
    let r = run(args);
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stderr));
    v["trend"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| serde_json::json!([r["id"], r["values"], r["statuses"], r["unit"]]))
        .collect()
}

/// A comparison without the inputs' names (the dataset names its campaigns itself).
fn comparison(args: &[&str]) -> Value {
    let r = run(args);
    let mut v: Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stderr));
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["files", "sources", "base", "new"] {
                    if m.get(k).is_some_and(|x| x.is_array()) {
                        m.remove(k);
                    }
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[test]
fn compare_and_trend_from_a_dataset_equal_those_from_the_folders() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    assert_eq!(add(&ds, &samples(), &[]).code, 0);
    let sample = |n: &str| root().join("samples").join(n);
    let (kp, kf) = (sample("kv-cache-published"), sample("kv-cache-failing"));
    let from_folders = trend_rows(&["analyze", "--trend", s(&kp), s(&kf), "--format", "json"]);
    let sel = format!("{}:kv-cache-published,kv-cache-failing", s(&ds));
    let from_dataset = trend_rows(&["analyze", "--trend", &sel, "--format", "json"]);
    // Only criteria with a unit of measurement are trended (10 in the KV samples).
    assert!(from_folders.len() >= 10, "{}", from_folders.len());
    assert_eq!(from_dataset, from_folders);
    for (a, b) in [
        ("storage-published", "storage-loopback"),
        ("kv-cache-published", "kv-cache-failing"),
    ] {
        let folders = comparison(&["compare", s(&sample(a)), s(&sample(b)), "--format", "json"]);
        let (da, db) = (format!("{}:{a}", s(&ds)), format!("{}:{b}", s(&ds)));
        let dataset = comparison(&["compare", &da, &db, "--format", "json"]);
        assert!(folders["rows"].as_array().is_some_and(|r| r.len() > 10));
        assert_eq!(dataset, folders, "{a} vs {b}");
    }
    // Selecting by time: the samples made from published figures have no start time and
    // the loopback sample's (real fio runs) is its first run's, in November 2026, so a
    // bound before that selects none, and one after it that sample alone.
    let r = run(&[
        "analyze",
        "--trend",
        &format!("{}:until=2026-01-01", s(&ds)),
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("holds no campaign that matches `until=2026-01-01`"),
        "{}",
        r.stderr
    );
    let r = run(&[
        "dataset",
        "list",
        &format!("{}:since=2026-01-01", s(&ds)),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    let names: Vec<&str> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["storage-loopback"], "{v}");
}

/// The Python that has DuckDB: $REPROBENCH_DUCKDB_PYTHON (CI installs it), else python3.
fn duckdb_python() -> Option<PathBuf> {
    let p = std::env::var_os("REPROBENCH_DUCKDB_PYTHON")
        .map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let ok = Command::new(&p)
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs the duckdb Python package"
        );
        skipped("needs Python's duckdb package ($REPROBENCH_DUCKDB_PYTHON)");
        return None;
    }
    Some(p)
}

fn verdict_of<'a>(a: &'a Value, id: &str) -> Option<&'a Value> {
    a["suites"]
        .as_array()?
        .iter()
        .flat_map(|s| s["verdicts"].as_array().into_iter().flatten())
        .find(|v| v["id"] == id)
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64()
        .is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1.0))
}

#[test]
fn duckdb_answers_the_documented_queries_as_analyze_does() {
    let Some(py) = duckdb_python() else {
        return;
    };
    documented_queries_answer_as_analyze_does(&py, "duckdb");
}

/// The Python that has pyspark with a Java runtime to run it: $REPROBENCH_SPARK_PYTHON
/// (CI installs Spark 4.3 and OpenJDK 17), else python3; or the test skipped, visibly.
fn spark_python() -> Option<PathBuf> {
    let py = python_with("REPROBENCH_SPARK_PYTHON", "pyspark");
    let java = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    match py {
        Some(py) if java => Some(PathBuf::from(py)),
        _ => {
            assert!(
                !everything_installed(),
                "CI installs pyspark ($REPROBENCH_SPARK_PYTHON) and a Java runtime"
            );
            skipped("needs Spark: Python's pyspark ($REPROBENCH_SPARK_PYTHON) and java");
            None
        }
    }
}

/// The Python that has Polars: $REPROBENCH_POLARS_PYTHON (CI installs Polars 2.1), else
/// python3; or the test skipped, visibly.
fn polars_python() -> Option<PathBuf> {
    let py = python_with("REPROBENCH_POLARS_PYTHON", "polars");
    if py.is_none() {
        assert!(
            !everything_installed(),
            "CI installs Python's polars ($REPROBENCH_POLARS_PYTHON)"
        );
        skipped("needs Python's polars package ($REPROBENCH_POLARS_PYTHON)");
    }
    py.map(PathBuf::from)
}

/// Polars' SQL, over the tables as the docs read them (each campaign's file scanned and
/// the scans concatenated by column name), answers the documented queries as `analyze`
/// does.
#[test]
fn polars_answers_the_documented_queries_as_analyze_does() {
    let Some(py) = polars_python() else {
        return;
    };
    documented_queries_answer_as_analyze_does(&py, "polars");
}

/// Spark SQL (`local[2]`), with the views the docs register (schemas merged, partition
/// types not inferred), answers the documented queries as `analyze` does, as DuckDB must.
#[test]
fn spark_answers_the_documented_queries_as_analyze_does() {
    let Some(py) = spark_python() else {
        return;
    };
    documented_queries_answer_as_analyze_does(&py, "spark");
}

/// The answers `bench/queries.py` gives to the queries of `doc` in `engine`'s dialect over
/// the dataset `ds`.
fn queries(py: &Path, doc: &Path, ds: &Path, engine: &str) -> Value {
    let out = output_of(
        Command::new(py)
            .arg(root().join("bench/queries.py"))
            .arg(doc)
            .arg(ds)
            .args(["--engine", engine]),
    );
    serde_json::from_slice(&out).expect("json")
}

/// The five queries of docs/compare-and-datasets.md, in `engine`'s dialect, run by
/// `bench/queries.py` over a dataset of the samples and 200 generated campaigns: every
/// answer equals what `analyze --format json` of each campaign says.
fn documented_queries_answer_as_analyze_does(py: &Path, engine: &str) {
    let d = tempfile::tempdir().expect("tempdir");
    let Some(gen) = generated(&d.path().join("gen"), 200) else {
        return;
    };
    let mut inputs = samples();
    inputs.extend(gen.iter().map(|g| g.0.clone()));
    let ds = d.path().join("ds");
    let r = add(&ds, &inputs, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Every campaign analyzed on its own, in one call.
    let mut args = vec!["analyze".to_string()];
    args.extend(inputs.iter().map(|p| s(p).to_string()));
    args.extend(["--format".into(), "json".into()]);
    let r = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let out: Value = serde_json::from_str(&r.stdout).expect("json");
    let analyses = crate::common::analyses(&out);
    assert_eq!(analyses.len(), inputs.len());
    let name_of = |a: &Value| {
        crate::common::root()
            .join(a["input"].as_str().unwrap_or(""))
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let started_of = |name: &str| {
        gen.iter()
            .find(|g| g.1["name"] == name)
            .map(|g| g.1["started"].as_str().unwrap_or("").to_string())
    };
    let q = queries(
        py,
        &root().join("docs/compare-and-datasets.md"),
        &ds,
        engine,
    );
    assert_eq!(
        q.as_object().map(|m| m.len()),
        Some(5),
        "the five {engine} queries of docs/compare-and-datasets.md ran"
    );

    // counts per suite: campaigns, verdicts, passes.
    let mut want: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for a in &analyses {
        for s in a["suites"].as_array().expect("suites") {
            let e = want
                .entry(s["name"].as_str().unwrap_or("").to_string())
                .or_default();
            let v = s["verdicts"].as_array().expect("verdicts");
            e.0 += 1;
            e.1 += v.len();
            e.2 += v.iter().filter(|v| v["status"] == "pass").count();
        }
    }
    let got: BTreeMap<String, (usize, usize, usize)> = q["counts-per-suite"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let n = |i: usize| r[i].as_u64().expect("count") as usize;
            (
                r[0].as_str().expect("suite").to_string(),
                (n(1), n(2), n(3)),
            )
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(got["storage"].0, 202, "two samples and 200 generated");

    // The randwrite ratio of every campaign since March, in start order.
    let mut want: Vec<(i64, f64, String)> = analyses
        .iter()
        .filter_map(|a| {
            let name = name_of(a);
            // The generated campaigns' manifests say when they started; the samples
            // have none, and the one of real fio runs starts at its first run (its own
            // start is tested in a_campaign_made_by_hand_starts_when_its_first_fio_run_did).
            let started = started_of(&name).or_else(|| a["started"].as_str().map(String::from))?;
            let started = reprobench::instant::instant(&started).ok()?;
            (started >= reprobench::instant::instant("2026-03-01").ok()?).then_some(())?;
            let v = verdict_of(a, "storage.randwrite-8k-qd64")?;
            Some((
                started,
                v["measured_value"].as_f64()?,
                v["status"].as_str()?.to_string(),
            ))
        })
        .collect();
    want.sort_by_key(|a| a.0);
    let rows = q["randwrite-ratio-since-march"]["rows"]
        .as_array()
        .expect("rows");
    assert_eq!(rows.len(), want.len());
    assert!(rows.len() > 100, "{}", rows.len());
    for (r, w) in rows.iter().zip(&want) {
        // A timestamp column: the same instant as the analysis' text.
        let at = r[1]
            .as_str()
            .and_then(|t| reprobench::instant::instant(t).ok());
        assert_eq!(at, Some(w.0), "{r:?}");
        assert!(close(&r[2], w.1), "{r:?} vs {w:?}");
        assert_eq!(r[3].as_str(), Some(w.2.as_str()));
    }

    // min / median / max of one measurement across campaigns.
    let mut iops: Vec<f64> =
        analyses
            .iter()
            .flat_map(|a| {
                a["measurements"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .chain(
                        a["suites"].as_array().into_iter().flatten().flat_map(|s| {
                            s["measurements"].as_array().cloned().unwrap_or_default()
                        }),
                    )
            })
            .filter(|m| {
                m["suite"] == "storage"
                    && m["metric"] == "IOPS"
                    && m["subject"] == "adp · randwrite 8k × 8 jobs × QD 8"
            })
            .filter_map(|m| m["value"].as_f64())
            .collect();
    iops.sort_by(f64::total_cmp);
    let n = iops.len();
    let median = if n % 2 == 1 {
        iops[n / 2]
    } else {
        (iops[n / 2 - 1] + iops[n / 2]) / 2.0
    };
    let r = &q["adp-randwrite-iops-across-campaigns"]["rows"][0];
    assert_eq!(r[0].as_u64(), Some(n as u64));
    assert!(
        close(&r[1], iops[0]) && close(&r[2], median) && close(&r[3], iops[n - 1]),
        "{r:?} vs {} {median} {}",
        iops[0],
        iops[n - 1]
    );

    // Verdicts joined with the setup facts.
    let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for a in &analyses {
        let (Some(v), Some(dev)) = (
            verdict_of(a, "storage.randwrite-8k-qd64"),
            a["setup"]["facts"]["fio-devices"]["value"].as_str(),
        ) else {
            continue;
        };
        let e = want.entry(dev.to_string()).or_default();
        e.0 += 1;
        e.1 += u64::from(v["status"] == "pass");
    }
    let got: BTreeMap<String, (u64, u64)> = q["randwrite-verdicts-by-devices"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r[0].as_str().expect("devices").to_string(),
                (r[1].as_u64().expect("n"), r[2].as_u64().expect("pass")),
            )
        })
        .collect();
    assert_eq!(got, want);

    // Restores within the bound.
    let want: Vec<(String, f64)> = analyses
        .iter()
        .filter_map(|a| {
            let v = verdict_of(a, "kv-restore.time")?;
            (v["measured_value"].as_f64()? <= v["threshold_value"].as_f64()?)
                .then(|| (name_of(a), v["measured_value"].as_f64().unwrap_or(0.0)))
        })
        .collect();
    let rows = q["restores-within-bound"]["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), want.len());
    assert_eq!(
        want.len(),
        1,
        "the published sample restores within its bound, the failing one does not"
    );
    assert_eq!(rows[0][0].as_str(), Some(want[0].0.as_str()));
    assert!(close(&rows[0][1], want[0].1));
}

#[test]
fn a_crafted_or_damaged_dataset_is_refused_with_the_file_named() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    let sample = root().join("samples/storage-published");
    assert_eq!(add(&ds, std::slice::from_ref(&sample), &[]).code, 0);
    let index = ds.join("_index.json");
    let good = std::fs::read_to_string(&index).expect("index");
    // An index whose suite would lead outside the dataset, for reading or removing.
    std::fs::write(&index, good.replace("\"storage\"", "\"../../victim\"")).expect("write");
    let r = run(&[
        "compare",
        &format!("{}:storage-published", s(&ds)),
        s(&sample),
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("_index.json") && r.stderr.contains("is not a suite"),
        "{}",
        r.stderr
    );
    let r = add(&ds, &[root().join("samples/storage-loopback")], &[]);
    assert_eq!(r.code, 2, "an add refuses it too: {}", r.stdout);
    std::fs::write(&index, &good).expect("restore");
    // A damaged Parquet file: an error naming it, no panic.
    let part = crate::common::snapshot(&ds)
        .into_keys()
        .find(|p| p.to_string_lossy().contains("measurements/suite=storage"))
        .expect("a measurements file");
    std::fs::write(&part, b"PAR1 not really").expect("write");
    let r = run(&["analyze", "--trend", s(&ds), s(&sample)]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("not the ones this tool wrote")
            && r.stderr.contains("sha256 differs from _index.json"),
        "{}",
        r.stderr
    );
    // A folder that is not a dataset is never written into.
    let other = d.path().join("notes");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::write(other.join("todo.txt"), "x").expect("write");
    let r = add(&other, std::slice::from_ref(&sample), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not a dataset"), "{}", r.stderr);
    assert_eq!(std::fs::read_dir(&other).expect("ls").count(), 1);
}

#[test]
fn a_bundle_is_one_campaign_keyed_by_its_tarballs_sha256() {
    let d = tempfile::tempdir().expect("tempdir");
    let tgz = d.path().join("site-9.tar.gz");
    let sample = root().join("samples/storage-published");
    let r = run(&["bundle", s(&sample), "-o", s(&tgz), "--no-pdf"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let ds = d.path().join("ds");
    let r = add(&ds, std::slice::from_ref(&tgz), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    use sha2::Digest;
    let hex = reprobench::dataset::campaign::hex(sha2::Sha256::digest(
        std::fs::read(&tgz).expect("bundle"),
    ));
    assert!(
        r.stdout
            .contains(&format!("campaign {} `site-9`", &hex[..12])),
        "{}",
        r.stdout
    );
    let seg = reprobench::dataset::segment::id([hex.as_str()]);
    let part = ds.join(reprobench::dataset::segment::file(
        "campaigns",
        "storage",
        &seg,
    ));
    let df = ParquetReader::new(std::fs::File::open(&part).expect("partition"))
        .finish()
        .expect("parquet");
    let kind = df
        .column("input_kind")
        .expect("column")
        .str()
        .expect("str")
        .get(0)
        .map(str::to_string);
    assert_eq!(kind.as_deref(), Some("bundle"));
    // The bundle's verdicts are the folder's.
    let folder = d.path().join("folder");
    assert_eq!(add(&folder, std::slice::from_ref(&sample), &[]).code, 0);
    let statuses = |ds: &Path| -> Vec<String> {
        let r = run(&["analyze", "--trend", s(ds), s(&sample), "--format", "json"]);
        let v: Value = serde_json::from_str(&r.stdout).expect("json");
        v["trend"]["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| format!("{} {}", r["id"], r["statuses"][0]))
            .collect()
    };
    assert_eq!(statuses(&ds), statuses(&folder));
}

#[test]
fn damaged_parquet_files_are_errors_never_panics() {
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    let sample = root().join("samples/storage-published");
    assert_eq!(add(&ds, std::slice::from_ref(&sample), &[]).code, 0);
    let parts: Vec<PathBuf> = crate::common::snapshot(&ds)
        .into_keys()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    let pristine: Vec<Vec<u8>> = parts
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    // Deterministic damage: truncations and flipped bytes through every file.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..40 {
        for (p, good) in parts.iter().zip(&pristine) {
            let mut b = good.clone();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            if round % 4 == 0 {
                b.truncate((seed as usize) % b.len());
            } else {
                for k in 0..(1 + round % 5) {
                    let i = (seed as usize).wrapping_add(k * 7919) % b.len();
                    b[i] ^= (seed >> 8) as u8 | 1;
                }
            }
            std::fs::write(p, &b).expect("write");
        }
        // Odd rounds: a crafted dataset whose index digest matches the damaged bytes, so
        // they reach the Parquet reader. Even rounds: damage the digest catches.
        let index = ds.join("_index.json");
        let good_index = std::fs::read_to_string(&index).expect("index");
        if round % 2 == 1 {
            use reprobench::dataset::campaign::{file_line, files_digest};
            let lines = parts
                .iter()
                .map(|p| {
                    let rel = p
                        .strip_prefix(&ds)
                        .expect("inside")
                        .to_string_lossy()
                        .into_owned();
                    file_line(&rel, &std::fs::read(p).expect("read"))
                })
                .collect();
            let digest = files_digest(lines);
            let mut v: Value = serde_json::from_str(&good_index).expect("json");
            for d in v["segments"].as_object_mut().expect("map").values_mut() {
                *d = Value::from(digest.clone());
            }
            std::fs::write(&index, v.to_string()).expect("crafted index");
        }
        let r = run(&[
            "analyze",
            "--trend",
            &format!("{}:storage-published", s(&ds)),
            s(&sample),
        ]);
        assert!(
            r.code == 0 || r.code == 1 || r.code == 2,
            "round {round}: {}",
            r.code
        );
        if round % 2 == 0 {
            assert_eq!(r.code, 2, "round {round}: damage is refused");
            assert!(
                r.stderr.contains("sha256 differs from _index.json"),
                "{}",
                r.stderr
            );
        }
        std::fs::write(&index, good_index).expect("restore");
        for (p, good) in parts.iter().zip(&pristine) {
            std::fs::write(p, good).expect("restore");
        }
    }
}

/// Time bounds are instants: a selector holding `:` finds its dataset (the folder is the
/// first prefix that is one), a start time written with an offset is compared as the
/// instant it is (13:00+02:00 is before 12:00Z, though its text sorts after), and what
/// is not an instant (`July`, a time with no offset) is refused with why, exit 2.
#[test]
fn selector_times_are_instants_and_what_is_not_one_is_refused() {
    let d = tempfile::tempdir().expect("tempdir");
    let mut inputs = Vec::new();
    for (name, started) in [
        ("early", "2026-07-18T13:00:00+02:00"),
        ("late", "2026-07-18T12:30:00Z"),
    ] {
        let dir = d.path().join(name);
        crate::common::copy_dir(&root().join("samples/storage-published"), &dir);
        std::fs::create_dir_all(dir.join("manifests")).expect("mkdir");
        std::fs::write(
            dir.join("manifests/collect-storage.json"),
            format!(r#"{{"tool": "reprobench", "started": "{started}", "steps": []}}"#),
        )
        .expect("manifest");
        inputs.push(dir);
    }
    let ds = d.path().join("ds");
    let r = add(&ds, &inputs, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names = |sel: &str| -> (i32, Vec<String>, String) {
        let r = run(&[
            "dataset",
            "list",
            &format!("{}{sel}", s(&ds)),
            "--format",
            "json",
        ]);
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or(Value::Null);
        let names = v
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str().map(String::from))
            .collect();
        (r.code, names, r.stderr)
    };
    // Every campaign, in start order as instants: 11:00Z, then 12:30Z; kept in UTC, as
    // the schema says.
    assert_eq!(names("").1, ["early", "late"]);
    let r = run(&["dataset", "list", s(&ds), "--format", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v[0]["started"], "2026-07-18T11:00:00Z", "{v}");
    assert_eq!(names(":since=2026-07-18T12:00:00Z").1, ["late"]);
    assert_eq!(names(":until=2026-07-18T12:00:00Z").1, ["early"]);
    assert_eq!(
        names(":since=2026-07-18T10:59:00Z,until=2026-07-18T12:31:00Z").1,
        ["early", "late"]
    );
    assert_eq!(names(":since=2026-07-18").1, ["early", "late"]);
    for (sel, why) in [
        (":since=July", "`July` is not a date"),
        (":until=2026-07-18T12:00:00", "has no offset"),
        (":since=2026-13-40", "is not a date"),
    ] {
        let (code, got, stderr) = names(sel);
        assert_eq!(code, 2, "{sel}: {stderr}");
        assert!(got.is_empty(), "{sel}");
        assert!(stderr.contains(why), "{sel}: {stderr}");
    }
}

/// A campaign made by hand has no manifest, but every fio JSON says when fio wrote it
/// (`timestamp`) and how long the run took (`runtime`): its start is the earliest run's
/// start, computed here from the files themselves, in UTC; a manifest's `started` still
/// comes first; files with `timestamp` 0 (made from published figures) give no start.
#[test]
fn a_campaign_made_by_hand_starts_when_its_first_fio_run_did() {
    let d = tempfile::tempdir().expect("tmp");
    let dir = d.path().join("by-hand");
    copy_dir(&root().join("samples/storage-loopback"), &dir);
    let mut earliest: Option<i64> = None;
    for array in ["raid10", "adp"] {
        for e in std::fs::read_dir(dir.join("results").join(array)).expect("dir") {
            let p = e.expect("entry").path();
            if p.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json");
            let ended_ms = v["timestamp"].as_i64().expect("timestamp") * 1000;
            let ran_ms = v["jobs"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|j| {
                    ["read", "write", "trim"].map(|k| j[k]["runtime"].as_i64().unwrap_or(0))
                })
                .max()
                .unwrap_or(0);
            let start = ended_ms - ran_ms;
            earliest = Some(earliest.map_or(start, |e| e.min(start)));
        }
    }
    let earliest = earliest.expect("fio files");
    let want = chrono::DateTime::from_timestamp_millis(earliest)
        .expect("instant")
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
    let (_, v) = crate::common::analyze_json(&dir, &[]);
    assert_eq!(v["started"], want.as_str(), "{}", v["started"]);
    // The dataset keeps it, so `since=` finds the campaign.
    let ds = d.path().join("ds");
    let r = add(&ds, std::slice::from_ref(&dir), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(&["dataset", "list", s(&ds), "--format", "json"]);
    let listed: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(listed[0]["started"], want.as_str(), "{listed}");
    // A clock reading no fio run can have (before 2005, or a runtime longer than the
    // time since 1970) is no start: the campaign keeps its earliest real one.
    let first = std::fs::read_dir(dir.join("results/raid10"))
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a fio file");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&first).expect("read")).expect("json");
    v["timestamp"] = 1.into();
    std::fs::write(&first, v.to_string()).expect("write");
    let (_, after) = crate::common::analyze_json(&dir, &[]);
    let started = after["started"].as_str().unwrap_or("");
    assert!(
        started >= want.as_str() && started.starts_with("2026"),
        "{started}"
    );
    // A manifest's start comes first.
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"tool": "reprobench", "started": "2026-07-18T13:00:00+02:00", "steps": []}"#,
    )
    .expect("manifest");
    let (_, v) = crate::common::analyze_json(&dir, &[]);
    assert_eq!(v["started"], "2026-07-18T11:00:00Z");
    // Published figures carry timestamp 0: no start, not 1970.
    let (_, v) = crate::common::analyze_json(&root().join("samples/storage-published"), &[]);
    assert!(v["started"].is_null(), "{}", v["started"]);
}

/// pyarrow 14 ($REPROBENCH_PYARROW14_PYTHON; CI installs it): the last pyarrow before the
/// Arrow view types, still what many support machines have.
fn pyarrow14_python() -> Option<String> {
    let p = crate::common::python_with("REPROBENCH_PYARROW14_PYTHON", "pyarrow").filter(|p| {
        Command::new(p)
            .args([
                "-c",
                "import pyarrow; assert pyarrow.__version__.startswith('14.')",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if p.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs pyarrow 14 ($REPROBENCH_PYARROW14_PYTHON)"
        );
        skipped("needs pyarrow 14 ($REPROBENCH_PYARROW14_PYTHON)");
    }
    p
}

/// Every Parquet file the tool writes (a dataset's, an export's) opens in pyarrow 14,
/// whole: Polars holds strings as Arrow's `utf8_view`, and the Arrow schema it embeds by
/// default names that type, which pyarrow before 15 cannot read (`Unrecognized type:
/// 24`, for every file). Strings come back as strings.
#[test]
fn pyarrow_14_reads_every_parquet_file_the_tool_writes() {
    let Some(py) = pyarrow14_python() else {
        return;
    };
    let d = tempfile::tempdir().expect("tmp");
    let ds = d.path().join("ds");
    assert_eq!(add(&ds, &samples(), &[]).code, 0);
    let export = d.path().join("export");
    let r = run(&[
        "analyze",
        s(&root().join("samples/kv-cache-published")),
        "--export",
        s(&export),
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let script = r#"
import glob, sys
import pyarrow as pa, pyarrow.parquet as pq
files = sorted(glob.glob(sys.argv[1] + "/**/*.parquet", recursive=True))
strings = 0
for f in files:
    t = pq.read_table(f)
    strings += sum(1 for ty in t.schema.types if pa.types.is_large_string(ty) or pa.types.is_string(ty))
print(len(files), strings)
"#;
    let out = Command::new(&py)
        .args(["-c", script, s(d.path())])
        .output()
        .expect("python runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    let counts: Vec<usize> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let written = walk_parquet(d.path());
    assert_eq!(counts.first(), Some(&written), "{text}");
    assert!(written > 20, "{written} files");
    assert!(
        counts.get(1).is_some_and(|n| *n > 50),
        "string columns: {text}"
    );
}

fn walk_parquet(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                walk_parquet(&p)
            } else {
                usize::from(p.extension().is_some_and(|x| x == "parquet"))
            }
        })
        .sum()
}

/// An export's CSV files read back with the Parquet's types through the `schema.json`
/// beside them (DuckDB's `read_csv(..., columns = ...)`, as the docs show): guessed from
/// the cells, some columns come back as another type (an all-empty column, number-like
/// names); with the schema, every column has its Parquet type and every value its
/// Parquet value (an empty text and a missing one are both an empty cell in CSV: read
/// back as missing).
#[test]
fn export_csv_reads_back_with_the_parquet_types_through_schema_json() {
    let Some(py) = duckdb_python() else {
        return;
    };
    let d = tempfile::tempdir().expect("tmp");
    let export = d.path().join("export");
    let inputs: Vec<PathBuf> = [
        "kv-cache-published",
        "storage-published",
        "spdk-raid-published",
    ]
    .iter()
    .map(|n| root().join("samples").join(n))
    .collect();
    let mut args = vec!["analyze"];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["--export", s(&export)]);
    let r = run(&args);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let script = r#"
import duckdb, json, sys
d = sys.argv[1]
schema = json.load(open(d + "/schema.json"))
con = duckdb.connect()
columns = guessed_wrong = typed_wrong = rows_differ = 0
for f in schema["frames"]:
    p, c = d + "/" + f["parquet"], d + "/" + f["csv"]
    types = {x["name"]: x["sql"] for x in f["columns"]}
    want = [r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{p}')").fetchall()]
    guessed = [r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_csv('{c}', header = true)").fetchall()]
    typed = [r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_csv('{c}', header = true, columns = $t)", {"t": types}).fetchall()]
    columns += len(want)
    guessed_wrong += sum(a != b for a, b in zip(want, guessed))
    typed_wrong += sum(a != b for a, b in zip(want, typed)) + abs(len(want) - len(typed))
    sel = ", ".join(f"nullif(\"{n}\", '') AS \"{n}\"" if t == "VARCHAR" else f"\"{n}\"" for n, t in types.items())
    a = f"SELECT {sel} FROM read_parquet('{p}')"
    b = f"SELECT * FROM read_csv('{c}', header = true, columns = $t)"
    rows_differ += con.execute(f"SELECT count(*) FROM ({a} EXCEPT ALL {b})", {"t": types}).fetchone()[0]
    rows_differ += con.execute(f"SELECT count(*) FROM ({b} EXCEPT ALL {a})", {"t": types}).fetchone()[0]
print(len(schema["frames"]), columns, guessed_wrong, typed_wrong, rows_differ)
"#;
    let out = Command::new(&py)
        .args(["-c", script, s(&export)])
        .output()
        .expect("python runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n: Vec<usize> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [frames, columns, guessed_wrong, typed_wrong, rows_differ] = n[..] else {
        panic!("{text}");
    };
    assert!(frames >= 8 && columns > 150, "{text}");
    assert!(
        guessed_wrong > 0,
        "guessing from the cells is wrong somewhere: {text}"
    );
    assert_eq!((typed_wrong, rows_differ), (0, 0), "{text}");
}

/// A dataset grows across minor versions: campaigns added under an older minor have no
/// `standard_error` in `measurements` (the table's last column, added in 1.1; rows
/// marked `older`). Read with the documented recipes (DuckDB's `union_by_name`, Spark's
/// `mergeSchema`, Polars' concatenation by name), every engine gives the answers it gives
/// on the same dataset written wholly under the current version, the older campaigns'
/// new column null; `compare` reads the older campaigns from the dataset itself; and
/// `dataset compact` writes the column into every file (null where it was unknown),
/// the answers unchanged in every engine.
#[test]
fn a_dataset_of_campaigns_written_under_two_minor_versions_reads_the_same_in_every_engine() {
    let Some(duckdb) = duckdb_python() else {
        return;
    };
    let d = tempfile::tempdir().expect("tempdir");
    let ds = d.path().join("ds");
    let r = add(&ds, &samples(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = d.path().join("queries.md");
    let mut text = std::fs::read_to_string(root().join("docs/compare-and-datasets.md"))
        .expect("the dataset docs");
    // The docs' own way to read a table in DuckDB (its options are the recipe), pointed
    // at `measurements`; Spark reads the view queries.py registers as the docs do.
    let duckdb_read = text
        .split("FROM read_parquet('DATASET/verdicts/")
        .nth(1)
        .and_then(|rest| rest.split('\n').next())
        .map(|rest| format!("read_parquet('DATASET/measurements/{rest}"))
        .expect("a documented read of a table");
    assert!(duckdb_read.starts_with("read_parquet("), "{duckdb_read}");
    // Every documented DuckDB read carries the recipe's option, not only the first.
    let reads_in_docs = text.matches("read_parquet('DATASET/").count();
    assert!(reads_in_docs >= 6, "{reads_in_docs}");
    assert_eq!(
        text.matches("hive_partitioning = true, union_by_name = true)")
            .count(),
        reads_in_docs,
        "every documented read_parquet reads by name"
    );
    let reads = |engine: &str| -> String {
        if engine == "duckdb" {
            duckdb_read.clone()
        } else {
            "measurements".to_string()
        }
    };
    for (marker, engine) in [
        ("query", "duckdb"),
        ("spark-query", "spark"),
        ("polars-query", "polars"),
    ] {
        text.push_str(&format!(
            "\n```sql\n-- {marker}: standard-errors-by-campaign\nSELECT campaign_name AS name, schema_version, count(*) AS n, count(standard_error) AS with_error\nFROM {}\nGROUP BY campaign_name, schema_version ORDER BY name;\n```\n",
            reads(engine)
        ));
    }
    std::fs::write(&doc, text).expect("write the queries");
    let mut engines = vec![("duckdb", duckdb.clone())];
    if let Some(spark) = spark_python() {
        engines.push(("spark", spark));
    }
    if let Some(polars) = polars_python() {
        engines.push(("polars", polars));
    }
    let answers = |engine: &str, py: &Path| -> BTreeMap<String, Value> {
        let v = queries(py, &doc, &ds, engine);
        v.as_object()
            .expect("answers")
            .iter()
            .map(|(k, a)| (k.clone(), a["rows"].clone()))
            .collect()
    };
    let before: Vec<_> = engines.iter().map(|(e, py)| answers(e, py)).collect();
    for ((engine, _), answered) in engines.iter().zip(&before) {
        assert_eq!(
            answered.len(),
            6,
            "{engine}: the five documented queries and ours"
        );
    }
    // The storage samples' measurements as an older minor wrote them: no
    // standard_error, schema_version `older`.
    let mut older = 0;
    for e in std::fs::read_dir(ds.join("measurements/suite=storage")).expect("storage") {
        let part = e.expect("entry").path();
        // The file alone (no partition column from its path), as the older version
        // wrote it: without the column, its rows and its key-value metadata saying so.
        let script = "import duckdb, sys\nf = sys.argv[1]\nduckdb.sql(f\"COPY (SELECT * EXCLUDE (standard_error) REPLACE ('older' AS schema_version) FROM read_parquet('{f}', hive_partitioning = false)) TO '{f}.old' (FORMAT parquet, KV_METADATA {{'reprobench.schema_version': 'older'}})\")\n";
        output_of(Command::new(&duckdb).args(["-c", script]).arg(&part));
        std::fs::rename(part.with_extension("parquet.old"), &part).expect("rename");
        older += 1;
    }
    assert_eq!(older, 2, "the two storage samples");
    // As the older `dataset add` would have indexed them: the digest of each segment's
    // files as written (`rel NUL sha256 LF`, in path order).
    let reindex = r#"
import glob, hashlib, json, os, sys
ds = sys.argv[1]
index = json.load(open(os.path.join(ds, "_index.json")))
for seg in index["segments"]:
    lines = []
    for path in glob.glob(os.path.join(ds, "*", "suite=*", "part-" + seg + ".parquet")):
        rel = os.path.relpath(path, ds)
        lines.append(rel + "\0" + hashlib.sha256(open(path, "rb").read()).hexdigest() + "\n")
    index["segments"][seg] = hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()
json.dump(index, open(os.path.join(ds, "_index.json"), "w"), indent=1)
"#;
    output_of(Command::new("python3").args(["-c", reindex]).arg(&ds));
    let mixed = check_mixed_answers(&engines, &before, &answers);
    assert_eq!(
        mixed.len(),
        engines.len(),
        "every engine saw the older campaigns"
    );
    // The tool's own reader takes the older campaigns too.
    let r = run(&[
        "compare",
        &format!("{}:storage-published", s(&ds)),
        &format!("{}:storage-loopback", s(&ds)),
        "--format",
        "json",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}{}", r.stdout, r.stderr);
    // Compacted: one file per table and suite, every file with the whole schema (the
    // older campaigns' standard_error null), the answers the same in every engine.
    let r = run(&["dataset", "compact", s(&ds)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let parts: Vec<PathBuf> = files(&ds)
        .into_keys()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    let suites = std::fs::read_dir(ds.join("verdicts"))
        .expect("verdicts")
        .count();
    assert_eq!(parts.len(), 6 * suites, "{parts:?}");
    for p in &parts {
        let df = ParquetReader::new(std::fs::File::open(ds.join(p)).expect("open"))
            .finish()
            .expect("parquet");
        let table = p.iter().next().and_then(|t| t.to_str()).expect("table");
        let want: Vec<&str> = reprobench::schema::dataset::table(table)
            .expect("a table")
            .columns()
            .map(|c| c.name)
            .collect();
        let have: Vec<&str> = df.get_column_names().iter().map(|c| c.as_str()).collect();
        assert_eq!(have, want, "{}", p.display());
    }
    for (((engine, py), before), mixed) in engines.iter().zip(&before).zip(&mixed) {
        let after = answers(engine, py);
        for (name, rows) in before {
            if name != "standard-errors-by-campaign" {
                assert_eq!(&after[name], rows, "{engine}: compacted: {name}");
            }
        }
        // Every row kept, the older campaigns' standard errors still null (now a column
        // of their files, not a missing one).
        assert_eq!(
            per_campaign(&after["standard-errors-by-campaign"]),
            per_campaign(mixed),
            "{engine}: compacted"
        );
    }
}

/// The answers on a dataset whose storage campaigns an older minor wrote, against the
/// same dataset written wholly by this version (`before`): the same, but the older
/// campaigns' storage rows count with no standard error. Whether older rows were seen.
fn check_mixed_answers(
    engines: &[(&str, PathBuf)],
    before: &[BTreeMap<String, Value>],
    answers: &dyn Fn(&str, &Path) -> BTreeMap<String, Value>,
) -> Vec<Value> {
    let mut seen = Vec::new();
    let current = reprobench::schema::dataset::VERSION.to_string();
    for ((engine, py), before) in engines.iter().zip(before) {
        let after = answers(engine, py);
        for (name, rows) in before {
            if name != "standard-errors-by-campaign" {
                assert_eq!(&after[name], rows, "{engine}: {name}");
            }
        }
        // The older campaigns' storage rows count with no standard error; the newer ones'
        // count as before.
        let by_name = |rows: &Value| -> BTreeMap<(String, String), (u64, u64)> {
            rows.as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    (
                        (
                            r[0].as_str().unwrap_or("").to_string(),
                            r[1].as_str().unwrap_or("").to_string(),
                        ),
                        (r[2].as_u64().unwrap_or(0), r[3].as_u64().unwrap_or(0)),
                    )
                })
                .collect()
        };
        let (was, now) = (
            by_name(&before["standard-errors-by-campaign"]),
            by_name(&after["standard-errors-by-campaign"]),
        );
        for ((name, version), (n, with)) in &now {
            if version == "older" {
                assert_eq!(*with, 0, "{engine}: {name} has no standard_error column");
                let newer = now.get(&(name.clone(), current.clone())).map_or(0, |x| x.0);
                let was_n = was.get(&(name.clone(), current.clone())).map_or(0, |x| x.0);
                assert_eq!(n + newer, was_n, "{engine}: {name} keeps every row");
            } else {
                assert!(
                    was.contains_key(&(name.clone(), version.clone())),
                    "{engine}: {name}"
                );
            }
        }
        assert!(now.keys().any(|k| k.1 == "older"), "{engine}: {now:?}");
        assert!(
            was.values().map(|x| x.1).sum::<u64>() > now.values().map(|x| x.1).sum::<u64>(),
            "{engine}: the storage samples had standard errors before"
        );
        seen.push(after["standard-errors-by-campaign"].clone());
    }
    seen
}

/// Rows of `standard-errors-by-campaign` summed per campaign whatever the version:
/// name -> (rows, rows with a standard error).
fn per_campaign(rows: &Value) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for r in rows.as_array().into_iter().flatten() {
        let e = out
            .entry(r[0].as_str().unwrap_or("").to_string())
            .or_default();
        e.0 += r[2].as_u64().unwrap_or(0);
        e.1 += r[3].as_u64().unwrap_or(0);
    }
    out
}
