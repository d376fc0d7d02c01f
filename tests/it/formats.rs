//! Files from the field in the shapes they really come in: iostat with `-t` in several
//! locales, without `-m`, older sysstat column sets, sysstat's JSON (whole and cut off by
//! `kill`); fio 2.x and fio client/server output; a single file whatever its name.

use std::fs;
use std::path::PathBuf;

use crate::common::*;
use reprobench::ingest::{Catalog, Kind, Record};
use reprobench::parse::{fio, iostat};

fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

fn iostat_log(name: &str) -> iostat::IostatLog {
    iostat::parse_path(&fixture(&format!("iostat/{name}")))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn iostat_with_timestamps_in_every_locale_reads_the_same_samples() {
    for name in [
        "sysstat12-xmt-C.iostat",
        "sysstat12-xmt-en_US.iostat",
        "sysstat12-xmt-de_DE.iostat",
        "sysstat12-xmt-fr_FR.iostat",
        "sysstat12-xmt-ja_JP.iostat",
        "sysstat12-xmt-ISO.iostat",
    ] {
        let log = iostat_log(name);
        assert_eq!(
            log.samples.len(),
            1,
            "{name}: the since-boot block is dropped"
        );
        let s = &log.samples[0];
        assert!(s.time.is_some(), "{name}: the -t timestamp is kept");
        assert!(s.cpu_system.is_some_and(|v| v >= 0.0), "{name}");
        assert!(!s.devices.is_empty(), "{name}");
        assert!(
            s.devices
                .iter()
                .all(|d| d.r_mb_s().is_some() && d.w_await().is_some() && d.util().is_some()),
            "{name}"
        );
    }
    let en = iostat_log("sysstat12-xmt-en_US.iostat");
    let t = en.samples[0].time.clone().unwrap_or_default();
    assert!(
        t.ends_with("PM") || t.ends_with("AM"),
        "12-hour form kept as printed: {t}"
    );
    let ja = iostat_log("sysstat12-xmt-ja_JP.iostat");
    assert!(ja.samples[0]
        .time
        .as_deref()
        .is_some_and(|t| t.contains('時')));
}

#[test]
fn iostat_units_are_converted_to_mib_per_second() {
    // kB/s columns (no -m): the same machine's MB/s divided by 1024.
    let kb = iostat_log("sysstat12-x-kB.iostat");
    assert!(kb.samples[0].devices.iter().all(|d| d.r_mb_s().is_some()));
    // sysstat 9: 512-byte sectors; 327680 sectors/s is 160 MiB/s.
    let old = iostat_log("sysstat9-x-sectors.iostat");
    let nvme = old.samples[0]
        .devices
        .iter()
        .find(|d| &*d.device == "nvme0n1")
        .expect("nvme0n1");
    assert_eq!(nvme.r_mb_s(), Some(160.0));
    assert_eq!(
        nvme.await_ms(),
        Some(1.55),
        "the one `await` column is kept as such"
    );
    assert_eq!(nvme.w_await(), None, "never passed off as the write wait");
    assert_eq!(nvme.util(), Some(99.9));
    // sysstat 10/11 -xm: `Device:` and r_await/w_await beside await.
    let ten = iostat_log("sysstat10-xm.iostat");
    let d = &ten.samples[0].devices[0];
    assert_eq!(
        (d.w_mb_s(), d.w_await(), d.await_ms()),
        (Some(312.5), Some(0.79), Some(0.79))
    );
}

#[test]
fn sysstat_json_whole_and_cut_off_by_kill() {
    let whole = iostat_log("sysstat12-x-json.iostat");
    assert_eq!(whole.samples.len(), 1);
    assert!(!whole.truncated_tail);
    assert!(whole
        .banner
        .as_deref()
        .is_some_and(|b| b.starts_with("Linux ")));
    let timed = iostat_log("sysstat12-xmt-json.iostat");
    assert_eq!(timed.samples.len(), 2);
    assert!(timed.samples[0].time.is_some());
    let text = iostat_log("sysstat12-xmt-C.iostat");
    // The same host in JSON and text: the same devices.
    let names = |l: &iostat::IostatLog| -> Vec<String> {
        l.samples[0]
            .devices
            .iter()
            .map(|d| d.device.to_string())
            .collect()
    };
    assert_eq!(names(&timed), names(&text));
    let killed = iostat_log("sysstat12-xm-json-killed.iostat");
    assert!(killed.truncated_tail, "the cut is said");
    assert!(
        !killed.samples.is_empty(),
        "the complete samples before it are kept"
    );
}

#[test]
fn fio_client_server_output_sums_the_clients_as_fio_does() {
    let one = fio::parse_path(&fixture("fio-shapes/client-server-one.json")).expect("one");
    assert_eq!(one.jobs.len(), 1);
    assert!(one.jobs[0].read.io_bytes > 0);
    let two = fio::parse_path(&fixture("fio-shapes/client-server-two.json")).expect("two");
    assert_eq!(
        two.jobs.len(),
        2,
        "`All clients` is a sum, not a third client"
    );
    let groups = reprobench::fio::groups::groups(&two);
    assert_eq!(groups.len(), 1);
    // fio's own `All clients` entry: 6066425856 bytes read.
    assert_eq!(groups[0].read.io_bytes, 6_066_425_856);
    let normal =
        fio::parse_path(&fixture("fio-shapes/client-server-json-normal.out")).expect("normal");
    // With a client, fio prints the text report first and the JSON after it.
    assert!(normal.text_before[0].starts_with("hostname="));
    assert!(normal
        .text_before
        .iter()
        .any(|l| l.starts_with("Run status group 0")));
    assert_eq!(normal.jobs[0].read.io_bytes, one_like(&normal));
}

/// The text report's `io=3301MiB` line agrees with the JSON: 3461 MB, read back.
fn one_like(out: &fio::FioOutput) -> u64 {
    let bytes = out.jobs[0].read.io_bytes;
    assert_eq!(bytes / 1_000_000, 3461, "io=3301MiB (3461MB)");
    bytes
}

#[test]
fn fio_2_units_are_read_as_fio_2_wrote_them() {
    let out = fio::parse_path(&fixture("fio-shapes/fio-2.15-randread-8k.json")).expect("fio 2");
    let r = &out.jobs[0].read;
    assert_eq!(r.io_bytes, 57_600_000 * 1024, "io_bytes was KiB");
    assert_eq!(r.bw_bytes, 960_000.0 * 1024.0, "bw was KiB/s");
    assert_eq!(r.clat.percentile(99.0), Some(556_000.0), "µs became ns");
    assert_eq!(r.clat.mean, 262_400.0);
    // The storage suite reads it like any other run.
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("raid10");
    fs::create_dir_all(&d).expect("mkdir");
    fs::copy(
        fixture("fio-shapes/fio-2.15-randread-8k.json"),
        d.join("randread-8k-j32-d1.json"),
    )
    .expect("cp");
    let (_, v) = analyze_json(tmp.path(), &[]);
    let text = v.to_string();
    assert!(text.contains("fio-2.15"), "{text}");
    // 960,000 KiB/s is 983 MB/s (decimal, as the procedure's table).
    assert!(text.contains("\"983\""), "{text}");
}

#[test]
fn one_file_is_read_by_its_content_whatever_its_name() {
    let tmp = tempfile::tempdir().expect("tmp");
    let odd = tmp.path().join("run-output.log");
    fs::copy(fixture("fio-shapes/client-server-one.json"), &odd).expect("cp");
    let r = run(&["analyze", odd.to_str().unwrap_or(""), "--format", "json"]);
    // One run judges no criterion (each needs both arrays): exit 2, said, with the
    // analysis still printed.
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no criterion was judged"), "{}", r.stderr);
    let v = first_analysis(&serde_json::from_str(&r.stdout).expect("json"));
    assert_eq!(v["suites"][0]["name"], "storage");
    let iostat_named_txt = tmp.path().join("iostat.txt");
    fs::copy(
        fixture("iostat/sysstat12-xmt-de_DE.iostat"),
        &iostat_named_txt,
    )
    .expect("cp");
    let c = Catalog::scan(&iostat_named_txt).expect("scan");
    assert_eq!(c.items[0].kind, Kind::Iostat);
    assert!(matches!(c.items[0].record, Ok(Record::Iostat(_))));
}

#[test]
fn every_fixture_is_classified_by_content() {
    for (dir, want) in [("iostat", Kind::Iostat), ("fio-shapes", Kind::Fio)] {
        let c = Catalog::scan(&fixture(dir)).expect("scan");
        for item in c.items.iter().filter(|i| i.rel != "README.md") {
            assert_eq!(item.kind, want, "{}", item.rel);
            assert!(item.record.is_ok(), "{}: {:?}", item.rel, item.record);
        }
    }
}
