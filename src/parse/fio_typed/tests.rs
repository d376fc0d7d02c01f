//! Tests of the reading of one fio document.

#[test]
fn anything_unusual_is_left_to_the_document_finder() {
    let doc = r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "error": 0.5}]}"#;
    assert!(super::read(doc.as_bytes()).is_none(), "a fractional errno");
    let two = r#"{"jobs": []} {"jobs": []}"#;
    assert!(super::read(two.as_bytes()).is_none(), "two documents");
    let before = "note: x\n{\"jobs\": []}";
    assert!(super::read(before.as_bytes()).is_none(), "text before");
    let dup = r#"{"jobs": [], "jobs": []}"#;
    assert!(super::read(dup.as_bytes()).is_none(), "a duplicate key");
    let ok = r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "a"}]}"#;
    assert!(super::read(ok.as_bytes()).is_some());
}

#[test]
fn a_problem_names_its_field_or_its_line() {
    let doc = "{\"jobs\": [{\"jobname\": \"a\", \"error\": 0.5}]}";
    let e = super::read_document(doc.as_bytes(), 7).expect_err("fractional errno");
    assert_eq!(e.line, Some(7));
    assert_eq!(
        e.reason,
        "jobs[0].error: expected a whole number, found 0.5"
    );
    let doc = "{\"jobs\": [{\"jobname\": \"a\",\n \"read\": 5}]}";
    let e = super::read_document(doc.as_bytes(), 7).expect_err("a number for a block");
    assert_eq!(e.line, Some(8), "{e:?}");
    assert!(e.reason.contains("expected an object"), "{e:?}");
    // A key given twice in a percentile block: the place of the first, the last value.
    let doc = r#"{"jobs": [{"jobname": "a", "read": {"clat_ns": {"percentile": {"99.0": 1, "50.0": 2, "99.0": 3}}}}]}"#;
    let out = super::read_document(doc.as_bytes(), 1).expect("reads");
    assert_eq!(
        out.jobs[0].read.clat.percentiles,
        vec![(99.0, 3.0), (50.0, 2.0)]
    );
}

/// A rate fio did not compute from the file's own counts and runtime is refused, IOPS as
/// well as bandwidth; fio 2.x's bytes in whole KiB (up to 1023 short) stay within the
/// slack even for a short, slow job; fio 3.x's exact integers always pass.
#[test]
fn rates_are_the_files_own_counts_over_its_runtime() {
    let doc = |version: &str, dir: &str| {
        format!(r#"{{"fio version": "{version}", "jobs": [{{"jobname": "a", "read": {dir}}}]}}"#)
    };
    // fio 3.x: bw_bytes = 1000 * io_bytes / runtime, iops = 1000 * total_ios / runtime.
    let exact = r#"{"io_bytes": 8192000, "bw_bytes": 2730666, "iops": 333.333333, "total_ios": 1000, "runtime": 3000}"#;
    assert!(super::read_document(doc("fio-3.33", exact).as_bytes(), 1).is_ok());
    let iops = exact.replace("333.333333", "1e300");
    let e = super::read_document(doc("fio-3.33", &iops).as_bytes(), 1).expect_err("iops");
    assert!(e.reason.contains("IOPS of 1.00e300 IO/s"), "{e:?}");
    let bw = exact.replace("2730666", "5461332");
    let e = super::read_document(doc("fio-3.33", &bw).as_bytes(), 1).expect_err("bw");
    assert!(e.reason.contains("the file's figures disagree"), "{e:?}");
    // fio 2.x: 1023.5 KiB moved in 400 ms, written as io_bytes 1023 (KiB, rounded down)
    // and bw 2558 KiB/s: 3 KiB/s from the rebuilt bytes, inside the rounding.
    let legacy = r#"{"io_bytes": 1023, "bw": 2558, "iops": 5.0, "total_ios": 2, "runtime": 400}"#;
    assert!(super::read_document(doc("fio-2.15", legacy).as_bytes(), 1).is_ok());
}
