//! End to end: support bundles, redaction, reproducibility, bundles read back as input,
//! and hostile archives refused.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::common::*;

fn bundle(input: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

const SECRETS: [&str; 6] = [
    "hf_Zx9QmKb3LrTn7WvYp2AsDfGh",
    "sk-live-7f3b9c2d1e0a4b8c9d7e6f5a",
    "s3cr3t-Passw0rd",
    "eyJhbGciOiJIUzI1NiJ9.payload.sig",
    "r3g1stry-pass",
    "gw-api-key-0042",
];

fn seeded(tmp: &Path) -> std::path::PathBuf {
    let input = tmp.join("run");
    copy_dir(&root().join("samples/kv-cache-published"), &input);
    // A run that saved neither `nvme list-subsys` nor ib_read_bw: the checklist says so.
    for f in ["nvme-list-subsys.txt", "ib_read_bw.txt"] {
        fs::remove_file(input.join("system").join(f)).expect("the sample has it");
    }
    fs::create_dir_all(input.join("compose/adp")).expect("mkdir");
    fs::write(
        input.join("compose/adp/compose.yaml"),
        format!(
            "services:\n  vllm:\n    environment:\n      HF_TOKEN: {}\n      OPENAI_API_KEY: \"{}\"\n      DB_PASSWORD: {}\n    image: https://robot:{}@registry.example/vllm\n",
            SECRETS[0], SECRETS[1], SECRETS[2], SECRETS[4]
        ),
    )
    .expect("w");
    fs::create_dir_all(input.join("compose/gpu-only")).expect("mkdir");
    fs::write(
        input.join("compose/gpu-only/compose.yaml"),
        "services:\n  vllm:\n    image: vllm\n",
    )
    .expect("w");
    fs::create_dir_all(input.join("system")).expect("mkdir");
    fs::write(
        input.join("system/env.txt"),
        format!(
            "PATH=/usr/bin\nGATEWAY_API_KEY={}\nHF_TOKEN={}\n",
            SECRETS[5], SECRETS[0]
        ),
    )
    .expect("w");
    let log = input.join("logs/adp-gateway.log");
    let mut text = fs::read_to_string(&log).expect("r");
    text.push_str(&format!(
        "DEBUG request headers: Authorization: Bearer {}\n",
        SECRETS[3]
    ));
    fs::write(&log, text).expect("w");
    input
}

#[test]
fn no_secret_survives_in_any_file_of_the_bundle() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = seeded(tmp.path());
    let out = tmp.path().join("support.tar.gz");
    let r = bundle(&input, &out, &["--no-pdf"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tar_contents(&out);
    assert!(files.contains_key("input/compose/adp/compose.yaml"));
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        for s in SECRETS {
            assert!(!text.contains(s), "secret `{s}` in {path}");
        }
    }
    let compose = String::from_utf8_lossy(&files["input/compose/adp/compose.yaml"]).into_owned();
    assert!(compose.contains("HF_TOKEN: [REDACTED]"), "{compose}");
    // Numbers the suites read are left alone: the verdicts are those of the folder.
    let (_, folder) = analyze_json(&input, &[]);
    let (_, packed) = analyze_json(&out, &[]);
    assert_eq!(statuses(&folder), statuses(&packed));
    // --no-redact keeps them, and says so.
    let raw = tmp.path().join("raw.tar.gz");
    let r = bundle(&input, &raw, &["--no-pdf", "--no-redact"]);
    assert!(r.stdout.contains("redaction OFF"));
    let files = tar_contents(&raw);
    assert!(String::from_utf8_lossy(&files["input/system/env.txt"]).contains(SECRETS[5]));
}

#[test]
fn manifest_checksums_every_file_and_checklist_names_what_is_missing() {
    use sha2::{Digest, Sha256};
    let tmp = tempfile::tempdir().expect("tmp");
    let input = seeded(tmp.path());
    let out = tmp.path().join("support.tar.gz");
    let r = bundle(&input, &out, &["--no-pdf"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("MISSING | AI Key-Value Caching | nvme list-subsys"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("present | AI Key-Value Caching | both compose files"),
        "{}",
        r.stdout
    );
    let files = tar_contents(&out);
    let manifest: serde_json::Value =
        serde_json::from_slice(&files["manifest.json"]).expect("manifest");
    let listed = manifest["files"].as_array().expect("files");
    assert_eq!(
        listed.len(),
        files.len() - 1,
        "every file but the manifest itself"
    );
    for f in listed {
        let path = f["path"].as_str().expect("path");
        let bytes = &files[path];
        assert_eq!(f["size"].as_u64(), Some(bytes.len() as u64), "{path}");
        let sum: String = Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(f["sha256"].as_str(), Some(sum.as_str()), "{path}");
    }
    assert!(files.contains_key("report/report.md"));
    assert!(files.contains_key("CHECKLIST.md"));
    let checklist = String::from_utf8_lossy(&files["CHECKLIST.md"]).into_owned();
    assert!(checklist.contains("MISSING | AI Key-Value Caching | ib_read_bw output"));
}

#[test]
fn the_same_folder_gives_the_same_bytes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = seeded(tmp.path());
    let pdf: Vec<String> = match pdf_tools() {
        Some(t) => vec!["--typst".into(), t.display().to_string()],
        None => vec!["--no-pdf".into()],
    };
    let pdf: Vec<&str> = pdf.iter().map(String::as_str).collect();
    let (a, b) = (tmp.path().join("a.tar.gz"), tmp.path().join("b.tar.gz"));
    assert_eq!(bundle(&input, &a, &pdf).code, 0);
    assert_eq!(bundle(&input, &b, &pdf).code, 0);
    assert_eq!(fs::read(&a).expect("a"), fs::read(&b).expect("b"));
    let names: Vec<String> = tar_contents(&a).into_keys().collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "entries are sorted");
}

#[test]
fn bundle_then_analyze_gives_the_folders_verdicts() {
    for sample in [
        "samples/storage-published",
        "samples/kv-cache-failing",
        "samples/storage-loopback",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("s.tar.gz");
        assert_eq!(bundle(&root().join(sample), &out, &["--no-pdf"]).code, 0);
        let (c1, folder) = analyze_json(&root().join(sample), &[]);
        let (c2, packed) = analyze_json(&out, &[]);
        assert_eq!(statuses(&folder), statuses(&packed), "{sample}");
        assert_eq!(c1, c2);
        let r = run(&[
            "report",
            out.to_str().unwrap_or(""),
            "-o",
            tmp.path().join("rep").to_str().unwrap_or(""),
            "--no-pdf",
        ]);
        assert_eq!(r.code, c1, "report reads the bundle too");
    }
}

#[test]
fn pseudonyms_are_consistent_and_their_mapping_stays_outside() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-loopback"), &input);
    fs::write(
        input.join("notes.txt"),
        "GPU server gpu-node7 at 10.20.30.40, storage at 10.20.30.41\nagain 10.20.30.40\n",
    )
    .expect("w");
    let out = tmp.path().join("p.tar.gz");
    let r = bundle(
        &input,
        &out,
        &[
            "--no-pdf",
            "--pseudonymize",
            "--host",
            "gpu-node7",
            "--include",
            "notes.txt",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tar_contents(&out);
    let notes = String::from_utf8_lossy(&files["input/notes.txt"]).into_owned();
    assert_eq!(
        notes,
        "GPU server host-1 at ip-1, storage at ip-2\nagain ip-1\n"
    );
    for (path, bytes) in &files {
        let t = String::from_utf8_lossy(bytes);
        assert!(
            !t.contains("10.20.30.40") && !t.contains("gpu-node7"),
            "{path}"
        );
        assert!(!path.contains("pseudonyms"), "the mapping is never inside");
    }
    let mapping: BTreeMap<String, String> = serde_json::from_slice(
        &fs::read(tmp.path().join("p.tar.gz.pseudonyms.json")).expect("beside"),
    )
    .expect("json");
    assert_eq!(mapping["10.20.30.40"], "ip-1");
    assert_eq!(mapping["gpu-node7"], "host-1");
}

/// A tar.gz with one hand-made entry: `name` (written raw, unchecked), of `kind`.
fn hostile(path: &Path, name: &str, kind: tar::EntryType, link: Option<&str>) {
    let f = fs::File::create(path).expect("create");
    let mut b = tar::Builder::new(flate2::write::GzEncoder::new(
        f,
        flate2::Compression::default(),
    ));
    let mut h = tar::Header::new_old();
    let body = b"owned\n";
    {
        let old = h.as_old_mut();
        old.name[..name.len()].copy_from_slice(name.as_bytes());
        if let Some(l) = link {
            old.linkname[..l.len()].copy_from_slice(l.as_bytes());
        }
    }
    h.set_entry_type(kind);
    h.set_size(if kind == tar::EntryType::Regular {
        body.len() as u64
    } else {
        0
    });
    h.set_mode(0o644);
    h.set_cksum();
    let data: &[u8] = if kind == tar::EntryType::Regular {
        body
    } else {
        &[]
    };
    b.append(&h, data).expect("append");
    b.into_inner().expect("tar").finish().expect("gz");
}

#[test]
fn hostile_archives_are_refused_and_write_nothing_outside() {
    let tmp = tempfile::tempdir().expect("tmp");
    let victim_dir = tmp.path().join("victim");
    fs::create_dir_all(&victim_dir).expect("mkdir");
    let abs = victim_dir.join("abs-owned.txt");
    let cases = [
        (
            "traversal",
            "../../../../../../../../tmp/reprobench-owned.txt".to_string(),
            tar::EntryType::Regular,
            None,
            "leave the bundle",
        ),
        (
            "absolute",
            abs.display().to_string(),
            tar::EntryType::Regular,
            None,
            "absolute path",
        ),
        (
            "symlink",
            "escape".to_string(),
            tar::EntryType::Symlink,
            Some("../../../../etc"),
            "outside the bundle",
        ),
        (
            "abs-symlink",
            "escape".to_string(),
            tar::EntryType::Symlink,
            Some("/etc"),
            "outside the bundle",
        ),
        (
            "hardlink",
            "hard".to_string(),
            tar::EntryType::Link,
            Some("/etc/passwd"),
            "hard link",
        ),
        (
            "device",
            "dev".to_string(),
            tar::EntryType::Char,
            None,
            "special file",
        ),
    ];
    for (label, name, kind, link, why) in cases {
        let tgz = tmp.path().join(format!("{label}.tar.gz"));
        hostile(&tgz, &name, kind, link);
        let r = run(&["analyze", tgz.to_str().unwrap_or("")]);
        assert_eq!(r.code, 2, "{label}: {}", r.stderr);
        assert!(r.stderr.contains("refused bundle"), "{label}: {}", r.stderr);
        assert!(r.stderr.contains(why), "{label}: `{why}` in {}", r.stderr);
    }
    assert!(!abs.exists(), "nothing written at the absolute path");
    assert!(
        !Path::new("/tmp/reprobench-owned.txt").exists(),
        "nothing written by traversal"
    );
}

#[test]
fn a_corrupt_bundle_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("x.tar.gz");
    fs::write(&p, b"not gzip at all").expect("w");
    let r = run(&["analyze", p.to_str().unwrap_or("")]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("x.tar.gz"), "{}", r.stderr);
}
