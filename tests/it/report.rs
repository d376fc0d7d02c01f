//! End to end: report.md, plots and a real report.pdf (typst run as a process) for every
//! sample, checked through pdftotext.

use std::fs;

use crate::common::*;

const SAMPLES: [(&str, &str); 5] = [
    (
        "samples/spdk-raid-published",
        "7 pass, 2 fail, 7 not measured, 0 inconclusive, 0 not comparable",
    ),
    (
        "samples/storage-published",
        "6 pass, 0 fail, 0 not measured, 0 inconclusive, 0 not comparable",
    ),
    (
        "samples/storage-loopback",
        "1 pass, 0 fail, 0 not measured, 0 inconclusive, 5 not comparable",
    ),
    (
        "samples/kv-cache-published",
        "17 pass, 0 fail, 0 not measured, 0 inconclusive, 0 not comparable",
    ),
    (
        "samples/kv-cache-failing",
        // Its unequal GPU KV caches make test 2's six comparisons not comparable.
        "5 pass, 6 fail, 0 not measured, 0 inconclusive, 6 not comparable",
    ),
];

#[test]
fn every_sample_gives_a_real_pdf_with_its_verdict_table() {
    let Some(typst) = pdf_tools() else { return };
    for (sample, summary) in SAMPLES {
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("out");
        let r = run(&[
            "report",
            root().join(sample).to_str().unwrap_or(""),
            "-o",
            out.to_str().unwrap_or(""),
            "--typst",
            typst.to_str().unwrap_or(""),
        ]);
        assert!(r.code == 0 || r.code == 1, "{sample}: {}", r.stderr);
        let pdf = fs::read(out.join("report.pdf")).expect("report.pdf");
        assert_eq!(&pdf[..5], b"%PDF-", "{sample}");
        let text = pdf_text(&out.join("report.pdf")).expect("pdftotext reads it");
        assert!(
            text.contains(summary),
            "{sample}: no `{summary}` in the PDF text"
        );
        assert!(text.contains("Verdicts"), "{sample}");
        assert!(
            text.contains("status") && text.contains("criterion") && text.contains("published")
        );
        // Page 1 is the summary: every verdict is on it, the detail starts on page 2.
        let page1 = text.split('\u{c}').next().unwrap_or("");
        assert!(page1.contains(summary), "{sample}: page 1:\n{page1}");
        assert!(
            !page1.contains("Deviations from the procedure"),
            "{sample}: the detail begins after page 1:\n{page1}"
        );
        let page2 = text.split('\u{c}').nth(1).unwrap_or("");
        assert!(
            page2.trim_start().starts_with("Verdicts"),
            "{sample}: {page2}"
        );
        // A suite's charts are two to a row.
        let typ = fs::read_to_string(out.join("report.typ")).expect("typ");
        if typ.contains("image(\"plots/") {
            assert!(typ.contains("#grid(columns: (1fr, 1fr)"), "{sample}");
            assert!(!typ.contains("width: 78%"), "{sample}");
        }
        // Every verdict's criterion is in the PDF (a line of it, pdftotext wraps cells),
        // on page 1.
        let (_, v) = analyze_json(&root().join(sample), &[]);
        for s in v["suites"].as_array().expect("suites") {
            for verdict in s["verdicts"].as_array().expect("verdicts") {
                let words: String = verdict["criterion"]
                    .as_str()
                    .unwrap_or("")
                    .split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ");
                assert!(
                    text.contains(&words),
                    "{sample}: `{words}` missing from the PDF"
                );
                assert!(page1.contains(&words), "{sample}: `{words}` not on page 1");
            }
        }
        let md = fs::read_to_string(out.join("report.md")).expect("md");
        for entry in fs::read_dir(out.join("plots")).expect("plots").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(
                md.contains(&format!("plots/{name}")),
                "{name} is embedded in report.md"
            );
            let typ = fs::read_to_string(out.join("report.typ")).expect("typ");
            assert!(
                typ.contains(&format!("plots/{name}")),
                "{name} is embedded in report.typ"
            );
        }
    }
}

#[test]
fn same_input_gives_the_same_pdf_bytes() {
    let Some(typst) = pdf_tools() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let mut pdfs = Vec::new();
    for n in ["a", "b"] {
        let out = tmp.path().join(n);
        let r = run(&[
            "report",
            root()
                .join("samples/storage-published")
                .to_str()
                .unwrap_or(""),
            "-o",
            out.to_str().unwrap_or(""),
            "--typst",
            typst.to_str().unwrap_or(""),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        pdfs.push(fs::read(out.join("report.pdf")).expect("pdf"));
    }
    assert_eq!(pdfs[0], pdfs[1]);
}

#[test]
fn no_pdf_writes_markdown_and_plots_only() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let r = run(&[
        "report",
        root()
            .join("samples/kv-cache-published")
            .to_str()
            .unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(out.join("report.md").is_file());
    assert!(!out.join("report.pdf").exists());
    let plots: Vec<String> = fs::read_dir(out.join("plots"))
        .expect("plots")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for want in [
        "kv-ladder-output.svg",
        "kv-ladder-ttft.svg",
        "kv-ladder-gen.svg",
        "kv-restore-times.svg",
        "kv-dram-restores.svg",
    ] {
        assert!(plots.iter().any(|p| p == want), "{want} in {plots:?}");
    }
    let gen = fs::read_to_string(out.join("plots/kv-ladder-gen.svg")).expect("svg");
    assert!(gen.contains("SLA 20 tok/s"), "the SLA line is drawn");
}

#[test]
fn a_broken_typst_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    let r = run(&[
        "report",
        root()
            .join("samples/storage-published")
            .to_str()
            .unwrap_or(""),
        "-o",
        tmp.path().join("out").to_str().unwrap_or(""),
        "--typst",
        "/nonexistent/typst",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("/nonexistent/typst"), "{}", r.stderr);
    assert!(
        tmp.path().join("out/report.md").is_file(),
        "the Markdown is still written"
    );
}

#[test]
fn a_report_or_bundle_inside_the_results_folder_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    let before = snapshot(&input);
    let inside = input.join("report-out");
    let r = run(&[
        "report",
        input.to_str().unwrap_or(""),
        "-o",
        inside.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("inside the results folder"),
        "{}",
        r.stderr
    );
    let b = input.join("results/support.tar.gz");
    let r = run(&[
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        b.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(
        before,
        snapshot(&input),
        "nothing was written into the results folder"
    );
}

/// A verdict judged on an interval shows it beside its measurement in every report form
/// (Markdown, HTML; Typst from the same template values): here test 2's parity over the sample's two runs a variant.
#[test]
fn verdict_intervals_are_shown_beside_the_measurement() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let r = run(&[
        "report",
        root()
            .join("samples/kv-cache-published")
            .to_str()
            .unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let md = fs::read_to_string(out.join("report.md")).expect("md");
    let row = md
        .lines()
        .find(|l| l.contains("1 client(s): ADP within 10%"))
        .expect("the L1 parity row");
    // The interval names its method.
    let method =
        "2 vs 2 runs, Student t-interval on the log ratio, variance pooled over both sides)";
    assert!(
        row.contains("(95% interval 0.") && row.contains(method),
        "{row}"
    );
    // Both ends in the verdict's unit: a ratio's with x, a difference's with %.
    assert!(row.contains("(95% interval 0.945x to 1.032x, "), "{row}");
    let dram = md
        .lines()
        .find(|l| l.contains("(95% interval") && l.contains("+1.8%"))
        .expect("the DRAM tier's L8 row");
    assert!(dram.contains("(95% interval -2.166% to 5.905%, "), "{dram}");
    let html = fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(html.contains(method), "report.html");
    // The published number is held against the measurement where it is a number: test
    // 1's restore time.
    assert!(
        md.contains("reproduced: within ±10% of the published (one point, no interval)"),
        "{md}"
    );
}
