//! Tests of the reading of `iostat -x` text logs.

use super::*;

const LOG: &str = "Linux 6.1.0 (host) \t11/30/26 \t_x86_64_\t(2 CPU)

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
           1.00    0.00    2.00    0.50    0.00   96.50

Device            r/s     rMB/s   r_await     w/s     wMB/s   w_await  %util
nvme0n1          1.00      0.10      0.20    2.00      0.30      0.40   5.00

avg-cpu:  %user   %nice %system %iowait  %steal   %idle
          10,00    0,00   20,00    0,00    0,00   70,00

Device            r/s     rMB/s   r_await     w/s     wMB/s   w_await  %util
nvme0n1        100.00     10.00      0.50  200.00     20.00      0.90  50.00
md126          100.00     10.00      0.00  200.00     20.00      0.00   0.00

";

#[test]
fn drops_the_since_boot_block_and_reads_columns_by_header() {
    let log = parse_bytes(LOG.as_bytes()).expect("parses");
    assert_eq!(log.samples.len(), 1);
    let s = &log.samples[0];
    assert_eq!(s.index, 1);
    assert_eq!(s.cpu_system, Some(20.0), "comma decimals are read");
    assert_eq!(s.devices.len(), 2);
    assert_eq!(s.devices[0].w_mb_s(), Some(20.0));
    assert_eq!(s.devices[0].w_await(), Some(0.9));
    assert_eq!(&*s.devices[1].device, "md126");
    assert!(log.banner.is_some_and(|b| b.starts_with("Linux 6.1.0")));
}

#[test]
fn converts_kilobyte_columns() {
    let log = LOG.replace("rMB/s", "rkB/s").replace("wMB/s", "wkB/s");
    let log = parse_bytes(log.as_bytes()).expect("parses");
    assert_eq!(log.samples[0].devices[0].r_mb_s(), Some(10.0 / 1024.0));
}

#[test]
fn names_the_line_of_a_short_row() {
    let bad = LOG.replace("md126          100.00     10.00", "md126   1");
    let err = parse_bytes(bad.as_bytes()).expect_err("short row");
    assert_eq!(err.line, Some(14));
    assert!(err.reason.contains("expected 7 columns"), "{err:?}");
}

#[test]
fn drops_a_last_line_cut_off_by_kill() {
    let cut = &LOG[..LOG.len() - 30];
    let log = parse_bytes(cut.as_bytes()).expect("parses");
    assert!(log.truncated_tail);
    assert_eq!(log.samples[0].devices.len(), 1);
}

#[test]
fn refuses_other_text() {
    let err = parse_bytes(b"hello world\n").expect_err("not iostat");
    assert_eq!(err.line, Some(1));
    assert!(parse_bytes(b"").is_err());
}

#[test]
fn a_repeated_avg_cpu_header_starts_a_block_wherever_it_comes() {
    // No blank line between a block's rows and the next avg-cpu header, and the header
    // spaced differently once: each still starts a block, as the first one did.
    let log = LOG.replace("md126          100.00     10.00      0.00  200.00     20.00      0.00   0.00\n\n", "md126          100.00     10.00      0.00  200.00     20.00      0.00   0.00\n")
        + "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n           3.00    0.00    4.00    0.25    0.00   92.75\n\n"
        + "avg-cpu:  %user %nice %system %iowait  %steal   %idle\n           5.00    0.00    6.00    0.75    0.00   88.25\n";
    let log = parse_bytes(log.as_bytes()).expect("parses");
    assert_eq!(log.samples.len(), 3);
    assert_eq!(log.samples[0].devices.len(), 2);
    assert_eq!(log.samples[1].cpu_system, Some(4.0));
    assert_eq!(log.samples[1].cpu_iowait, Some(0.25));
    assert_eq!(log.samples[2].cpu_system, Some(6.0));
    assert!(log.samples[2].devices.is_empty());
}

#[test]
fn avg_cpu_values_are_read_by_their_headers_names() {
    // %iowait before %system: each value is the one its name stands over, in the first
    // header and in every repeat of it (the repeat is known at sight).
    let swapped = LOG
        .replace("%system %iowait", "%iowait %system")
        .replace("2.00    0.50", "0.50    2.00")
        .replace("20,00    0,00", "0,00   20,00")
        + "avg-cpu:  %user   %nice %iowait %system  %steal   %idle\n           3.00    0.00    0.25    4.00    0.00   92.75\n";
    let log = parse_bytes(swapped.as_bytes()).expect("parses");
    assert_eq!(log.samples[0].cpu_system, Some(20.0));
    assert_eq!(log.samples[0].cpu_iowait, Some(0.0));
    assert_eq!(log.samples[1].cpu_system, Some(4.0));
    assert_eq!(log.samples[1].cpu_iowait, Some(0.25));
    // A header that differs from the first is read for itself, and the first's columns
    // come back with it.
    let mixed = LOG.replace(
        "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n          10,00    0,00   20,00    0,00",
        "avg-cpu:  %user   %nice %iowait %system  %steal   %idle\n          10,00    0,00    7,00   20,00",
    ) + "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n           3.00    0.00    4.00    0.25    0.00   92.75\n";
    let log = parse_bytes(mixed.as_bytes()).expect("parses");
    assert_eq!(log.samples[0].cpu_system, Some(20.0));
    assert_eq!(log.samples[0].cpu_iowait, Some(7.0));
    assert_eq!(log.samples[1].cpu_system, Some(4.0));
    assert_eq!(log.samples[1].cpu_iowait, Some(0.25));
    // A header without %iowait gives none, not another column's value; one with a
    // seventh column reads seven values.
    let fewer = LOG
        .replace("%iowait  %steal", "%steal")
        .replace("2.00    0.50    0.00", "2.00    0.00")
        .replace("20,00    0,00    0,00", "20,00    0,00");
    let log = parse_bytes(fewer.as_bytes()).expect("parses");
    assert_eq!(log.samples[0].cpu_system, Some(20.0));
    assert_eq!(log.samples[0].cpu_iowait, None);
    let more = LOG
        .replace("%idle", "%idle  %guest")
        .replace("96.50", "96.50    0.00")
        .replace("70,00", "70,00    0,00");
    let log = parse_bytes(more.as_bytes()).expect("parses");
    assert_eq!(log.samples[0].cpu_iowait, Some(0.0));
    let short = LOG.replace("%idle", "%idle  %guest");
    let err = parse_bytes(short.as_bytes()).expect_err("six values under seven names");
    assert_eq!(err.line, Some(4));
    assert!(err.reason.contains("expected 7 avg-cpu values"), "{err:?}");
    // As many names as a header may hold: each value read by its own.
    let names: Vec<String> = (0..18).map(|i| format!("%c{i}")).collect();
    let wide = LOG
        .replace("%idle", &format!("%idle  {}", names.join(" ")))
        .replace("96.50", &format!("96.50{}", " 1.00".repeat(18)))
        .replace("70,00", &format!("70,00{}", " 2,00".repeat(18)));
    let log = parse_bytes(wide.as_bytes()).expect("24 values under 24 names");
    assert_eq!(log.samples[0].cpu_system, Some(20.0));
    // A bare `avg-cpu:` names nothing: its row is read, every value unknown.
    let bare = LOG.replace(
        "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n          10,00",
        "avg-cpu:\n          10,00",
    );
    let log = parse_bytes(bare.as_bytes()).expect("a bare header");
    assert_eq!(log.samples[0].cpu_system, None);
    assert_eq!(log.samples[0].cpu_iowait, None);
    assert_eq!(log.samples[0].devices.len(), 2);
}

/// iostat prints no value below 0: a row with one is refused with its line, never read
/// (a %util of -441 was printed as the drives' mean). "-0.00" is 0.
#[test]
fn a_negative_value_is_refused_with_its_line() {
    let bad = LOG.replace(
        "nvme0n1        100.00     10.00      0.50  200.00     20.00      0.90  50.00",
        "nvme0n1        100.00     10.00      0.50  200.00     20.00      0.90  -441.00",
    );
    let p = parse_bytes(bad.as_bytes()).expect_err("refused");
    assert_eq!(p.line, Some(13), "{p:?}");
    assert!(p.reason.contains("`-441.00`"), "{p:?}");
    let zero = LOG.replace("      0.00   0.00\n", "      0.00  -0.00\n");
    assert!(zero.contains("-0.00"));
    assert!(parse_bytes(zero.as_bytes()).is_ok());
}
