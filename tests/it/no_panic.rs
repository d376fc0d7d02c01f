//! No parser panics on any input: every fixture and sample file, cut at many points and
//! with bytes flipped, goes through every parser, which must answer Ok or Err.

use std::path::{Path, PathBuf};

use reprobench::parse::{ask, bdevperf, client_log, fio, iostat, mt_records, prom, vllm_log};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.metadata().is_ok_and(|m| m.len() < 200_000) {
            out.push(p);
        }
    }
}

fn every_parser(bytes: &[u8]) {
    let _ = fio::parse_bytes(bytes);
    let _ = iostat::parse_bytes(bytes);
    let _ = prom::parse_bytes(bytes);
    let _ = mt_records::parse_bytes(bytes);
    let _ = ask::parse_bytes(bytes);
    let _ = bdevperf::parse_bytes(bytes);
    let text = String::from_utf8_lossy(bytes);
    let _ = client_log::parse_text(&text);
    let _ = vllm_log::parse_text(&text);
}

#[test]
fn cut_and_flipped_inputs_never_panic() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    files(&root.join("tests/fixtures"), &mut all);
    files(&root.join("samples/kv-cache-failing"), &mut all);
    files(
        &root.join("samples/spdk-raid-published/spdk/raid5f-8"),
        &mut all,
    );
    assert!(all.len() > 40, "{} files", all.len());
    let mut cases = 0;
    for f in &all {
        let bytes = std::fs::read(f).expect("read");
        every_parser(&bytes);
        // Cuts at 23 points, including inside multi-byte characters.
        for k in 1..24 {
            every_parser(&bytes[..bytes.len() * k / 24]);
            cases += 1;
        }
        // Deterministic byte flips.
        let mut x = bytes.clone();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ bytes.len() as u64;
        for _ in 0..8 {
            if x.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed as usize) % x.len();
            x[i] = (seed >> 32) as u8;
            every_parser(&x);
            cases += 1;
        }
    }
    assert!(cases > 1000, "{cases} cases");
}
