//! The second check before a bundle is written: every member, every file name (of files
//! in and left out), the report's Markdown and its Typst source (what the PDF is made
//! from) are scanned for what still looks like a secret. It shares no code with the
//! redactor, only the rule set's words: its own reading of `secrets.toml`, its own
//! splitting of lines, and three plain tests (a token prefix the rules name, a value
//! right after a secret's name, a long random token on a line that names a secret). Any
//! hit stops the bundle, naming the file and line with the value masked.

mod checks;
mod values;
mod words;

use checks::{
    named_values, prefixed_tokens, private_key, secret_params, tool_secrets, url_credentials,
};
use values::plain;
use words::words;

/// One hit: the line and the value, masked.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub line: usize,
    pub what: String,
    /// The value as it stands on the line (empty for a private key's armour, which is
    /// not one value).
    pub value: String,
}

/// Every value the check finds redacted in place, line by line, until it finds none it
/// can redact (at most a few rounds: each round removes the values it found). Returns
/// the text and how many values went.
pub fn redact_found(text: &str) -> (String, usize) {
    let mut text = text.to_string();
    let mut n = 0;
    for _ in 0..4 {
        let hits: Vec<Hit> = scan(&text)
            .into_iter()
            .filter(|h| !h.value.is_empty())
            .collect();
        if hits.is_empty() {
            break;
        }
        let mut out = String::with_capacity(text.len());
        let mut by_line = hits.iter().peekable();
        let mut changed = 0;
        for (i, line) in text.split_inclusive(['\n', '\0']).enumerate() {
            let mut line = line.to_string();
            while let Some(h) = by_line.next_if(|h| h.line == i + 1) {
                if line.contains(h.value.as_str()) {
                    line = line.replace(h.value.as_str(), super::redact::MARK);
                    changed += 1;
                }
            }
            out.push_str(&line);
        }
        if changed == 0 {
            break;
        }
        n += changed;
        text = out;
    }
    (text, n)
}

/// Everything in `text` that still looks like a secret: per line, the first of the
/// checks below that finds one.
pub fn scan(text: &str) -> Vec<Hit> {
    let w = words();
    let mut hits = Vec::new();
    for (n, raw) in text.split(['\n', '\0']).enumerate() {
        let line = plain(raw);
        let line = line.as_ref();
        let lower = line.to_ascii_lowercase();
        let mut first: Option<(String, String)> = None;
        let mut push = |what: String, value: &str| {
            first.get_or_insert((what, value.to_string()));
        };
        let l = Scanned {
            line,
            lower: &lower,
        };
        prefixed_tokens(w, &l, &mut push);
        secret_params(w, &l, &mut push);
        private_key(&l, &mut push);
        url_credentials(&l, &mut push);
        tool_secrets(w, &l, &mut push);
        named_values(w, &l, &mut push);
        if let Some((what, value)) = first {
            hits.push(Hit {
                line: n + 1,
                what,
                value,
            });
        }
    }
    hits
}

/// One line, as written and lowercased (same byte offsets: ASCII lowercasing).
struct Scanned<'a> {
    line: &'a str,
    lower: &'a str,
}

/// Scans every text file under the folders given (a tuning aid: `cargo test -- --ignored
/// scan_tree` with `REPROBENCH_SCAN_DIRS`).
#[cfg(test)]
#[test]
#[ignore = "a tuning aid over real files, not a check"]
fn scan_tree() {
    let dirs = std::env::var("REPROBENCH_SCAN_DIRS").unwrap_or_default();
    for d in dirs.split(':').filter(|d| !d.is_empty()) {
        let mut stack = vec![std::path::PathBuf::from(d)];
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                stack.extend(
                    std::fs::read_dir(&p)
                        .into_iter()
                        .flatten()
                        .flatten()
                        .map(|e| e.path()),
                );
            } else if let Ok(t) = std::fs::read_to_string(&p) {
                for h in scan(&t) {
                    println!("{}:{}: {}", p.display(), h.line, h.what);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_its_own_it_finds_most_of_the_corpus() {
        let corpus = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/secrets/corpus.txt"),
        )
        .expect("corpus");
        let seeded: Vec<usize> = corpus
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains("LEAK") && !l.starts_with('#'))
            .map(|(i, _)| i + 1)
            .collect();
        let hits: Vec<usize> = scan(&corpus).iter().map(|h| h.line).collect();
        let found = seeded.iter().filter(|l| hits.contains(l)).count();
        // Independent and cruder than the redactor: it must still see most of them.
        assert!(
            found * 10 >= seeded.len() * 7,
            "{found} of {}: missed lines {:?}",
            seeded.len(),
            seeded
                .iter()
                .filter(|l| !hits.contains(l))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn finds_what_the_redactor_would_have_to_remove_and_not_what_it_left() {
        assert_eq!(scan("x ghp_0123456789abcdefghijABCDEF here").len(), 1);
        assert_eq!(scan("DB_PASSWORD=hunter2").len(), 1);
        assert_eq!(scan("--api-key s3cr3tValue").len(), 1);
        assert_eq!(scan("token: aB3dE5gH7jK9mN1pQ3sT5vX7zA9c").len(), 1);
        for leak in [
            "x.run?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=9f86d081884c7d659a2feaa0c55ad015",
            "x.run?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261129%2Fus-east-1%2Fs3%2Faws4_request",
            "c/x?sv=2021-08-06&sr=b&sig=abc%2Bdef0123456789%3D",
            "get?X-Goog-Signature=0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        ] {
            assert_eq!(scan(leak).len(), 1, "{leak}");
        }
        for clean in [
            "DB_PASSWORD=[REDACTED]",
            "\"token\": \"[REDACTED]\"",
            "--max-num-batched-tokens 8192",
            "PasswordAuthentication no",
            "docker login --password-stdin ghcr.io",
            "sha256 4f5e1c0b9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
            "prompt_tokens: 196531",
            "ghp_ is a prefix",
            "Vulnerability Spec store bypass:    Vulnerable",
            "kpasswd         464/tcp",
            "[credential \"https://github.com\"]",
            "token http://example/x",
            "akv-gateway-6.1.1.run?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261129T091200Z",
            "x?X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=[REDACTED]",
            "x?sv=2021-08-06&se=2026-12-01T00%3A00%3A00Z&sp=r&sig=[REDACTED]",
            "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Date=20261129T091200Z",
            "x?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=[REDACTED]&X-Goog-Signature=[REDACTED]",
            "export HF_HOME=/models/hf",
            "HF_HUB_ENABLE_HF_TRANSFER=1",
            "pip install --index-url https://pypi-proxy.example.com/simple fio-plot",
            "accesskey=host-13 secret_key: ip-4",
        ] {
            assert!(scan(clean).is_empty(), "{clean}: {:?}", scan(clean));
        }
    }
}
