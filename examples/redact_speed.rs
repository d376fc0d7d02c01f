//! Redaction on one long line against the same bytes in ordinary lines: the time must
//! grow with the bytes, not with the length of a line. Each shape is a log of settings
//! and secrets (`password=…`, `--api-key …`, `token: …`, `"secret": "…"`, URLs with
//! credentials, prose) repeated to SIZE bytes; the one-line form joins them with blanks.
//! Prints both times (fastest of ROUNDS) and their ratio; `bench/run.py --gate` fails
//! when the ratio is above 2.
//!
//! Usage: redact_speed [SIZE_MIB] [ROUNDS]   (default 4 MiB, 3 rounds)

use std::time::Instant;

const PIECES: &[&str] = &[
    "password=Xk3vQ9pL2mN7",
    "--api-key sk-live-7f3b9c2d1e0a4b8c9d7e6f5a",
    "token: aB3dE5gH7jK9mN1pQ3sT5vX7zA9c",
    "\"secret\": \"s3cr3t-Passw0rd\"",
    "https://robot:r3g1stry-pass@registry.example/vllm",
    "export HF_TOKEN=hf_Zx9QmKb3LrTn7WvYp2AsDfGh",
    "the run finished at 12:00 with 3 warnings and nothing else to say",
    "- --dhchap-secret DHHC-1:00:abcdefghijklmnopqrstuvwxyz0123456789:",
    "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig' http://x",
];

fn best(text: &str, rounds: usize) -> (f64, usize) {
    let mut t = f64::MAX;
    let mut n = 0;
    for _ in 0..rounds {
        let s = Instant::now();
        let (_, found) = reprobench::bundle::redact::redact(text);
        t = t.min(s.elapsed().as_secs_f64());
        n = found;
    }
    (t, n)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4.0);
    let rounds: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    let size = (mib * 1024.0 * 1024.0) as usize;
    let mut lines = String::with_capacity(size + 256);
    let mut one = String::with_capacity(size + 256);
    let mut i = 0;
    while lines.len() < size {
        let p = PIECES[i % PIECES.len()];
        lines.push_str(p);
        lines.push('\n');
        one.push_str(p);
        one.push(' ');
        i += 1;
    }
    let (t_lines, n_lines) = best(&lines, rounds);
    let (t_one, n_one) = best(&one, rounds);
    println!(
        "redaction of {:.1} MiB: in lines {:.3} s ({n_lines} values), one line {:.3} s ({n_one} values): {:.2}x",
        lines.len() as f64 / 1048576.0,
        t_lines,
        t_one,
        t_one / t_lines
    );
}
