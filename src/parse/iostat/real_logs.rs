//! A real sysstat 12 log from the fixtures, read whole.

use super::*;
use std::path::PathBuf;

#[test]
fn reads_a_real_sysstat_12_log() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio/procedure/raid10/iostat/randread-8k-j2-d4.iostat");
    let log = parse_path(&p).expect("real iostat log parses");
    assert!(!log.samples.is_empty());
    assert!(log
        .banner
        .as_deref()
        .is_some_and(|b| b.starts_with("Linux")));
    let s = &log.samples[0];
    assert!(s.cpu_system.is_some());
    assert!(s
        .devices
        .iter()
        .all(|d| d.r_s().is_some() && d.w_await().is_some() && d.util().is_some()));
}
