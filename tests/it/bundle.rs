//! End to end: support bundles, redaction, reproducibility, bundles read back as input,
//! and hostile archives refused.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::common::*;

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
    // The independent scanner every test bundle goes through sees what this one kept.
    if let Some((scanner, kept)) = independent_findings(&input, &raw) {
        assert!(
            kept.iter().any(|k| k["member"] == "input/system/env.txt"),
            "{scanner} saw nothing kept in a bundle made with --no-redact: {kept:?}"
        );
    }
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

/// File names as downloads and saved pages leave them (wget keeps a URL's query in the
/// name; a browser's "save as" turns its slashes into `_`), without credentials.
const CLEAN_URL_NAMES: [&str; 5] = [
    "akv-gateway-6.1.1.run?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261129T091200Z",
    "adp-fw-2.4.bin?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Date=20261129T091200Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host",
    "console.aws.amazon.com_s3_buckets_bench-results?region=us-east-1&tab=objects.html",
    "git-remote-https___github.com_acme_reprobench-results.git.txt",
    "results.tar?sv=2021-08-06&se=2026-12-01&sr=b&sp=r",
];

/// The same kinds of names with credentials in them, and the secret each holds.
const SECRET_URL_NAMES: [(&str, &str); 5] = [
    (
        "gw-6.1.2.run?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7SECRET1%2F20261129%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261129T091200Z&X-Amz-SignedHeaders=host&X-Amz-Signature=5e1f4c2d9a8b7c6d5e4f3a2b1c0d9e8f",
        "5e1f4c2d9a8b7c6d5e4f3a2b1c0d9e8f",
    ),
    (
        "results-2.tar?sv=2021-08-06&se=2026-12-01&sr=b&sp=r&sig=Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0L%2BmN%3D",
        "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0L",
    ),
    (
        "adp-fw-2.5.bin?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=bench%40proj.iam.gserviceaccount.com%2F20261129&X-Goog-Signature=8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e",
        "8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
    ),
    (
        "git-remote-https___oauth2:glpat-Q1w2E3r4T5y6U7i8O9p0@gitlab.com_acme_results.git.txt",
        "Q1w2E3r4T5y6U7i8O9p0",
    ),
    (
        "console.aws.amazon.com_federation?Action=login&SigninToken=Fz8vQ2pL9sK3mN7xR4tW1yB6cE0hJ5aD&Destination=s3.html",
        "Fz8vQ2pL9sK3mN7xR4tW1yB6cE0hJ5aD",
    ),
];

/// Every name and byte of a bundle, and of a dry run's output: no secret in any.
fn assert_no_secret(files: &BTreeMap<String, Vec<u8>>, printed: &str, secrets: &[&str]) {
    for s in secrets {
        assert!(!printed.contains(s), "`{s}` printed:\n{printed}");
        for (name, bytes) in files {
            assert!(!name.contains(s), "`{s}` in the entry name `{name}`");
            assert!(
                !String::from_utf8_lossy(bytes).contains(s),
                "`{s}` in `{name}`"
            );
        }
    }
}

#[test]
fn folders_whose_file_names_carry_urls_are_bundled_without_their_credentials() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    fs::create_dir_all(input.join("downloads")).expect("mkdir");
    for name in CLEAN_URL_NAMES
        .iter()
        .chain(SECRET_URL_NAMES.iter().map(|(n, _)| n))
    {
        fs::write(input.join("downloads").join(name), "a download\n").expect("w");
    }
    let mut secrets: Vec<&str> = SECRET_URL_NAMES.iter().map(|(_, s)| *s).collect();
    // The presigned URL's credential, beside its signature.
    secrets.push("AKIAIOSFODNN7SECRET1");
    // Left out (no suite reads them), and then asked for with --include: either way the
    // names leave in the manifest, and the second way also as entry names.
    for extra in [&[][..], &["--include", "downloads/*"][..]] {
        let out = tmp.path().join(format!("b{}.tar.gz", extra.len()));
        let mut args = vec!["--no-pdf"];
        args.extend_from_slice(extra);
        let r = bundle(&input, &out, &args);
        assert_eq!(r.code, 0, "{extra:?}: {}", r.stderr);
        let files = tar_contents(&out);
        assert_no_secret(&files, &format!("{}{}", r.stdout, r.stderr), &secrets);
        let manifest = String::from_utf8_lossy(&files["manifest.json"]).into_owned();
        for clean in CLEAN_URL_NAMES {
            assert!(
                manifest.contains(&format!("downloads/{clean}")),
                "{extra:?}: the name without credentials leaves as it is: {clean}"
            );
        }
        let mut dry = args.clone();
        dry.push("--dry-run");
        let r = bundle(&input, &out, &dry);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_no_secret(
            &BTreeMap::new(),
            &format!("{}{}", r.stdout, r.stderr),
            &secrets,
        );
    }
}

#[test]
fn a_file_let_out_by_exclude_is_listed_and_its_name_redacted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = seeded(tmp.path());
    let out = tmp.path().join("b.tar.gz");
    let r = bundle(
        &input,
        &out,
        &[
            "--no-pdf",
            "--exclude",
            "compose/adp/*",
            "--exclude",
            "system/env.txt",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tar_contents(&out);
    assert!(!files.contains_key("input/compose/adp/compose.yaml"));
    assert!(!files.contains_key("input/system/env.txt"));
    let manifest = String::from_utf8_lossy(&files["manifest.json"]).into_owned();
    assert!(
        manifest.contains("left out with --exclude compose/adp/*"),
        "{manifest}"
    );
    let r = bundle(&input, &out, &["--no-pdf", "--exclude", "[unclosed"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--exclude `[unclosed` is not a glob"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_refused_file_names_the_flags_that_go_on_and_allow_unredacted_takes_paths_as_typed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    fs::create_dir_all(input.join("notes")).expect("mkdir");
    // A random token on a line that names a secret, too far after the name for the
    // redactor, which the second check still sees: redacted by the check, not refused.
    let token = "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cQw";
    let line = format!("password hint: it is in the team's vault, not in this file; the line goes on about other things entirely, and then {token}\n");
    fs::write(input.join("notes/n.txt"), &line).expect("w");
    let out = tmp.path().join("b.tar.gz");
    let base = ["--no-pdf", "--include", "notes/*"];
    let r = bundle(&input, &out, &base);
    assert_eq!(r.code, 0, "redacted, not refused: {}", r.stderr);
    let kept = String::from_utf8_lossy(&tar_contents(&out)["input/notes/n.txt"]).into_owned();
    assert!(
        !kept.contains(token) && kept.contains("password hint: it is in the team's vault"),
        "{kept}"
    );
    // The same token split by an escape that is not a terminal's control sequence (a
    // control byte inside it): the redactor reads the text with it, the check reads past
    // it and sees the token whole, which stands nowhere whole in the file, so it cannot be
    // redacted in place: refused. (Split by a real colour sequence, both read it whole
    // and it is redacted: see the redactor's tests.)
    let (a, b) = token.split_at(13);
    fs::write(
        input.join("notes/n.txt"),
        line.replace(token, &format!("{a}\x1b[\x01m{b}")),
    )
    .expect("w");
    fs::remove_file(&out).expect("rm");
    let r = bundle(&input, &out, &base);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("to go on: --exclude 'notes/n.txt', or --allow-unredacted 'notes/n.txt'"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains(token),
        "the value is masked: {}",
        r.stderr
    );
    assert!(!out.exists(), "nothing written");
    // The path as typed: from the results folder, or absolute (from the current folder).
    let abs = input.join("notes/n.txt");
    for allow in ["notes/n.txt", abs.to_str().unwrap_or("")] {
        let mut args = base.to_vec();
        args.extend(["--allow-unredacted", allow]);
        let r = bundle(&input, &out, &args);
        assert_eq!(r.code, 0, "{allow}: {}", r.stderr);
        if allow != "notes/n.txt" {
            assert!(
                r.stderr.contains("is `notes/n.txt` of the results folder"),
                "says which file it matched: {}",
                r.stderr
            );
        }
    }
    let mut args = base.to_vec();
    args.extend(["--allow-unredacted", "notes/missing.txt"]);
    let r = bundle(&input, &out, &args);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("names no file of"), "{}", r.stderr);
    let mut args = base.to_vec();
    args.extend(["--exclude", "notes/*"]);
    let r = bundle(&input, &out, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// Two files whose names redact alike both leave, the second numbered, and the names'
/// redactions are counted. Before, `downloads/[REDACTED].txt` was written twice and one
/// file was lost without a word, with "0 secrets redacted".
#[test]
fn two_names_redacted_alike_stay_two_files_and_are_counted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    let dir = input.join("downloads");
    fs::create_dir_all(&dir).expect("mkdir");
    let names = [
        "ib_read_bw-run-Zx8Kq2Lm9Np4Rs7Tv1Wy3.txt",
        "nvme-run-Qw7Er4Ty1Ui8Op5As2Df9.txt",
    ];
    for (i, name) in names.iter().enumerate() {
        fs::write(dir.join(name), format!("download number {i}\n")).expect("w");
    }
    let out = tmp.path().join("b.tar.gz");
    let r = bundle(&input, &out, &["--no-pdf", "--include", "downloads/*"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tar_contents(&out);
    for i in 0..names.len() {
        let wanted = format!("download number {i}\n");
        assert!(
            files.values().any(|b| *b == wanted.as_bytes()),
            "file {i} is missing: {:?}",
            files.keys().collect::<Vec<_>>()
        );
    }
    for name in names {
        assert!(
            !files.keys().any(|k| k.contains(&name[name.len() - 14..])),
            "{name}"
        );
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&files["manifest.json"]).expect("manifest");
    assert!(
        manifest["redactions"].as_u64().unwrap_or(0) >= 2,
        "{}",
        manifest["redactions"]
    );
}

/// A file whose name holds a password, and whose run another file copies: the other
/// file's reason for going in quotes the name, and leaves redacted like a name. Before,
/// the manifest quoted it whole and the bundle was refused over the tool's own file.
#[test]
fn a_reason_that_quotes_a_secret_file_name_leaves_redacted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    let adp = input.join("results/adp");
    fs::copy(
        adp.join("read-1m-j8-d4.json"),
        adp.join("read-1m-j8-d4-password=hunter2.json"),
    )
    .expect("copy");
    let out = tmp.path().join("b.tar.gz");
    let r = bundle(&input, &out, &["--no-pdf"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tar_contents(&out);
    assert_no_secret(&files, &format!("{}{}", r.stdout, r.stderr), &["hunter2"]);
}

/// An archive in the folder whose member leaves its own folder (`..`, or an absolute
/// path) is left out with the reason, as an archive holding a link is; the bundle is
/// written. Before, the whole bundle failed with "cannot pack `../../escape.txt` again
/// (paths in archives must not have `..` when setting path for )".
#[test]
fn an_archive_in_the_folder_with_a_path_outside_itself_is_left_out_with_the_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    fs::create_dir_all(input.join("logs")).expect("mkdir");
    for (file, entry) in [
        ("up.tar.gz", "../../escape.txt"),
        ("abs.tar.gz", "/etc/escape.txt"),
    ] {
        // A POSIX (ustar) header, as GNU and Python tar write, with the name raw.
        let f = fs::File::create(input.join("logs").join(file)).expect("create");
        let mut b = tar::Builder::new(flate2::write::GzEncoder::new(
            f,
            flate2::Compression::default(),
        ));
        let mut h = tar::Header::new_ustar();
        if let Some(u) = h.as_ustar_mut() {
            u.name[..entry.len()].copy_from_slice(entry.as_bytes());
        }
        h.set_entry_type(tar::EntryType::Regular);
        h.set_size(6);
        h.set_mode(0o644);
        h.set_cksum();
        b.append(&h, &b"owned\n"[..]).expect("append");
        b.into_inner().expect("tar").finish().expect("gz");
    }
    let out = tmp.path().join("b.tar.gz");
    let r = bundle(&input, &out, &["--no-pdf", "--include", "logs/*"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tar_contents(&out);
    let manifest = String::from_utf8_lossy(&files["manifest.json"]).into_owned();
    for file in ["logs/up.tar.gz", "logs/abs.tar.gz"] {
        assert!(
            !files.contains_key(&format!("input/{file}")),
            "{file} went in"
        );
        assert!(manifest.contains(file), "{file} is not listed: {manifest}");
    }
    assert!(
        manifest.contains("a path outside its own folder"),
        "{manifest}"
    );
}
