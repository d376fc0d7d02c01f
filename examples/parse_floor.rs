//! The benchmark's floor: read every file under a folder and parse it with serde_json
//! (JSON files) or check it as UTF-8 text (the rest), on as many threads as `analyze`
//! uses. Nothing is judged or kept: this is what reading the bytes costs.
//!
//! With `--text-fields`, text is parsed as generically as JSON is: each line split at
//! whitespace and every field read as a number where it is one (`str::parse::<f64>`),
//! as serde_json reads every number of a document into a `Value`. Without it, text is
//! only checked, never split: a floor no reader of text can reach, since a reader must
//! at least find the fields it keeps.
//!
//! Usage: parse_floor [--text-fields] DIR

use std::path::{Path, PathBuf};

use rayon::prelude::*;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&p, out),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fields = args.iter().any(|a| a == "--text-fields");
    let unknown = args
        .iter()
        .any(|a| a.starts_with("--") && a != "--text-fields");
    let Some(dir) = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .filter(|_| !unknown)
    else {
        eprintln!("usage: parse_floor [--text-fields] DIR");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    walk(Path::new(&dir), &mut files);
    let (bytes, values): (u64, u64) = files
        .par_iter()
        .map(|p| {
            let Ok(b) = std::fs::read(p) else {
                return (0, 0);
            };
            let parsed = if p.extension().is_some_and(|e| e == "json") {
                serde_json::from_slice::<serde_json::Value>(&b).is_ok()
            } else {
                std::str::from_utf8(&b).is_ok_and(|t| {
                    if fields {
                        let numbers = |l: &str| {
                            l.split_whitespace()
                                .filter(|f| f.parse::<f64>().is_ok())
                                .count()
                        };
                        t.lines().map(numbers).sum::<usize>() > 0
                    } else {
                        t.lines().count() > 0
                    }
                })
            };
            (b.len() as u64, u64::from(parsed))
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!("{} files, {bytes} bytes, {values} parsed", files.len());
}
