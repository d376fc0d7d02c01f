//! Bundles that are safe to send and inputs that cannot hurt the machine: one secret of
//! every class in every syntax and encoding, links out of the folder, crafted archives,
//! and a regression test for every panic and runaway found by fuzzing.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::path::Path;

use crate::common::*;

/// Distinctive parts of one secret per class; none may leave the machine.
const SEEDS: &[&str] = &[
    "v1-alpha-1111",
    "v2 bravo 2222",
    "v3-charlie-3333",
    "v4-delta-4444",
    "v5-echo-5555",
    "v6 foxtrot 6666",
    "v7golf7777",
    "v8hotel8888",
    "v9-india-9999",
    "v10juliet1010",
    "v11@kilo",
    "v12lima1212",
    "v13MIKEbody1313",
    "v14NovemberNovember",
    "v15OscarOscar",
    "v16PapaPapa",
    "v17QuebecQuebec",
    "v18Romeo_Romeo",
    "v19-sierra",
    "V20TANGO20202020",
    "v21UniformUniform",
    "v22VictorVictor",
    "v23Whiskey",
    "v24Xray",
    "v25YankeeYankee",
];

fn secrets_text() -> String {
    [
        "MY_SECRET=v1-alpha-1111",
        "db_password: v2 bravo 2222",
        r#"{"apiKey": "v3-charlie-3333", "prompt_tokens": 196531, "api_key": null}"#,
        "vllm serve --auth-token v4-delta-4444 --served-model-name glm-5.3",
        "gateway --client-secret=v5-echo-5555",
        r#"command: ["--password", "v6 foxtrot 6666"]"#,
        "curl -H 'Authorization: Bearer v7golf7777' https://host.example/v1",
        r#"{"Proxy-Authorization": "Basic v8hotel8888"}"#,
        "X-Api-Key: v9-india-9999",
        "Cookie: session=v10juliet1010; theme=dark",
        "pull https://admin:v11@kilo@registry.example/x redis://:v12lima1212@cache:6379",
        "-----BEGIN RSA PRIVATE KEY-----\nv13MIKEbody1313\n-----END RSA PRIVATE KEY-----",
        "HF hf_v14NovemberNovemberNovember14141414 here",
        "key sk-proj-v15OscarOscarOscarOscar1515",
        "key sk-ant-api03-v16PapaPapaPapaPapa1616",
        "ghp_v17QuebecQuebecQuebecQuebecQuebec170 and github_pat_v18Romeo_RomeoRomeoRomeoRomeo18",
        "slack xoxb-v19-sierra-1919191919",
        "aws AKIAV20TANGO20202020",
        "aws_secret_access_key = v21UniformUniformUniformUniformUniform21",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJ2MjJ2aWN0b3IiOjF9.v22VictorVictorVictorVictor",
        "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=v23Whiskey+Whiskey/==;EndpointSuffix=x",
        "Endpoint=sb://bus/;SharedAccessKeyName=n;SharedAccessKey=v24Xray+Xray=",
        r#"{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nv25YankeeYankee\n-----END PRIVATE KEY-----\n"}"#,
        "api_key=None",
        "",
    ]
    .join("\n")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).expect("gz");
    gz.finish().expect("gz")
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

/// A copy of the KV sample with every secret class in every encoding, and links out.
fn seeded(tmp: &Path) -> std::path::PathBuf {
    let input = tmp.join("run");
    copy_dir(&root().join("samples/kv-cache-published"), &input);
    let text = secrets_text();
    fs::write(input.join("logs/secrets-utf8.log"), &text).expect("w");
    let latin1: Vec<u8> = format!("caf\u{e9} {text}")
        .chars()
        .map(|c| c as u32 as u8)
        .collect();
    fs::write(input.join("logs/secrets-latin1.log"), latin1).expect("w");
    fs::write(
        input.join("logs/secrets-utf16.log"),
        utf16(&text, true, true),
    )
    .expect("w");
    fs::write(
        input.join("logs/secrets-utf16be.log"),
        utf16(&text, false, false),
    )
    .expect("w");
    fs::write(input.join("logs/secrets-nul.log"), format!("\0\0{text}\0")).expect("w");
    fs::write(input.join("logs/secrets.log.gz"), gzip(text.as_bytes())).expect("w");
    fs::create_dir_all(input.join("compose/adp")).expect("mkdir");
    fs::write(
        input.join("compose/adp/compose.yaml"),
        "services:\n  vllm:\n    command:\n      - --api-key\n      - v4-delta-4444\n    environment:\n      HF_TOKEN: hf_v14NovemberNovemberNovember14141414\n",
    )
    .expect("w");
    // A home directory outside, reached through links inside the folder.
    let home = tmp.join("home");
    fs::create_dir_all(home.join(".ssh")).expect("mkdir");
    fs::write(
        home.join(".ssh/id_rsa"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nv13MIKEbody1313\n-----END OPENSSH PRIVATE KEY-----\n",
    )
    .expect("w");
    std::os::unix::fs::symlink(&home, input.join("logs/home")).expect("link");
    std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), input.join("system/key")).unwrap_or_else(
        |_| {
            fs::create_dir_all(input.join("system")).expect("mkdir");
            std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), input.join("system/key"))
                .expect("link");
        },
    );
    fs::write(
        input.join("notes-not-asked-for.txt"),
        "MY_SECRET=v1-alpha-1111\n",
    )
    .expect("w");
    input
}

/// Every entry of a tar.gz, decoded the way a reader would see its text.
fn decoded(tgz: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (path, mut buf) in tar_contents(tgz) {
        if buf.starts_with(&[0x1f, 0x8b]) {
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&buf[..])
                .read_to_end(&mut plain)
                .expect("gunzip");
            buf = plain;
        }
        let nul_odd = buf.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
        let nul_even = buf.iter().step_by(2).filter(|&&b| b == 0).count();
        let text = if nul_odd > buf.len() / 4 || nul_even > buf.len() / 4 {
            let le = nul_odd > nul_even;
            let units: Vec<u16> = buf
                .chunks_exact(2)
                .map(|c| {
                    if le {
                        u16::from_le_bytes([c[0], c[1]])
                    } else {
                        u16::from_be_bytes([c[0], c[1]])
                    }
                })
                .collect();
            String::from_utf16_lossy(&units)
        } else {
            buf.iter().map(|&b| b as char).collect()
        };
        out.insert(path, text);
    }
    out
}

#[test]
fn no_secret_of_any_class_leaves_in_any_encoding_and_links_out_are_left_out() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = seeded(tmp.path());
    let before = snapshot(&input);
    let out = tmp.path().join("support.tar.gz");
    let r = run(&[
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(before, snapshot(&input), "the folder is never modified");
    let files = decoded(&out);
    for name in [
        "input/logs/secrets-utf8.log",
        "input/logs/secrets-latin1.log",
        "input/logs/secrets-utf16.log",
        "input/logs/secrets-utf16be.log",
        "input/logs/secrets-nul.log",
        "input/logs/secrets.log.gz",
        "input/compose/adp/compose.yaml",
    ] {
        assert!(
            files.contains_key(name),
            "{name} goes in, redacted: {:?}",
            files.keys()
        );
    }
    for (path, text) in &files {
        for s in SEEDS {
            assert!(!text.contains(s), "`{s}` in {path}:\n{text}");
        }
    }
    let log = &files["input/logs/secrets-utf8.log"];
    assert!(
        log.contains("\"prompt_tokens\": 196531"),
        "counts stay: {log}"
    );
    assert!(log.contains("api_key=None"), "placeholders stay: {log}");
    assert!(log.contains("--served-model-name glm-5.3"), "{log}");
    assert!(files["input/logs/secrets-latin1.log"].starts_with("caf\u{e9} "));
    // Nothing from the links out, and the manifest says why.
    assert!(!files
        .keys()
        .any(|k| k.contains("id_rsa") || k.ends_with("system/key")));
    let manifest: serde_json::Value =
        serde_json::from_str(&files["manifest.json"]).expect("manifest");
    let left = manifest["left_out"].to_string();
    assert!(
        left.contains("logs/home") && left.contains("outside the results folder"),
        "{left}"
    );
    assert!(left.contains("system/key"), "{left}");
    assert!(left.contains("notes-not-asked-for.txt"), "{left}");
    let entry = manifest["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == "input/logs/secrets-utf16.log")
        .expect("listed");
    assert_eq!(entry["encoding"], "utf-16le with BOM");
    assert!(
        entry["redactions"].as_u64().is_some_and(|n| n >= 25),
        "{entry}"
    );
}

#[test]
fn a_dry_run_lists_everything_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = seeded(tmp.path());
    let out = tmp.path().join("support.tar.gz");
    let r = run(&[
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--dry-run",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!out.exists(), "nothing written");
    assert!(r.stdout.contains("would go in"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("logs/secrets-utf16.log  [utf-16le with BOM;"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("left out"));
    assert!(
        r.stdout.contains("logs/home  symbolic link to"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("not asked for"), "{}", r.stdout);
    // --include adds a file on purpose, redacted like the rest.
    let r = run(&[
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--dry-run",
        "--include",
        "notes-*.txt",
    ]);
    assert!(
        r.stdout
            .contains("notes-not-asked-for.txt  [utf-8; 1 redacted] --include notes-*.txt"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_secret_in_a_file_name_leaves_neither_in_the_name_nor_in_the_manifest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    fs::create_dir_all(input.join("system")).expect("mkdir");
    fs::create_dir_all(input.join("other")).expect("mkdir");
    let named = "system/hf_v14NovemberNovemberNovember14141414.txt";
    fs::write(input.join(named), "nothing secret inside\n").expect("w");
    // A left-out file whose name is a presigned URL.
    let presigned =
        "other/x.json?X-Amz-Credential=AKIAV20TANGO20202020&X-Amz-Signature=v33sig0123456789abcdef";
    fs::write(input.join(presigned), "{}").expect("w");
    let out = tmp.path().join("b.tar.gz");
    let r = run(&[
        "bundle",
        input.to_str().unwrap_or(""),
        "-o",
        out.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tar_contents(&out);
    assert!(
        files.contains_key("input/system/[REDACTED].txt"),
        "{:?}",
        files.keys()
    );
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        for s in [
            "v14NovemberNovember",
            "v33sig0123456789",
            "AKIAV20TANGO20202020",
        ] {
            assert!(!name.contains(s) && !text.contains(s), "`{s}` in `{name}`");
        }
    }
    let manifest = String::from_utf8_lossy(&files["manifest.json"]).into_owned();
    assert!(
        manifest.contains("X-Amz-Signature=[REDACTED]"),
        "the left-out name is listed, redacted"
    );
}

#[test]
fn pseudonyms_are_whole_tokens_and_the_same_across_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    fs::create_dir_all(input.join("system")).expect("mkdir");
    fs::write(
        input.join("system/a.txt"),
        "10.0.0.1 and 10.0.0.12 and 110.0.0.1\nroot@bench-host:~$ ls\n",
    )
    .expect("w");
    fs::write(
        input.join("system/b.txt"),
        "10.0.0.12 then 10.0.0.1 on bench-host\n",
    )
    .expect("w");
    let out = tmp.path().join("p.tar.gz");
    let r = bundle(&input, &out, &["--no-pdf", "--pseudonymize"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = decoded(&out);
    let mapping: BTreeMap<String, String> = serde_json::from_slice(
        &fs::read(tmp.path().join("p.tar.gz.pseudonyms.json")).expect("beside"),
    )
    .expect("json");
    let (one, twelve, host) = (
        &mapping["10.0.0.1"],
        &mapping["10.0.0.12"],
        &mapping["bench-host"],
    );
    assert_ne!(one, twelve);
    assert_eq!(
        files["input/system/a.txt"],
        format!(
            "{one} and {twelve} and {}\nroot@{host}:~$ ls\n",
            mapping["110.0.0.1"]
        )
    );
    assert_eq!(
        files["input/system/b.txt"],
        format!("{twelve} then {one} on {host}\n")
    );
    // Nothing to replace is said, not silently done.
    let plain = tmp.path().join("plain");
    copy_dir(
        &root().join("tests/fixtures/kv-ladder-client/results"),
        &plain.join("results"),
    );
    let r = run(&[
        "bundle",
        plain.to_str().unwrap_or(""),
        "-o",
        tmp.path().join("q.tar.gz").to_str().unwrap_or(""),
        "--no-pdf",
        "--pseudonymize",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("found no host name or IPv4 address to replace"),
        "{}",
        r.stdout
    );
}

// ---- crafted archives ----

/// A raw tar header block with a correct checksum.
fn header(name: &[u8], size_octal: &str, kind: u8) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0000000\0");
    h[116..124].copy_from_slice(b"0000000\0");
    let s = format!("{size_octal:0>11}\0");
    h[124..136].copy_from_slice(s.as_bytes());
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

fn write_gz(path: &Path, parts: &[&[u8]]) {
    let f = fs::File::create(path).expect("create");
    let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::default());
    for p in parts {
        gz.write_all(p).expect("w");
    }
    gz.finish().expect("finish");
}

/// `analyze` on a crafted archive with at most 200 MB of heap: a clean refusal.
fn refused_within_200_mb(bundle: &Path) -> String {
    let bin = bin_path();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -d 204800; exec '{}' analyze '{}'",
            bin.display(),
            bundle.display()
        ))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a refusal, not a crash: {stderr}"
    );
    assert!(stderr.contains("refused bundle"), "{stderr}");
    assert!(
        stderr.contains(&bundle.display().to_string()),
        "names the bundle: {stderr}"
    );
    stderr
}

#[test]
fn a_gnu_long_name_record_of_3_gb_is_refused_before_it_is_read() {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("longname.tar.gz");
    let h = header(b"././@LongLink", &format!("{:o}", 3_000_000_000u64), b'L');
    write_gz(&p, &[&h, &vec![b'a'; 3 << 20]]);
    assert!(fs::metadata(&p).expect("m").len() < 3 << 20);
    let e = refused_within_200_mb(&p);
    assert!(
        e.contains("GNU long-name record of 3000000000 bytes"),
        "{e}"
    );
}

#[test]
fn pax_size_records_cannot_write_past_the_caps() {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("pax.tar.gz");
    let record = "19 size=3000000000\n";
    let mut data = record.as_bytes().to_vec();
    data.resize(512, 0);
    let x = header(b"PaxHeaders/big", &format!("{:o}", record.len()), b'x');
    let f = header(b"input/big.log", "0", b'0');
    write_gz(&p, &[&x, &data, &f, &vec![b'b'; 1 << 20]]);
    let e = refused_within_200_mb(&p);
    assert!(
        e.contains("input/big.log") && e.contains("3000000000 bytes"),
        "{e}"
    );
    // A PAX record itself larger than its cap.
    let p = tmp.path().join("paxrecord.tar.gz");
    let x = header(b"PaxHeaders/huge", &format!("{:o}", 2u64 << 30), b'x');
    write_gz(&p, &[&x, &vec![b'9'; 1 << 20]]);
    let e = refused_within_200_mb(&p);
    assert!(e.contains("PAX record"), "{e}");
}

#[test]
fn a_compression_bomb_is_refused_by_its_ratio() {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("bomb.tar.gz");
    let size: u64 = 300 << 20;
    let h = header(b"input/zeros.log", &format!("{size:o}"), b'0');
    let f = fs::File::create(&p).expect("create");
    let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::best());
    gz.write_all(&h).expect("w");
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..300 {
        gz.write_all(&zeros).expect("w");
    }
    gz.finish().expect("finish");
    let e = refused_within_200_mb(&p);
    assert!(e.contains("times its size"), "{e}");
}

// ---- regressions for what fuzzing found ----

fn analyze_quietly(dir: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["analyze", dir.to_str().unwrap_or("")];
    args.extend_from_slice(extra);
    run(&args) // `run` fails the test on any panic
}

#[test]
fn spdk_inputs_that_once_panicked() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run");
    copy_dir(&root().join("samples/spdk-raid-published"), &d);
    fs::write(d.join("spdk/raid5f-8/empty-jobs.json"), r#"{"jobs":[]}"#).expect("w");
    fs::write(
        d.join("spdk/raid5f-8/bdevperf-crlf.json"),
        "[2026-11-30] Démarrage — ünïcode\r\nzweite Zeile ö\r\n{\"results\": [{\"job\": \"raid5\", \"workload\": \"randread\", \"queue_depth\": 32, \"io_size\": 8192, \"runtime\": 3.0, \"iops\": 100.0}]}\r\n",
    )
    .expect("w");
    let cfg = fs::read_to_string(d.join("spdk/raid5f-16/config.json")).expect("r");
    fs::write(
        d.join("spdk/raid5f-16/config.json"),
        cfg.replace("\"strip_size_kb\": 64", "\"strip_size_kb\": 0"),
    )
    .expect("w");
    copy_dir(&d.join("spdk/raid5f-8"), &d.join("spdk/raid5f-1"));
    let r = analyze_quietly(&d, &["--format", "json"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("fio output with no jobs"),
        "the empty run is named"
    );
}

#[test]
fn a_link_to_the_root_of_the_filesystem_is_not_walked() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &d);
    std::os::unix::fs::symlink("/", d.join("results/everything")).expect("link");
    let r = analyze_quietly(&d, &["--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("outside the results folder: not followed"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_file_with_tens_of_thousands_of_jobs_and_an_oversized_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run/results/adp");
    fs::create_dir_all(&d).expect("mkdir");
    let jobs: Vec<String> = (0..67_000)
        .map(|i| format!(r#"{{"jobname":"j{i}","groupid":0,"error":0,"read":{{"io_bytes":8192,"bw_bytes":8192,"iops":1.0,"runtime":1000,"total_ios":1}}}}"#))
        .collect();
    fs::write(
        d.join("many.json"),
        format!(
            r#"{{"fio version":"fio-3.33","global options":{{"rw":"randread"}},"jobs":[{}]}}"#,
            jobs.join(",")
        ),
    )
    .expect("w");
    let big = vec![b' '; (64 << 20) + 1];
    fs::write(d.join("huge.json"), big).expect("w");
    let r = analyze_quietly(&tmp.path().join("run"), &["--format", "json"]);
    assert!(
        r.stdout.contains("67000 jobs summed") || r.stdout.contains("67000 jobs[] entries"),
        "the big group is read"
    );
    assert!(
        r.stdout
            .contains("larger than the 64 MiB a results file may be"),
        "{}",
        &r.stdout[..r.stdout.len().min(2000)]
    );
}

#[test]
fn export_into_the_input_is_refused_and_odd_numbers_are_not_measurements() {
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &d);
    let before = snapshot(&d);
    let r = run(&[
        "analyze",
        d.to_str().unwrap_or(""),
        "--export",
        d.join("frames").to_str().unwrap_or(""),
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("inside the results folder"),
        "{}",
        r.stderr
    );
    assert_eq!(before, snapshot(&d));
    // An errno of 0.5 is no success.
    let p = d.join("results/adp/randwrite-8k-j8-d8.json");
    let t = fs::read_to_string(&p).expect("r");
    fs::write(&p, t.replacen("\"error\" : 0", "\"error\" : 0.5", 1)).expect("w");
    // Negative times and more cached than prompt tokens are not measurements either.
    fs::create_dir_all(d.join("restore")).expect("mkdir");
    fs::write(
        d.join("restore/adp.txt"),
        "time -1.0 s  {\"prompt_tokens\":10,\"cached\":0}\n",
    )
    .expect("w");
    fs::write(
        d.join("restore/gpu-only.txt"),
        "time 1.0 s  {\"prompt_tokens\":10,\"cached\":20}\n",
    )
    .expect("w");
    let (_, v) = analyze_json(&d, &[]);
    let skipped = v.to_string();
    assert!(
        skipped.contains("error: expected a whole number"),
        "{skipped}"
    );
    assert!(skipped.contains("cannot be measured"), "{skipped}");
    assert!(skipped.contains("more than prompt_tokens"), "{skipped}");
}

// ---- archives resolved, not counted ----

/// A symbolic-link header (`kind` 2) pointing at `target`.
fn link_header(name: &[u8], target: &[u8]) -> [u8; 512] {
    let mut h = header(name, "0", b'2');
    h[157..157 + target.len().min(100)].copy_from_slice(&target[..target.len().min(100)]);
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

/// A regular file's header and its data, padded to whole blocks.
fn file_entry(name: &[u8], data: &[u8]) -> Vec<u8> {
    let mut v = header(name, &format!("{:o}", data.len()), b'0').to_vec();
    v.extend_from_slice(data);
    v.resize(v.len().div_ceil(512) * 512, 0);
    v
}

fn tar_end() -> Vec<u8> {
    vec![0u8; 1024]
}

/// `analyze` of a bundle: its exit code and stderr (never a panic: `run` checks).
fn analyze_bundle(p: &Path) -> (i32, String) {
    let r = run(&["analyze", p.to_str().unwrap_or("")]);
    (r.code, r.stderr)
}

#[test]
fn a_link_chain_that_climbs_out_through_another_link_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let outside = tmp.path().join("outside");
    copy_dir(&root().join("samples/storage-published"), &outside);
    let p = tmp.path().join("chain.tar.gz");
    // `a -> .` makes `a/a/a` the root again: three `..` from there climb out of it.
    let target = format!(
        "a/a/a/../../../{}",
        outside.display().to_string().trim_start_matches('/')
    );
    let manifest = file_entry(b"manifest.json", b"{}");
    let a = link_header(b"a", b".");
    let input = link_header(b"input", target.as_bytes());
    write_gz(&p, &[&manifest, &a, &input, &tar_end()]);
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("refused bundle") && err.contains(&p.display().to_string()),
        "{err}"
    );
    assert!(err.contains("`input`"), "names the entry: {err}");
    // The same chain one level deeper, pointing at a file.
    let p = tmp.path().join("chain2.tar.gz");
    let deep = link_header(b"input/results/x.json", b"../../a/a/../../../etc/passwd");
    let dir = header(b"input/results/", "0", b'5');
    write_gz(&p, &[&manifest, &a, &dir, &deep, &tar_end()]);
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("input/results/x.json") && err.contains("outside the bundle"),
        "{err}"
    );
}

#[test]
fn a_link_inside_the_bundle_is_resolved_and_read() {
    let tmp = tempfile::tempdir().expect("tmp");
    let src = root().join("samples/storage-published/results/adp/randwrite-8k-j8-d8.json");
    let data = fs::read(&src).expect("sample");
    let p = tmp.path().join("inside.tar.gz");
    let real = file_entry(b"runs/adp/randwrite-8k-j8-d8.json", &data);
    // `results -> runs`, then a link through it.
    let dir_link = link_header(b"results", b"runs");
    let file_link = link_header(
        b"copy/randwrite-8k-j8-d8.json",
        b"../results/adp/randwrite-8k-j8-d8.json",
    );
    let dir = header(b"copy/", "0", b'5');
    write_gz(&p, &[&real, &dir_link, &dir, &file_link, &tar_end()]);
    let (code, err) = analyze_bundle(&p);
    // One array judges no criterion (exit 2, said so), but the bundle was read.
    assert!(
        code != 2 || err.contains("no criterion was judged"),
        "a bundle whose links stay inside is read: {err}"
    );
    assert!(!err.contains("refused"), "{err}");
}

#[test]
fn five_thousand_nested_folders_are_refused_at_once() {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("deep.tar.gz");
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut path = String::new();
    for _ in 0..5000 {
        path.push_str("d/");
        let mut h = header(b"x", "0", b'5');
        // GNU long names for the paths past 100 bytes.
        if path.len() >= 100 {
            let mut long =
                header(b"././@LongLink", &format!("{:o}", path.len() + 1), b'L').to_vec();
            let mut name = path.clone().into_bytes();
            name.push(0);
            name.resize(name.len().div_ceil(512) * 512, 0);
            long.extend_from_slice(&name);
            parts.push(long);
        } else {
            h = header(path.as_bytes(), "0", b'5');
        }
        parts.push(h.to_vec());
    }
    parts.push(tar_end());
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    write_gz(&p, &refs);
    let start = std::time::Instant::now();
    let (code, err) = analyze_bundle(&p);
    let took = start.elapsed();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nested deeper than 16 folders"), "{err}");
    // Not a timing test: a bound a hang or a quadratic walk would blow by far.
    assert!(took.as_secs() < 20, "took {took:?}");
    eprintln!("5,000 nested folders refused in {took:?}");
}

#[test]
fn a_damaged_gzip_checksum_and_data_after_the_archive_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let good = tmp.path().join("good.tar.gz");
    let entry = file_entry(b"results/note.txt", b"hello\n");
    write_gz(&good, &[&entry, &tar_end()]);
    let bytes = fs::read(&good).expect("r");
    // The CRC-32 is the trailer's first four bytes.
    let mut bad = bytes.clone();
    let at = bad.len() - 8;
    bad[at] ^= 0xff;
    let p = tmp.path().join("crc.tar.gz");
    fs::write(&p, &bad).expect("w");
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("damaged") && err.contains("crc.tar.gz"),
        "{err}"
    );
    let mut trailing = bytes.clone();
    trailing.extend_from_slice(b"this is not part of any archive");
    let p = tmp.path().join("trailing.tar.gz");
    fs::write(&p, &trailing).expect("w");
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("trailing.tar.gz"), "{err}");
    // Data after the end-of-archive blocks, inside the gzip stream.
    let p = tmp.path().join("after.tar.gz");
    write_gz(&p, &[&entry, &tar_end(), b"smuggled"]);
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("data after the end of the archive"), "{err}");
}

#[test]
fn header_numbers_that_do_not_fit_are_refused_not_overflowed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let p = tmp.path().join("base256.tar.gz");
    // A base-256 size of 2^88: does not fit in 64 bits.
    let mut h = header(b"results/big.log", "0", b'0');
    h[124..136].copy_from_slice(&[0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    write_gz(&p, &[&h, &tar_end()]);
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("results/big.log") && err.contains("64 bits"),
        "{err}"
    );
    // A link claiming nearly 2^64 bytes of data (its padding would overflow).
    let p = tmp.path().join("linksize.tar.gz");
    let mut l = link_header(b"results/l", b"x");
    l[124..136].copy_from_slice(&[
        0x80, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
    l[148..156].copy_from_slice(b"        ");
    let sum: u32 = l.iter().map(|&b| u32::from(b)).sum();
    l[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    write_gz(&p, &[&l, &tar_end()]);
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("results/l"), "{err}");
}

#[test]
fn duplicate_links_empty_targets_and_a_linked_input_name_the_entry() {
    let tmp = tempfile::tempdir().expect("tmp");
    let f = file_entry(b"results/a.txt", b"x\n");
    for (name, parts, expect) in [
        (
            "dup",
            vec![f.clone(), link_header(b"results/a.txt", b"b.txt").to_vec()],
            "appears twice",
        ),
        (
            "empty",
            vec![link_header(b"results/e", b"").to_vec()],
            "empty target",
        ),
        (
            "input",
            vec![
                file_entry(b"manifest.json", b"{}"),
                file_entry(b"real/x.txt", b"x"),
                link_header(b"input", b"real").to_vec(),
            ],
            "`input`",
        ),
    ] {
        let p = tmp.path().join(format!("{name}.tar.gz"));
        let mut all: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let end = tar_end();
        all.push(&end);
        write_gz(&p, &all);
        let (code, err) = analyze_bundle(&p);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.contains("refused bundle") && err.contains(&p.display().to_string()),
            "{name}: {err}"
        );
        assert!(err.contains(expect), "{name}: {err}");
    }
}

#[test]
fn a_bundle_repacked_by_tar_from_its_folder_reads_as_the_bundle() {
    if !need("tar") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let bundle = tmp.path().join("b.tar.gz");
    let r = run(&[
        "bundle",
        root()
            .join("samples/storage-published")
            .to_str()
            .unwrap_or(""),
        "-o",
        bundle.to_str().unwrap_or(""),
        "--no-pdf",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let x = tmp.path().join("x");
    fs::create_dir_all(&x).expect("mkdir");
    let ok = |c: &mut std::process::Command| c.status().is_ok_and(|s| s.success());
    assert!(ok(std::process::Command::new("tar")
        .arg("-xzf")
        .arg(&bundle)
        .arg("-C")
        .arg(&x)));
    // `tar -C x -czf y .`: every entry starts with `./`, the first is `./` itself.
    let repacked = tmp.path().join("repacked.tar.gz");
    assert!(ok(std::process::Command::new("tar")
        .arg("-C")
        .arg(&x)
        .arg("-czf")
        .arg(&repacked)
        .arg(".")));
    let (a, b) = (analyze_json(&bundle, &[]).1, analyze_json(&repacked, &[]).1);
    assert_eq!(statuses(&a), statuses(&b));
    assert!(!statuses(&b).is_empty());
}

#[test]
fn a_long_chain_of_links_and_a_loop_are_refused_each_with_its_own_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    let manifest = file_entry(b"manifest.json", b"{}");
    // l0 -> l1 -> ... -> l199 -> manifest.json: no loop, longer than the 40 the kernel
    // follows.
    let mut parts: Vec<Vec<u8>> = vec![manifest.clone()];
    for i in 0..200 {
        let target = if i == 199 {
            "manifest.json".to_string()
        } else {
            format!("l{}", i + 1)
        };
        parts.push(link_header(format!("l{i}").as_bytes(), target.as_bytes()).to_vec());
    }
    parts.push(tar_end());
    let p = tmp.path().join("chain.tar.gz");
    write_gz(&p, &parts.iter().map(Vec::as_slice).collect::<Vec<_>>());
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("chain of more than 40 links"), "{err}");
    assert!(!err.contains("loop"), "{err}");
    // a -> b -> a.
    let p = tmp.path().join("loop.tar.gz");
    let a = link_header(b"a", b"b");
    let b = link_header(b"b", b"a");
    write_gz(&p, &[&manifest, &a, &b, &tar_end()]);
    let (code, err) = analyze_bundle(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("part of a loop of links"), "{err}");
}

/// Whether `text` holds anything that would act on a terminal, or a line an input forged.
fn forged(text: &str) -> Option<String> {
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() && *c != '\n' && *c != '\t')
    {
        return Some(format!("control character U+{:04X}", c as u32));
    }
    text.lines()
        .find(|l| l.trim_start().starts_with("error: FORGED"))
        .map(|l| format!("a forged line: {l}"))
}

#[test]
fn names_and_job_names_cannot_forge_the_terminal_or_a_report() {
    let tmp = tempfile::tempdir().expect("tmp");
    let input = tmp.path().join("run");
    copy_dir(&root().join("samples/storage-published"), &input);
    let evil = "\u{1b}]0;owned\u{7}\u{1b}[2J\r\nerror: FORGED\u{9b}31m";
    // A file name, a link target and a fio job name, each carrying it.
    fs::write(input.join(format!("results/adp/notes{evil}.txt")), "x\n").expect("w");
    std::os::unix::fs::symlink(format!("/nowhere/{evil}"), input.join("results/link"))
        .expect("link");
    let job = input.join("results/adp/randwrite-8k-j8-d8.json");
    let text = fs::read_to_string(&job).expect("sample");
    let escaped = serde_json::to_string(&format!("randwrite{evil}")).expect("json");
    let text = text.replacen(
        "\"jobname\" : \"randwrite-8k-j8-d8\"",
        &format!("\"jobname\" : {escaped}"),
        1,
    );
    assert!(
        text.contains("FORGED"),
        "the sample's job name was replaced"
    );
    fs::write(&job, text).expect("w");
    let out = tmp.path().join("out");
    let bundle = tmp.path().join("b.tar.gz");
    let (i, o, b) = (
        input.to_str().unwrap_or(""),
        out.to_str().unwrap_or(""),
        bundle.to_str().unwrap_or(""),
    );
    for args in [
        &["analyze", i][..],
        &["analyze", i, "--detail"],
        &["analyze", i, "--format", "json"],
        &["report", i, "-o", o, "--no-pdf"],
        &["bundle", i, "-o", b, "--no-pdf", "--dry-run"],
        &["bundle", i, "-o", b, "--no-pdf"],
    ] {
        let r = run(args);
        for (what, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            assert_eq!(forged(text), None, "{args:?} {what}:\n{text}");
        }
    }
    for f in ["report.md", "report.html"] {
        let text = fs::read_to_string(out.join(f)).expect("written");
        assert_eq!(forged(&text), None, "{f}");
        assert!(
            text.contains("randwrite^[]0;owned^G^[[2J^M^Jerror: FORGED"),
            "{f} shows the job name, visibly"
        );
    }
    // What the bundle wrote itself; the inputs' own bytes are evidence, kept as they are.
    for (name, bytes) in tar_contents(&bundle) {
        assert_eq!(forged(&name), None, "an entry name");
        if !name.starts_with("input/") {
            assert_eq!(forged(&String::from_utf8_lossy(&bytes)), None, "{name}");
        }
    }
}
