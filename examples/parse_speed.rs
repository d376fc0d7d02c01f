//! Throughput of one parser over every file of a kind under a folder, in memory, on one
//! thread: where a parser stands against reading the bytes (`REPROBENCH_TIMING` gives the
//! same per kind within a real run).
//!
//! Usage: parse_speed KIND DIR [ROUNDS]   (KIND: iostat, prom, fio, records)

use std::path::{Path, PathBuf};
use std::time::Instant;

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(kind), Some(dir)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: parse_speed KIND DIR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(20);
    let ext = match kind.as_str() {
        "iostat" => ".iostat",
        "prom" => ".prom",
        "fio" => ".json",
        "records" => ".json",
        other => {
            eprintln!("unknown kind {other}");
            std::process::exit(2);
        }
    };
    let mut files = Vec::new();
    walk(Path::new(dir), ext, &mut files);
    let data: Vec<Vec<u8>> = files.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let bytes: usize = data.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    let mut ok = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        ok = 0;
        for d in &data {
            let good = match kind.as_str() {
                "iostat" => reprobench::parse::iostat::parse_bytes(d).is_ok(),
                "prom" => reprobench::parse::prom::parse_bytes(d).is_ok(),
                "fio" => reprobench::parse::fio::parse_bytes(d).is_ok(),
                _ => reprobench::parse::mt_records::parse_bytes(d).is_ok(),
            };
            ok += usize::from(good);
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let mut floor_best = f64::MAX;
    for _ in 0..rounds {
        let floor = Instant::now();
        for d in &data {
            if ext == ".json" {
                let _ =
                    std::hint::black_box(serde_json::from_slice::<serde_json::Value>(d).is_ok());
            } else {
                let _ = std::hint::black_box(std::str::from_utf8(d).map(|t| t.lines().count()));
            }
        }
        floor_best = floor_best.min(floor.elapsed().as_secs_f64());
    }
    println!(
        "{kind}: {} files ({ok} read), {:.1} MB: {:.2} ms, {:.0} MB/s; the floor's work on them {:.2} ms ({:.1}x)",
        data.len(),
        bytes as f64 / 1e6,
        best * 1e3,
        bytes as f64 / 1e6 / best,
        floor_best * 1e3,
        best / floor_best
    );
}
