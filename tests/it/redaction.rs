//! Bundles against a hostile corpus (`tests/fixtures/secrets/`): every secret class in
//! every encoding and container leaves in no member, name or report, the realistic
//! non-secrets leave unchanged, and a bundle's analysis equals its folder's on every
//! sample with secrets planted in the fields the suites do not judge.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::common::*;

fn fixture(name: &str) -> String {
    fs::read_to_string(root().join("tests/fixtures/secrets").join(name)).expect("fixture")
}

fn seeds() -> regex::Regex {
    regex::Regex::new(r"LEAK\d\d|PLANT\d\d").expect("regex")
}

fn utf16(text: &str, le: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if bom {
        out.extend(if le { [0xff, 0xfe] } else { [0xfe, 0xff] });
    }
    for u in text.encode_utf16() {
        out.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).expect("gz");
    gz.finish().expect("gz")
}

fn tar_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut t = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        t.append_data(&mut h, name, data.as_slice()).expect("tar");
    }
    t.into_inner().expect("tar")
}

/// Every way a reader could see text in `bytes`: as UTF-8, UTF-16 either way, and inside
/// gzip and tar, recursively.
fn readings(bytes: &[u8], out: &mut Vec<String>) {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut plain = Vec::new();
        if flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut plain)
            .is_ok()
        {
            readings(&plain, out);
        }
    }
    if bytes.len() >= 512 && &bytes[257..262] == b"ustar" {
        let mut a = tar::Archive::new(bytes);
        if let Ok(entries) = a.entries() {
            for e in entries.flatten() {
                let mut e = e;
                out.push(
                    e.path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                );
                let mut data = Vec::new();
                let _ = e.read_to_end(&mut data);
                readings(&data, out);
            }
        }
    }
    out.push(String::from_utf8_lossy(bytes).into_owned());
    for le in [true, false] {
        for skip in [0, 1] {
            let units: Vec<u16> = bytes[skip.min(bytes.len())..]
                .chunks_exact(2)
                .map(|c| {
                    if le {
                        u16::from_le_bytes([c[0], c[1]])
                    } else {
                        u16::from_be_bytes([c[0], c[1]])
                    }
                })
                .collect();
            out.push(String::from_utf16_lossy(&units));
        }
    }
}

/// The seeds found anywhere in a bundle: (member, seed).
fn leaks(bundle: &Path) -> Vec<(String, String)> {
    let re = seeds();
    let mut found = Vec::new();
    for (name, bytes) in tar_contents(bundle) {
        if let Some(m) = re.find(&name) {
            found.push((name.clone(), m.as_str().to_string()));
        }
        let mut texts = Vec::new();
        readings(&bytes, &mut texts);
        for t in texts {
            for m in re.find_iter(&t) {
                found.push((name.clone(), m.as_str().to_string()));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The KV sample with the corpus in every encoding and container the bundle meets.
fn hostile(tmp: &Path) -> PathBuf {
    let input = tmp.join("run");
    copy_dir(&root().join("samples/kv-cache-published"), &input);
    let corpus = fixture("corpus.txt");
    let logs = input.join("logs");
    let w = |name: &str, bytes: &[u8]| fs::write(logs.join(name), bytes).expect("write");
    w("corpus-utf8.log", corpus.as_bytes());
    let latin1: Vec<u8> = format!("caf\u{e9} {corpus}")
        .chars()
        .map(|c| c as u32 as u8)
        .collect();
    w("corpus-latin1.log", &latin1);
    w("corpus-utf16le.log", &utf16(&corpus, true, true));
    w("corpus-utf16be.log", &utf16(&corpus, false, false));
    let mut mixed = b"INFO start, caf\xc3\xa9\n".to_vec();
    mixed.extend(utf16(&corpus, true, true));
    mixed.extend(b"INFO end\n");
    w("corpus-mixed.log", &mixed);
    let mut mixed = b"INFO start\n".to_vec();
    mixed.extend(utf16(&corpus, true, false));
    w("corpus-mixed-nobom.log", &mixed);
    w("corpus-nul.log", corpus.replace('\n', "\0").as_bytes());
    w("corpus.log.gz", &gzip(corpus.as_bytes()));
    let tar = tar_of(&[
        ("corpus.txt", corpus.clone().into_bytes()),
        ("sub/corpus16.log", utf16(&corpus, true, true)),
        ("sub/inner.log.gz", gzip(corpus.as_bytes())),
        (
            "sub/nested.tar",
            tar_of(&[("deep/corpus.txt", corpus.clone().into_bytes())]),
        ),
    ]);
    w("archive.tar.gz", &gzip(&tar));
    w("archive.tar", &tar);
    w(
        "archive.zip",
        b"PK\x03\x04 a zip archive that cannot be read here",
    );
    w(
        "environ",
        b"PATH=/usr/bin\0HF_TOKEN=hf_LEAK40abcdefghijklmnopqrstuvwxyz01\0HOME=/root\0LANG=C.UTF-8\0",
    );
    w("nonsecrets.log", fixture("nonsecrets.txt").as_bytes());
    input
}

#[test]
fn the_corpus_leaves_in_no_encoding_container_name_or_report() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = hostile(tmp.path());
    let out = tmp.path().join("support.tar.gz");
    let mut args = vec![
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
    ];
    let typst = pdf_tools();
    let typst_arg;
    match &typst {
        Some(t) => {
            typst_arg = t.display().to_string();
            args.extend(["--typst", &typst_arg]);
        }
        None => args.push("--no-pdf"),
    }
    let r = run(&args);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let found = leaks(&out);
    assert!(found.is_empty(), "left the machine: {found:?}");
    let files = tar_contents(&out);
    for name in [
        "input/logs/corpus-utf8.log",
        "input/logs/corpus-latin1.log",
        "input/logs/corpus-utf16le.log",
        "input/logs/corpus-utf16be.log",
        "input/logs/corpus-mixed.log",
        "input/logs/corpus-mixed-nobom.log",
        "input/logs/corpus-nul.log",
        "input/logs/corpus.log.gz",
        "input/logs/archive.tar.gz",
        "input/logs/archive.tar",
        "input/logs/environ",
    ] {
        assert!(
            files.contains_key(name),
            "{name} goes in, redacted: {:?}",
            files.keys()
        );
    }
    if typst.is_some() {
        assert!(files.contains_key("report/report.typ") && files.contains_key("report/report.pdf"));
    }
    // The non-secrets leave as they are, and the variables after a secret stay.
    assert_eq!(
        files["input/logs/nonsecrets.log"],
        fixture("nonsecrets.txt").into_bytes(),
        "over-redaction"
    );
    let environ = String::from_utf8_lossy(&files["input/logs/environ"]).into_owned();
    assert!(
        environ.ends_with("\0HOME=/root\0LANG=C.UTF-8\0"),
        "{environ:?}"
    );
    // The archives inside still unpack, the zip is left out with the reason.
    let mut a = tar::Archive::new(flate2::read::GzDecoder::new(
        &files["input/logs/archive.tar.gz"][..],
    ));
    let mut names = Vec::new();
    let mut nested = Vec::new();
    for e in a.entries().expect("still a tar.gz") {
        let mut e = e.expect("entry");
        let name = e.path().expect("path").display().to_string();
        if name == "sub/nested.tar" {
            e.read_to_end(&mut nested).expect("read");
        }
        names.push(name);
    }
    assert_eq!(
        names,
        [
            "corpus.txt",
            "sub/corpus16.log",
            "sub/inner.log.gz",
            "sub/nested.tar"
        ]
    );
    // A tar inside the tar.gz is redacted member by member: still a tar, its member
    // there and redacted (not the tar's bytes read as text and its member lost).
    let mut inner = tar::Archive::new(&nested[..]);
    let members: Vec<(String, String)> = inner
        .entries()
        .expect("the nested tar is still a tar")
        .map(|e| {
            let mut e = e.expect("entry");
            let mut t = String::new();
            e.read_to_string(&mut t).expect("text");
            (e.path().expect("path").display().to_string(), t)
        })
        .collect();
    assert_eq!(members.len(), 1, "{members:?}");
    assert_eq!(members[0].0, "deep/corpus.txt");
    assert!(members[0].1.contains("[REDACTED]") && !seeds().is_match(&members[0].1));
    let manifest = String::from_utf8_lossy(&files["manifest.json"]).into_owned();
    assert!(
        manifest.contains("logs/archive.zip") && manifest.contains("zip"),
        "{manifest}"
    );
}

/// The numbers and statuses of an analysis: what a bundle must not change.
fn judged(v: &serde_json::Value) -> serde_json::Value {
    let suites: Vec<serde_json::Value> = v["suites"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let verdicts: Vec<serde_json::Value> = s["verdicts"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|x| {
                    serde_json::json!([
                        x["id"], x["status"], x["measured"], x["measured_value"],
                        x["threshold_value"], x["published_value"]
                    ])
                })
                .collect();
            serde_json::json!({"name": s["name"], "verdicts": verdicts, "tables": s["tables"], "preformatted": s["preformatted"]})
        })
        .collect();
    serde_json::json!({"summary": v["summary"], "suites": suites})
}

/// Plants secrets where the suites do not judge: fio's options, logs, compose
/// environments, manifests.
fn plant(dir: &Path) {
    let mut n = 0;
    let mut next = || {
        n += 1;
        format!("PLANT{n:02}x9")
    };
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("list").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = fs::read_to_string(&p).unwrap_or_default();
            if name.ends_with(".json") && text.contains("\"fio version\"") {
                // Only whole documents (some samples have fio's notes before the JSON).
                let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text) else {
                    continue;
                };
                if let Some(g) = v.get_mut("global options").and_then(|g| g.as_object_mut()) {
                    g.insert("http_pass".into(), next().into());
                    g.insert("http_s3_key".into(), next().into());
                }
                fs::write(&p, serde_json::to_string_pretty(&v).expect("json")).expect("w");
            } else if name.ends_with(".log") {
                // After the first line: the last lines of a log say how a client ended.
                let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
                let t = format!(
                    "{first}\nexport HF_TOKEN={}\ncurl -u admin:{} https://x\n{rest}",
                    next(),
                    next()
                );
                fs::write(&p, t).expect("w");
            } else if name == "compose.yaml" {
                let t = text.replacen(
                    "environment:",
                    &format!("environment:\n      - HUGGING_FACE_HUB_TOKEN={}", next()),
                    1,
                );
                fs::write(&p, t).expect("w");
            }
        }
    }
    assert!(n > 0, "secrets planted in {}", dir.display());
}

#[test]
fn a_bundle_s_analysis_equals_its_folder_s_on_every_sample_with_secrets_planted() {
    let tmp = tempfile::tempdir().expect("tmp");
    for sample in fs::read_dir(root().join("samples"))
        .expect("samples")
        .flatten()
    {
        if !sample.path().is_dir() {
            continue;
        }
        let name = sample.file_name().to_string_lossy().into_owned();
        let dir = tmp.path().join(&name);
        copy_dir(&sample.path(), &dir);
        plant(&dir);
        let (folder_code, folder) = analyze_json(&dir, &[]);
        let out = tmp.path().join(format!("{name}.tar.gz"));
        let r = run(&[
            "bundle",
            dir.to_str().unwrap_or(""),
            "-o",
            out.to_str().unwrap_or(""),
            "--no-pdf",
        ]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        assert!(leaks(&out).is_empty(), "{name}: {:?}", leaks(&out));
        let (bundle_code, bundle) = analyze_json(&out, &[]);
        assert_eq!(folder_code, bundle_code, "{name}: exit status");
        assert_eq!(
            judged(&folder),
            judged(&bundle),
            "{name}: the bundle's analysis"
        );
    }
}
