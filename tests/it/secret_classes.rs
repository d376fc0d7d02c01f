//! The secrets corpus by class (`tests/fixtures/secrets/by-class/`): a name and its value
//! in different places (Kubernetes env items, JSON name/value records, Triton parameters,
//! XML attributes and elements, CSV columns, PowerShell `Format-List`), positional tool
//! grammars (ipmitool, sedutil, iscsiadm, PowerShell, cryptsetup fed by echo, redis
//! AUTH, expect's `send:`), file formats (`.pgpass`, `.passwd-s3fs`, Telegraf, sssd),
//! values with no context (a bare Ceph key, a password typed at the prompt, base64 of a
//! credential file, a token split by a mail client's wrap) and a secret in a file name.
//! Every seed (`LEAKnn`) must go, also where it hides inside base64; every look-alike
//! (`look-alikes/`: public keys, fingerprints, digests, object keys, placeholders, paths
//! to secret files, an encrypted vault, a notebook's image) must stay byte for byte.

use std::fs;
use std::path::PathBuf;

use base64::Engine;

use crate::common::*;

fn corpus(class: &str) -> Vec<(String, PathBuf)> {
    let dir = root().join("tests/fixtures/secrets").join(class);
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(&dir)
        .expect("corpus folder")
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    out.sort();
    out
}

/// The text and what every base64 run in it (also folded over lines) decodes to.
fn with_decoded(text: &str) -> String {
    let mut all = text.to_string();
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=');
    let joined: String = text
        .lines()
        .map(|l| {
            let t = l.trim();
            if !t.is_empty() && t.chars().all(is_b64) {
                t.to_string()
            } else {
                format!("\n{t}\n")
            }
        })
        .collect();
    for run in joined.split(|c: char| !is_b64(c)) {
        if run.len() >= 24 {
            let run = run.trim_end_matches('=');
            if let Ok(b) = base64::engine::general_purpose::STANDARD_NO_PAD.decode(run) {
                all.push('\n');
                all.push_str(&String::from_utf8_lossy(&b));
            }
        }
    }
    all
}

fn seeds_in(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"LEAK\d\d").expect("regex");
    let mut v: Vec<String> = re
        .find_iter(&with_decoded(text))
        .map(|m| m.as_str().to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn every_class_of_secret_goes_and_every_look_alike_stays() {
    use reprobench::bundle::redact::{redact_file, redact_name};
    let mut failures = Vec::new();
    let mut planted = 0;
    for (name, path) in corpus("by-class") {
        let text = fs::read_to_string(&path).expect("read");
        planted += seeds_in(&text).len() + seeds_in(&name).len();
        let (out, _) = redact_file(&name, &text);
        let left = seeds_in(&out);
        if !left.is_empty() {
            failures.push(format!("{name}: {left:?} left in\n{out}"));
        }
        let named = redact_name(&name);
        if !seeds_in(&named).is_empty() {
            failures.push(format!("the name {name} left as {named}"));
        }
    }
    assert!(planted >= 40, "the corpus plants {planted} seeds");
    for (name, path) in corpus("look-alikes") {
        let text = fs::read_to_string(&path).expect("read");
        let (out, n) = redact_file(&name, &text);
        if out != text {
            let changed: Vec<String> = text
                .lines()
                .zip(out.lines())
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("  {a}\n  -> {b}"))
                .collect();
            failures.push(format!(
                "{name}: {n} false redactions\n{}",
                changed.join("\n")
            ));
        }
        if redact_name(&name) != name {
            failures.push(format!("the name {name} was changed"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Both classes in one folder, bundled: no seed in any member, name, the manifest or the
/// report; every look-alike goes in unchanged.
#[test]
fn a_bundle_of_the_corpus_by_class_leaks_nothing_and_keeps_the_look_alikes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/kv-cache-published"), &input);
    let notes = input.join("notes");
    copy_dir(
        &root().join("tests/fixtures/secrets/by-class"),
        &notes.join("by-class"),
    );
    copy_dir(
        &root().join("tests/fixtures/secrets/look-alikes"),
        &notes.join("kept"),
    );
    let out = tmp.path().join("support.tar.gz");
    let r = bundle(&input, &out, &["--no-pdf", "--include", "notes/**"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        !seeds_in(&r.stdout)
            .iter()
            .chain(&seeds_in(&r.stderr))
            .any(|_| true),
        "the terminal shows a secret:\n{}{}",
        r.stdout,
        r.stderr
    );
    let files = tar_contents(&out);
    let mut leaked = Vec::new();
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        for s in seeds_in(name).into_iter().chain(seeds_in(&text)) {
            leaked.push(format!("{name}: {s}"));
        }
    }
    assert!(leaked.is_empty(), "left the machine: {leaked:#?}");
    for (name, path) in corpus("look-alikes") {
        let member = format!("input/notes/kept/{name}");
        let kept = files.get(&member).map(Vec::as_slice);
        assert_eq!(
            kept,
            Some(fs::read(&path).expect("read").as_slice()),
            "{member} goes in unchanged"
        );
    }
}
