//! Tests of the deviations: shapes read from job names.

use super::shape::signature_from_name;

#[test]
fn reads_shapes_from_the_procedures_job_names() {
    let s = signature_from_name("randrw-8k-j128-d8").expect("procedure name");
    assert_eq!(
        (s.rw.as_str(), s.bs, s.numjobs, s.iodepth),
        ("randrw", Some(8192), 128, 8)
    );
    assert!(signature_from_name("precondition").is_none());
    assert!(signature_from_name("my-own-job-name").is_none());
}
