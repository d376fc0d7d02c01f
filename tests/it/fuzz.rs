//! A mutation fuzzer over every parser and every suite's analysis, run for a bounded time
//! (`REPROBENCH_FUZZ_SECS`, 20 s by default; `REPROBENCH_FUZZ_SEED` to replay). Each round
//! takes a file of a sample or fixture, damages it the ways real files get damaged (cut,
//! flipped, numbers replaced by extremes, lines dropped or doubled, CRLF, NUL and
//! non-ASCII bytes), and runs every parser on it and the whole analysis of its folder.
//! Any panic fails the test with the seed, the file and the mutation, and leaves the
//! input beside the test's temporary files.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;
use reprobench::parse::{ask, bdevperf, client_log, fio, iostat, mt_records, prom, vllm_log};

/// xorshift64*: small, deterministic, good enough to pick mutations.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1e308",
    "-1e308",
    "1e-320",
    "18446744073709551616",
    "9999999999999999999999",
    "0.5",
    "NaN",
    "null",
    "\"x\"",
    "[]",
    "{}",
    "true",
    "\"\"",
    "-18446744073709551616",
];

pub fn mutate(rng: &mut Rng, bytes: &[u8]) -> (Vec<u8>, String) {
    let mut b = bytes.to_vec();
    let len = b.len().max(1);
    let what = match rng.below(12) {
        0 => {
            let at = rng.below(len);
            b.truncate(at);
            format!("cut at byte {at}")
        }
        1 => {
            for _ in 0..1 + rng.below(8) {
                if !b.is_empty() {
                    let at = rng.below(b.len());
                    b[at] ^= 1 << rng.below(8);
                }
            }
            "bits flipped".into()
        }
        2 => {
            // A number replaced by an extreme value.
            let text = String::from_utf8_lossy(&b).into_owned();
            let starts: Vec<usize> = text
                .char_indices()
                .filter(|(i, c)| {
                    c.is_ascii_digit()
                        && (*i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric())
                })
                .map(|(i, _)| i)
                .collect();
            if starts.is_empty() {
                return (b, "no number to replace".into());
            }
            let s = starts[rng.below(starts.len())];
            let e = text[s..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
                .map_or(text.len(), |x| s + x);
            let x = EXTREMES[rng.below(EXTREMES.len())];
            let out = format!("{}{x}{}", &text[..s], &text[e..]);
            return (out.into_bytes(), format!("number at {s} replaced by {x}"));
        }
        3 => {
            let lines: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
            let drop = rng.below(lines.len());
            let out: Vec<&[u8]> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, l)| *l)
                .collect();
            return (out.join(&b'\n'), format!("line {} dropped", drop + 1));
        }
        4 => {
            let lines: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
            let dup = rng.below(lines.len());
            let mut out: Vec<&[u8]> = lines.clone();
            out.insert(dup, lines[dup]);
            return (out.join(&b'\n'), format!("line {} doubled", dup + 1));
        }
        5 => {
            let out: Vec<u8> = b
                .iter()
                .flat_map(|&c| {
                    if c == b'\n' {
                        vec![b'\r', b'\n']
                    } else {
                        vec![c]
                    }
                })
                .collect();
            return (out, "CRLF line ends".into());
        }
        6 => {
            let at = rng.below(len);
            let junk: &[u8] = match rng.below(4) {
                0 => b"\0\0",
                1 => "é ü — ö".as_bytes(),
                2 => b"\xff\xfe",
                _ => b"\n{\"jobs\":[]}\n",
            };
            b.splice(at.min(b.len())..at.min(b.len()), junk.iter().copied());
            format!("{} bytes inserted at {at}", junk.len())
        }
        7 => {
            // A chunk doubled: repeated keys, repeated documents.
            let s = rng.below(len);
            let e = (s + rng.below(400)).min(b.len());
            let chunk = b[s.min(b.len())..e].to_vec();
            b.splice(e..e, chunk);
            format!("bytes {s}..{e} doubled")
        }
        8 => {
            let s = rng.below(len);
            let e = (s + rng.below(200)).min(b.len());
            b.drain(s.min(b.len())..e);
            format!("bytes {s}..{e} removed")
        }
        9 => {
            b.clear();
            "emptied".into()
        }
        10 => {
            // One long line: every line joined, repeated to 256 KiB (a log without
            // newlines, a minified document), where a per-line cost turns quadratic.
            let joined: Vec<u8> = b
                .iter()
                .map(|&c| if c == b'\n' { b' ' } else { c })
                .collect();
            b.clear();
            while b.len() < 256 << 10 && !joined.is_empty() {
                b.extend_from_slice(&joined);
                b.push(b' ');
            }
            "every line joined into one long line".into()
        }
        _ => {
            // Everything doubled: two documents, or a file twice as long.
            let copy = b.clone();
            b.extend(copy);
            "the whole file twice".into()
        }
    };
    (b, what)
}

fn every_parser(bytes: &[u8]) {
    let _ = reprobench::ingest::sniff::sniff("results/raid10/x.json", bytes);
    let _ = fio::parse_bytes(bytes);
    // Wherever the tool reads a file, what it read is what fio's documentation says the
    // file holds (the oracle reads the same document its own way).
    if let Ok(one) = fio::parse_bytes(bytes) {
        if let Err(e) = crate::fio_oracle::agrees(bytes, &one) {
            panic!("fio reader vs the documentation's oracle: {e}");
        }
    }
    let _ = iostat::parse_bytes(bytes);
    let _ = mt_records::parse_bytes(bytes);
    let _ = prom::parse_bytes(bytes);
    let _ = ask::parse_bytes(bytes);
    let _ = bdevperf::parse_bytes(bytes);
    let text = String::from_utf8_lossy(bytes);
    let _ = vllm_log::parse_text(&text);
    let _ = client_log::parse_text(&text);
    let _ = reprobench::parse::pyrepr::dict_after(&text, "non-default args:");
    // Every host format, whatever the bytes (the samples' system/ and compose files
    // are among the mutated inputs).
    use reprobench::parse::host::{self, Format};
    for f in [
        Format::IbBw,
        Format::GpuList,
        Format::GpuQuery,
        Format::GpuTopo,
        Format::NvmeList,
        Format::NvmeSubsys,
        Format::Uname,
        Format::Lscpu,
        Format::Free,
        Format::OsRelease,
        Format::Product,
        Format::Compose,
    ] {
        let _ = host::parse_bytes(f, bytes);
    }
    let _ = host::detect("compose.yaml", &text);
    let _ = reprobench::bundle::encoding::decode(bytes);
    let _ = reprobench::bundle::encoding::decode_file(bytes);
    let (redacted, _) = reprobench::bundle::redact::redact_file("logs/x.netrc", &text);
    let _ = reprobench::bundle::scan::scan(&redacted);
    // Redaction keeps a JSON document a JSON document.
    if serde_json::from_str::<serde_json::Value>(&text).is_ok() {
        let (json, _) = reprobench::bundle::redact::redact(&text);
        assert!(
            serde_json::from_str::<serde_json::Value>(&json).is_ok(),
            "redaction broke a JSON document"
        );
    }
    let _ = reprobench::bundle::container::open(bytes);
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

#[test]
fn mutated_samples_never_panic_any_parser_or_suite() {
    let secs: u64 = std::env::var("REPROBENCH_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("REPROBENCH_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x005e_ed0f_fa11);
    let mut rng = Rng(seed | 1);
    let tmp = tempfile::tempdir().expect("tmp");
    // Working copies of every sample and fixture folder, mutated one file at a time.
    let sources = [
        "samples/storage-published",
        "samples/storage-loopback",
        "samples/kv-cache-published",
        "samples/kv-cache-failing",
        "samples/spdk-raid-published",
        "tests/fixtures/fio",
        "tests/fixtures/kv-ladder-client",
        "tests/fixtures/spdk",
        "tests/fixtures/iostat",
        "tests/fixtures/fio-shapes",
        // The secrets corpus: the redactor's record, grammar, base64 and no-context
        // readers get mutated inputs of every class.
        "tests/fixtures/secrets",
    ];
    let mut folders: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let dest = tmp.path().join(format!("f{i}"));
        copy_dir(&root().join(s), &dest);
        let mut list = Vec::new();
        files(&dest, &mut list);
        list.retain(|p| !p.extension().is_some_and(|e| e == "py" || e == "sh"));
        folders.push((dest, list));
    }
    // With the frames --export builds: damaged input must not break them either.
    let opts = reprobench::suites::Options {
        frames: true,
        ..Default::default()
    };
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut rounds = 0u64;
    while Instant::now() < deadline {
        rounds += 1;
        let (dir, list) = &folders[rng.below(folders.len())];
        if list.is_empty() {
            continue;
        }
        let file = &list[rng.below(list.len())];
        let original = fs::read(file).expect("read");
        let (bytes, what) = mutate(&mut rng, &original);
        fs::write(file, &bytes).expect("write");
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            every_parser(&bytes);
            if let Ok(mut r) = reprobench::analysis::run(dir, &opts) {
                // Every fourth round also builds the record frames, compares the damaged
                // folder with itself and takes its trend.
                if rounds.is_multiple_of(4) {
                    r.with_record_frames();
                    let a = r.analysis;
                    let one = [reprobench::compare::Campaign::from(&a)];
                    let c = reprobench::compare::compare(&one, &one, 5.0);
                    assert_eq!(c.summary.worse, 0, "a folder against itself");
                    let two = [one[0].clone(), one[0].clone()];
                    let _ = reprobench::compare::trend::trend(&two, true);
                }
            }
        }));
        if outcome.is_err() {
            let kept = std::env::temp_dir().join(format!("reprobench-fuzz-crash-{seed}-{rounds}"));
            let _ = fs::write(&kept, &bytes);
            panic!(
                "panic on `{}` ({what}), round {rounds}, seed {seed}; the input is kept at `{}`",
                file.display(),
                kept.display()
            );
        }
        fs::write(file, &original).expect("restore");
    }
    eprintln!("fuzz: {rounds} rounds in {secs} s, seed {seed}");
    assert!(rounds > 0);
}
