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
