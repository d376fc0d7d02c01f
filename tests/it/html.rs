//! `report.html`: one self-contained file with the PDF's sections, sortable tables and
//! plots whose points name their values; loaded in a real browser (headless Chromium)
//! with scripts on and off, its first screen captured and checked, no console errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{root, run};

fn report(sample: &str, out: &Path) -> String {
    let input = root().join("samples").join(sample);
    let r = run(&[
        "report",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert!(r.code <= 1, "{}", r.stderr);
    assert!(r.stdout.contains("report.html"), "{}", r.stdout);
    std::fs::read_to_string(out.join("report.html")).expect("report.html")
}

/// The texts of every `<tag ...>text</tag>` (no nesting inside).
fn texts(html: &str, tag: &str) -> Vec<String> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    html.split(&open)
        .skip(1)
        .filter_map(|rest| {
            let body = &rest[rest.find('>')? + 1..];
            Some(body[..body.find(&close)?].to_string())
        })
        .collect()
}

#[test]
fn report_html_is_one_file_with_the_pdfs_sections_and_nothing_to_fetch() {
    let tmp = tempfile::tempdir().expect("tmp");
    for sample in [
        "kv-cache-failing",
        "storage-published",
        "spdk-raid-published",
    ] {
        let out = tmp.path().join(sample);
        let html = report(sample, &out);
        // Nothing outside the file: no link, no external script or image, and the
        // browser is told to fetch nothing.
        assert!(
            html.contains(r#"http-equiv="Content-Security-Policy" content="default-src 'none';"#)
        );
        for attr in ["src=", "<link", "url("] {
            assert!(!html.contains(attr), "{sample}: `{attr}` in report.html");
        }
        for href in html.split("href=\"").skip(1) {
            assert!(
                href.starts_with('#'),
                "{sample}: a link out: {}",
                &href[..href.len().min(60)]
            );
        }
        // The same sections as the PDF, in its order (report.typ's level-2 headings).
        let a =
            reprobench::analysis::run(&root().join("samples").join(sample), &Default::default())
                .expect("analysis")
                .analysis;
        let typ = reprobench::render::templates::render_typst(&a).expect("typst");
        let pdf_sections: Vec<String> = typ
            .lines()
            .filter_map(|l| l.strip_prefix("== "))
            .map(|h| {
                // `== #"title"`: a Typst string literal.
                let h = h.trim();
                match h.strip_prefix("#\"") {
                    Some(t) => t.trim_end_matches('"').replace("\\\"", "\""),
                    None => h.to_string(),
                }
            })
            .collect();
        let html_sections: Vec<String> = texts(&html, "h2")
            .into_iter()
            .map(|h| h.replace("&#x27;", "'").replace("&amp;", "&"))
            .collect();
        assert_eq!(html_sections, pdf_sections, "{sample}");
        // The summary first, then the verdicts, one row per verdict.
        let summary = html.find("id=\"summary\"").expect("summary");
        assert!(summary < html.find("id=\"verdicts\"").expect("verdicts"));
        assert!(html.contains(&a.summary.line()));
        let verdicts = html
            .split("id=\"verdicts\"")
            .nth(1)
            .and_then(|t| t.split("</table>").next())
            .expect("table");
        let n: usize = a.suites.iter().map(|s| s.verdicts.len()).sum();
        assert_eq!(
            verdicts.matches("<tr>").count(),
            n + 1,
            "{sample}: header and one row per verdict"
        );
        // Every table sorts; every plotted value names itself on hover.
        assert_eq!(
            html.matches("<table").count(),
            html.matches("<table class=\"sortable\"").count()
        );
        let charts: Vec<&reprobench::model::chart::Chart> =
            a.suites.iter().flat_map(|s| &s.charts).collect();
        let values: usize = charts
            .iter()
            .flat_map(|c| &c.series)
            .flat_map(|s| &s.values)
            .filter(|v| v.is_some_and(f64::is_finite))
            .count();
        // Each suite's first chart is drawn twice: at the top (its headline), and in its
        // section with the others.
        let headline: Vec<&reprobench::model::chart::Chart> =
            a.suites.iter().filter_map(|s| s.charts.first()).collect();
        let headline_values: usize = headline
            .iter()
            .flat_map(|c| &c.series)
            .flat_map(|s| &s.values)
            .filter(|v| v.is_some_and(f64::is_finite))
            .count();
        assert_eq!(
            html.matches("<svg").count(),
            charts.len() + headline.len(),
            "{sample}: plots inline"
        );
        let summary = html
            .split("id=\"verdicts\"")
            .next()
            .expect("the top of the page");
        assert_eq!(summary.matches("<svg").count(), headline.len(), "{sample}");
        assert_eq!(
            html.matches("<title>").count() - 1,
            values + headline_values,
            "{sample}: one hover label per value"
        );
        // What a file says is text, never markup.
        assert!(!html.contains("<script>alert"));
    }
}

/// Chromium, when it is here (CI installs Debian's `chromium`).
fn chromium() -> Option<PathBuf> {
    let p = std::env::var_os("REPROBENCH_CHROMIUM")
        .map_or_else(|| PathBuf::from("chromium"), PathBuf::from);
    let ok = Command::new(&p)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "CI installs chromium");
        crate::common::skipped("needs chromium (Debian's chromium package)");
        return None;
    }
    Some(p)
}

struct Loaded {
    /// The DOM after load (scripts having run, when on).
    dom: String,
    /// Console messages, uncaught exceptions and browser log entries (CSP refusals, failed
    /// loads), all of which a clean page has none of.
    problems: Vec<String>,
    /// The first screen.
    shot: Vec<u8>,
    eval: serde_json::Value,
}

/// Loads a page in headless Chromium over the DevTools protocol
/// (`tests/browser/load.py`), scripts on or off.
fn load(chrome: &Path, page: &Path, scripts: bool, eval: Option<&str>) -> Loaded {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dom, shot) = (tmp.path().join("dom.html"), tmp.path().join("shot.png"));
    let mut cmd = Command::new("python3");
    cmd.arg(root().join("tests/browser/load.py"))
        .arg(chrome)
        .arg(page)
        .args(["--scripts", if scripts { "on" } else { "off" }])
        .arg("--dom")
        .arg(&dom)
        .arg("--screenshot")
        .arg(&shot);
    if let Some(js) = eval {
        cmd.args(["--eval", js]);
    }
    let out = cmd.output().expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let problems = ["console", "exceptions", "log"]
        .iter()
        .flat_map(|k| r[*k].as_array().cloned().unwrap_or_default())
        .map(|v| v.as_str().unwrap_or("").to_string())
        .collect();
    Loaded {
        dom: std::fs::read_to_string(&dom).expect("dom"),
        problems,
        shot: std::fs::read(&shot).expect("screenshot"),
        eval: r["eval"].clone(),
    }
}

/// An 8-bit RGB or RGBA PNG decoded to (width, height, RGB pixels).
fn png_rgb(bytes: &[u8]) -> (usize, usize, Vec<[u8; 3]>) {
    use std::io::Read;
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let (mut at, mut w, mut h, mut channels, mut idat) = (8, 0, 0, 0, Vec::new());
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().expect("4")) as usize;
                h = u32::from_be_bytes(data[4..8].try_into().expect("4")) as usize;
                assert_eq!(data[8], 8, "8-bit");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("colour type {t}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .expect("zlib");
    let stride = w * channels;
    let mut img = vec![0u8; h * stride];
    for y in 0..h {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels {
                img[y * stride + x - channels]
            } else {
                0
            };
            let b = if y > 0 { img[(y - 1) * stride + x] } else { 0 };
            let c = if y > 0 && x >= channels {
                img[(y - 1) * stride + x - channels]
            } else {
                0
            };
            let v = match filter {
                0 => line[x],
                1 => line[x].wrapping_add(a),
                2 => line[x].wrapping_add(b),
                3 => line[x].wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    let pred = if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    };
                    line[x].wrapping_add(pred)
                }
                f => panic!("filter {f}"),
            };
            img[y * stride + x] = v;
        }
    }
    let px = img.chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    (w, h, px)
}

#[test]
fn the_browser_check_sees_a_broken_page() {
    let Some(chrome) = chromium() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let page = tmp.path().join("bad.html");
    std::fs::write(
        &page,
        "<html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'\"></head><body>x<img src=\"https://example.invalid/a.png\"><script>console.error('boom'); notDefined();</script></body></html>",
    )
    .expect("write");
    let l = load(&chrome, &page, true, None);
    let all = l.problems.join("\n");
    assert!(all.contains("boom"), "{all}");
    assert!(all.contains("notDefined"), "{all}");
    assert!(
        all.contains("Content Security Policy"),
        "the refused fetch: {all}"
    );
    let l = load(&chrome, &page, false, None);
    assert!(
        !l.problems.iter().any(|p| p.contains("notDefined")),
        "scripts off: {:?}",
        l.problems
    );
}

/// The screenshot is not blank and shows the summary's badges (their fills, exactly) in
/// its first 300 pixels.
fn summary_on_first_screen(png: &[u8]) {
    let (w, h, px) = png_rgb(png);
    assert_eq!((w, h), (1280, 900));
    let mut colours: Vec<[u8; 3]> = px.clone();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 50,
        "a blank screen: {} colours",
        colours.len()
    );
    let top = &px[..w * 300];
    let has = |rgb: [u8; 3]| top.iter().filter(|p| **p == rgb).count();
    assert!(
        has([0x1a, 0x7f, 0x37]) > 500,
        "the pass badge in the first 300 px"
    );
    assert!(
        has([0xcf, 0x22, 0x2e]) > 500,
        "the fail badge in the first 300 px"
    );
}

/// Clicks every numeric column's header of every table, twice, and checks the rows
/// come out ascending, then descending: "N clicked; bad: ...".
const SORT_CHECK: &str = r#"(function () {
  var bad = [], clicked = 0;
  function num(t) { var m = t.replace(/,/g, "").match(/^\s*[-+]?\d+(\.\d+)?/); return m ? parseFloat(m[0]) : null; }
  function col(table, c) { return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[c] ? r.cells[c].textContent : ""; }); }
  document.querySelectorAll("table.sortable").forEach(function (table, ti) {
    table.querySelectorAll("thead th").forEach(function (th, c) {
      var cells = col(table, c);
      if (cells.length < 3 || !cells.every(function (x) { return num(x) !== null; })) { return; }
      th.click(); clicked++;
      var v = col(table, c).map(num);
      for (var i = 1; i < v.length; i++) { if (v[i] < v[i - 1]) { bad.push(ti + ":" + c); break; } }
      th.click();
      v = col(table, c).map(num);
      for (var j = 1; j < v.length; j++) { if (v[j] > v[j - 1]) { bad.push(ti + ":" + c + " desc"); break; } }
    });
  });
  return clicked + " clicked; bad: " + bad.join(",");
})()"#;

#[test]
fn report_html_in_headless_chromium_sorts_shows_the_summary_and_logs_nothing() {
    let Some(chrome) = chromium() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let html = report("kv-cache-failing", &out);
    let page = out.join("report.html");

    // Scripts on: the page's script ran, nothing was logged, the tables sort.
    let on = load(&chrome, &page, true, Some(SORT_CHECK));
    assert!(on.problems.is_empty(), "{:?}", on.problems);
    assert!(on.dom.contains("data-sortable=\"ready\""), "the script ran");
    let attr = on.eval.as_str().expect("the sort check ran").to_string();
    let clicked: usize = attr
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("count");
    assert!(clicked >= 3, "{attr}");
    assert!(attr.ends_with("bad: "), "{attr}");
    summary_on_first_screen(&on.shot);

    // Scripts off: everything is there to read; the script did not run.
    let off = load(&chrome, &page, false, None);
    assert!(off.problems.is_empty(), "{:?}", off.problems);
    assert!(!off.dom.contains("data-sortable=\"ready\""));
    assert!(
        off.dom.contains("5 pass, 6 fail"),
        "the summary reads without scripts"
    );
    assert_eq!(
        off.dom.matches("<tr>").count(),
        html.matches("<tr>").count(),
        "every row"
    );
    summary_on_first_screen(&off.shot);
    // The screenshot is kept beside the report for a person to look at.
    std::fs::write(out.join("first-screen.png"), &off.shot).expect("write");
}

/// `compare -o DIR` writes `compare.html` and `analyze --trend --html FILE` a trend page:
/// each one file with nothing to fetch, one row per compared measurement (per criterion
/// for the trend), the plots inline, code shown as code; in Chromium (where it is here)
/// they load without a console message and their tables sort.
#[test]
fn compare_and_trend_pages_are_one_file_with_their_rows_and_nothing_to_fetch() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (base, new) = (
        root().join("samples/kv-cache-published"),
        root().join("samples/kv-cache-failing"),
    );
    let (b, n) = (base.to_str().unwrap_or(""), new.to_str().unwrap_or(""));
    let out = tmp.path().join("cmp");
    let r = run(&[
        "compare",
        b,
        n,
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert!(r.code <= 1, "{}", r.stderr);
    let json = run(&["compare", b, n, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let trend_file = tmp.path().join("trend.html");
    let t = run(&[
        "analyze",
        b,
        n,
        "--trend",
        "--html",
        trend_file.to_str().unwrap_or(""),
    ]);
    assert!(t.code <= 1, "{}", t.stderr);
    let tj = run(&["analyze", b, n, "--trend", "--format", "json"]);
    let tv: serde_json::Value = serde_json::from_str(&tj.stdout).expect("JSON");
    let pages = [
        (out.join("compare.html"), "measurements", v["rows"].clone()),
        (trend_file, "trend", tv["trend"]["rows"].clone()),
    ];
    for (page, section, rows) in &pages {
        let html = std::fs::read_to_string(page).expect("the page");
        assert!(
            html.contains(r#"http-equiv="Content-Security-Policy" content="default-src 'none';"#)
        );
        for attr in ["src=", "<link", "url("] {
            assert!(!html.contains(attr), "`{attr}` in {}", page.display());
        }
        let table = html
            .split(&format!("id=\"{section}\""))
            .nth(1)
            .and_then(|t| t.split("</table>").next())
            .expect("its table");
        let rows = rows.as_array().map_or(0, Vec::len);
        assert!(rows > 0);
        assert_eq!(
            table.matches("<tr>").count(),
            rows + 1,
            "{}",
            page.display()
        );
        // Text quoted between backticks is code, never literal backticks.
        let body = html.split("<script>").next().unwrap_or("");
        assert!(!body.contains('`'), "a backtick in {}", page.display());
        assert!(body.contains("<code>"));
    }
    // The compare page holds each plot inline; the trend one line per criterion, with a
    // hover label per measured value.
    let html = std::fs::read_to_string(&pages[0].0).expect("compare.html");
    let plots = std::fs::read_dir(out.join("plots")).expect("plots").count();
    assert_eq!(html.matches("<svg").count(), plots);
    let trend = std::fs::read_to_string(&pages[1].0).expect("trend.html");
    let measured: usize = tv["trend"]["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["values"].as_array().cloned().unwrap_or_default())
        .filter(|x| x.is_number())
        .count();
    assert_eq!(
        trend.matches("<svg").count(),
        pages[1].2.as_array().map_or(0, Vec::len)
    );
    assert_eq!(trend.matches("<circle").count(), measured);
    let Some(chrome) = chromium() else { return };
    for (page, _, _) in &pages {
        let on = load(&chrome, page, true, Some(SORT_CHECK));
        assert!(
            on.problems.is_empty(),
            "{}: {:?}",
            page.display(),
            on.problems
        );
        let attr = on.eval.as_str().expect("the sort check ran").to_string();
        assert!(attr.ends_with("bad: "), "{}: {attr}", page.display());
    }
}
