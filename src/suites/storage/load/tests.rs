//! Tests of the load: repeat numbers.

use super::repeat_number;

#[test]
fn repeat_numbers_come_from_the_suffix_after_the_jobs_own_name() {
    let job = "randwrite-8k-j8-d8";
    for (stem, n) in [
        ("randwrite-8k-j8-d8-run2", Some(2)),
        ("randwrite-8k-j8-d8_run3", Some(3)),
        ("randwrite-8k-j8-d8.2", Some(2)),
        ("randwrite-8k-j8-d8-rep12", Some(12)),
        ("randwrite-8k-j8-d8", None),
        ("randwrite-8k-j8-d8-run", None),
        ("randwrite-8k-j8-d8-runx", None),
        ("randwrite-8k-j8-d8-fast", None),
        ("randwrite-8k-j8-d80", None),
        ("randwrite-8k-j8-d8-run99999999999", None),
    ] {
        assert_eq!(repeat_number(stem, job), n, "{stem}");
    }
}
