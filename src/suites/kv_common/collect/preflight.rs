//! The preflight checks of what the KV tests need on the machine: a variant's compose file
//! against the model's row of the procedure, test 2's workload folder, the prompt's fit.

use std::path::{Path, PathBuf};

use crate::suites::kv_common::reference::{KvReference, ModelRef};

use super::ADP;

/// The compose file of a variant's folder (`compose.yaml` and its other names).
pub fn compose_file(dir: &Path) -> PathBuf {
    for n in [
        "compose.yaml",
        "compose.yml",
        "docker-compose.yaml",
        "docker-compose.yml",
    ] {
        if dir.join(n).is_file() {
            return dir.join(n);
        }
    }
    dir.join("compose.yaml")
}

/// What the model's row of the procedure asks of a variant's compose file, and whether
/// the prompt fits its context. Empty when all is well.
pub fn compose_problems(dir: &Path, m: &ModelRef, connector: bool) -> Vec<String> {
    let file = compose_file(dir);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return vec![format!(
            "no compose file in `{}`: create it as the procedure's \"Build it\" step 5 says",
            dir.display()
        )];
    };
    let mut out = Vec::new();
    let mut want = vec![
        m.image.clone(),
        format!("--max-model-len={}", m.max_model_len),
    ];
    want.extend(m.extra.iter().cloned());
    if connector {
        if let Some(c) = m.chunk_size {
            want.push(format!("\"chunk_size\":{c}"));
        }
    }
    for w in want {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let w_compact: String = w.chars().filter(|c| !c.is_whitespace()).collect();
        if !compact.contains(&w_compact) {
            out.push(format!(
                "`{}` does not have `{w}`, which the procedure's row for {} asks for",
                file.display(),
                m.title
            ));
        }
    }
    out
}

/// What test 2's workload folder lacks, each with how the procedure makes it ("Prepare
/// the workload directory"): the folder, the books, `agents.json`.
pub fn workload_problems(dir: &Path) -> Vec<String> {
    let shown = dir.display();
    if !dir.is_dir() {
        return vec![format!(
            "no `{shown}`: make it as the procedure's \"Prepare the workload directory\" does: `mkdir -p {shown} && cd {shown}`, the books (`curl -fLo pg$book.txt https://www.gutenberg.org/ebooks/$book.txt.utf-8` for 1184, 2600 and 135), `agents.json`, and the client image (`docker build -t adp-bench-client -`)"
        )];
    }
    let mut out = Vec::new();
    let books: Vec<String> = ["pg1184.txt", "pg2600.txt", "pg135.txt"]
        .into_iter()
        .filter(|b| !dir.join(b).is_file())
        .map(String::from)
        .collect();
    if !books.is_empty() {
        out.push(format!(
            "no {} in `{shown}`: fetch the books as the procedure's \"Prepare the workload directory\" does (`curl -fLo pg$book.txt https://www.gutenberg.org/ebooks/$book.txt.utf-8`)",
            books.join(", ")
        ));
    }
    if !dir.join("agents.json").is_file() {
        out.push(format!(
            "no `{}`: create the workload file as the procedure's \"Prepare the workload directory\" says",
            dir.join("agents.json").display()
        ));
    }
    out
}

/// What a variant's compose file lacks for test 3: the LMCache variant runs its own image
/// (vLLM 0.28.0 with LMCache 0.5.5, provided on request), so instead of the product image
/// its connector and `LMC_*` settings are checked; every variant whose prefix cache is
/// reset needs `VLLM_SERVER_DEV_MODE=1` (`/reset_prefix_cache` answers 404 without it).
pub fn dram_compose_problems(dir: &Path, m: &ModelRef, variant: &str) -> Vec<String> {
    let file = compose_file(dir);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return vec![format!(
            "no compose file in `{}`: create it as the procedure's test 3 says",
            dir.display()
        )];
    };
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    if variant == "lmcache" {
        for w in [
            "LMCacheMPConnector",
            "LMC_L1_GB=400",
            "LMC_XKV_HOST=gateway",
            "LMC_XKV_FRAG=131072",
            &format!("--max-model-len={}", m.max_model_len),
        ] {
            // `KEY=value` as a list item, or `KEY: value` as a mapping.
            let alt = w.replacen('=', ":", 1);
            if !compact.contains(w) && !compact.contains(&alt) {
                out.push(format!(
                    "`{}` does not have `{w}`, which the procedure's test 3 lists for the LMCache variant",
                    file.display()
                ));
            }
        }
    } else {
        out.extend(compose_problems(dir, m, variant == ADP));
    }
    let dev_mode = [
        "VLLM_SERVER_DEV_MODE=1",
        "VLLM_SERVER_DEV_MODE:1",
        "VLLM_SERVER_DEV_MODE:\"1\"",
        "VLLM_SERVER_DEV_MODE:'1'",
    ];
    if !dev_mode.iter().any(|d| compact.contains(d)) {
        out.push(format!(
            "`{}` does not set VLLM_SERVER_DEV_MODE=1: the warm restores reset the prefix cache (POST /reset_prefix_cache), which answers 404 without it",
            file.display()
        ));
    }
    out
}

/// Whether the prompt of `lines` lines fits the model's context, by the procedure's own
/// measure of tokens per line.
pub fn prompt_problem(lines: u64, m: &ModelRef, r: &KvReference) -> Option<String> {
    let tokens = (lines as f64 * r.restore.tokens_per_line).round() as u64;
    (tokens >= m.max_model_len).then(|| {
        format!(
            "--lines {lines} makes about {tokens} tokens, not below {}'s --max-model-len {}: lower --lines",
            m.title, m.max_model_len
        )
    })
}
