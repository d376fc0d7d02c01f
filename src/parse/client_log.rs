//! The multi-turn client's console log (`| tee results/<variant>-<run>-L<p>.log`):
//! per-client failure counts, the runtime, and how the client ended.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use serde::Serialize;

use crate::error::ParseError;
use crate::parse::pyrepr;
use crate::parse::text::{read_capped, TextCheck};

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ClientLog {
    /// `Client N is done (num_successes=S, num_failures=F)` lines seen.
    pub clients_done: usize,
    pub successes: u64,
    /// Sum of num_failures over the clients.
    pub failures: u64,
    pub runtime_sec: Option<f64>,
    /// The last line of a Python traceback, if the client died with one.
    pub fatal: Option<String>,
    /// `Received HTTP status ...` / `Request rejected ...` lines.
    pub error_lines: usize,
    /// The client's arguments as it logged them, by the names the procedure passes
    /// (`num_clients`, `max_active_conversations`, `limit_max_tokens`, `no_early_stop`,
    /// ...) and the generated workload's (`num_conversations`, `input_num_tokens`, ...):
    /// from its `Namespace(...)` and `GenConvArgs(...)` lines (stderr) or its
    /// `Parameters:` block (stdout). Absent when the log does not say.
    pub args: BTreeMap<String, String>,
    /// The client stopped every client once the first one finished (`early_stop`).
    pub stopped_early: bool,
}

/// The `Parameters:` block's names for the arguments, and the names used here.
const STDOUT_NAMES: &[(&str, &str)] = &[
    ("num_clients", "num_clients"),
    ("num_conversations", "num_conversations"),
    ("active_conversations", "max_active_conversations"),
    ("seed", "seed"),
    ("min_tokens", "limit_min_tokens"),
    ("max_tokens", "limit_max_tokens"),
    ("input_num_turns", "input_num_turns"),
    (
        "input_common_prefix_num_tokens",
        "input_common_prefix_num_tokens",
    ),
    ("input_prefix_num_tokens", "input_prefix_num_tokens"),
    ("input_num_tokens", "input_num_tokens"),
    ("output_num_tokens", "output_num_tokens"),
];

pub fn parse_path(path: &Path) -> Result<ClientLog, ParseError> {
    let bytes = read_capped(path)?;
    TextCheck::of(&bytes).map_err(|p| p.in_file(path))?;
    Ok(parse_text(&crate::parse::text::lossy(&bytes)))
}

/// Removes ANSI colour sequences (`ESC [ ... letter`); a line without any is borrowed.
pub fn strip_ansi(s: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr(0x1b, s.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(strip(s))
}

fn strip(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

fn number_after<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    let i = s.find(key)? + key.len();
    let rest = &s[i..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The phrases a line is looked up for, each searched with a prebuilt finder (a log has
/// thousands of request lines and a handful of lines that matter).
struct Phrases {
    done: Finder<'static>,
    http: Finder<'static>,
    rejected: Finder<'static>,
    terminate: Finder<'static>,
    namespace: Finder<'static>,
    gen_conv: Finder<'static>,
    stats: Finder<'static>,
    exception: Finder<'static>,
}

static PHRASES: LazyLock<Phrases> = LazyLock::new(|| Phrases {
    done: Finder::new(" is done (num_successes="),
    http: Finder::new("Received HTTP status"),
    rejected: Finder::new("Request rejected during conversation"),
    terminate: Finder::new("Sending termination signal to clients"),
    namespace: Finder::new("Namespace("),
    gen_conv: Finder::new("GenConvArgs("),
    stats: Finder::new("Writing per-request stats JSON"),
    exception: Finder::new("Exception during conversation"),
});

pub fn parse_text(text: &str) -> ClientLog {
    let p = &*PHRASES;
    let has = |f: &Finder, t: &str| f.find(t.as_bytes()).is_some();
    let mut log = ClientLog::default();
    let mut in_traceback = false;
    // Whether the client went on after its last traceback (a client done, its summary,
    // its stats written): `logger.exception` prints a traceback for one request's
    // exception and the client carries on; only a traceback that ends the log is fatal.
    let mut went_on = false;
    let mut last_nonempty = String::new();
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with("Traceback (most recent call last)") {
            in_traceback = true;
            went_on = false;
        }
        let done = has(&p.done, t);
        if done || t.starts_with("runtime_sec = ") || has(&p.stats, t) {
            went_on = true;
        }
        if has(&p.exception, t) {
            log.error_lines += 1;
        }
        if done {
            log.clients_done += 1;
            log.successes += number_after(t, "num_successes=")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            log.failures += number_after(t, "num_failures=")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
        }
        if let Some(v) = t.strip_prefix("runtime_sec = ") {
            log.runtime_sec = v.trim().parse().ok();
        }
        if has(&p.http, t) || has(&p.rejected, t) {
            log.error_lines += 1;
        }
        for (finder, name) in [(&p.namespace, "Namespace"), (&p.gen_conv, "GenConvArgs")] {
            if has(finder, t) {
                if let Some(fields) = pyrepr::call_fields(t, name) {
                    log.args.extend(fields);
                }
            }
        }
        if has(&p.terminate, t) {
            log.stopped_early = true;
        }
        if let Some((k, v)) = t.split_once('=') {
            if let Some((_, ours)) = STDOUT_NAMES.iter().find(|(theirs, _)| *theirs == k) {
                log.args
                    .entry(ours.to_string())
                    .or_insert_with(|| v.trim().to_string());
            }
        }
        // Kept in one buffer: no allocation per line.
        last_nonempty.clear();
        last_nonempty.push_str(t);
    }
    if in_traceback && !went_on {
        log.fatal = Some(last_nonempty);
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_failures_over_clients_through_colour_codes() {
        let text = "x [INFO] - \u{1b}[96mClient 0 is done (num_successes=17, num_failures=5)\u{1b}[0m\n\
                    x [INFO] - \u{1b}[96mClient 1 is done (num_successes=12, num_failures=0)\u{1b}[0m\n\
                    x [ERROR] - Received HTTP status 500 (Internal Server Error)\n\
                    runtime_sec = 17.124\n";
        let log = parse_text(text);
        assert_eq!((log.clients_done, log.successes, log.failures), (2, 29, 5));
        assert_eq!(log.runtime_sec, Some(17.124));
        assert_eq!(log.error_lines, 1);
        assert!(log.fatal.is_none());
    }

    #[test]
    fn keeps_the_last_line_of_a_traceback() {
        let text = "Traceback (most recent call last):\n  File \"b.py\", line 1\nValueError: Max active conversations 8 must be equal or less than the total number of conversations\n";
        let log = parse_text(text);
        assert!(log
            .fatal
            .is_some_and(|f| f.starts_with("ValueError: Max active")));
    }

    #[test]
    fn a_traceback_the_client_went_on_after_is_not_fatal() {
        // What vLLM's client writes when one request raises: `logger.exception` prints
        // the traceback, the client retries or counts a failure, and finishes.
        let text = "x [ERROR] - Client 3 - Exception during conversation ID 7 (turn: 2)\n\
                    Traceback (most recent call last):\n  File \"b.py\", line 1\n\
                    aiohttp.client_exceptions.ServerDisconnectedError: Server disconnected\n\
                    x [INFO] - Client 3 is done (num_successes=9, num_failures=0)\n\
                    runtime_sec = 30.5\n\
                    x [INFO] - Writing per-request stats JSON: results/gpu-only-1-L4.json\n";
        let log = parse_text(text);
        assert!(log.fatal.is_none(), "{:?}", log.fatal);
        assert_eq!(log.error_lines, 1);
        assert_eq!(log.failures, 0);
        // The same traceback at the end of the log: the client died there.
        let died = "x [INFO] - Client 0 is done (num_successes=9, num_failures=0)\n\
                    Traceback (most recent call last):\n  File \"b.py\", line 1\n\
                    KeyError: 'usage'\n";
        assert_eq!(parse_text(died).fatal.as_deref(), Some("KeyError: 'usage'"));
    }

    #[test]
    fn reads_the_real_fixture() {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/kv-ladder-client/results/adp-1-L1.log");
        let log = parse_path(&p).expect("reads");
        assert_eq!((log.clients_done, log.successes, log.failures), (1, 40, 0));
        assert_eq!(log.runtime_sec, Some(17.124));
        assert_eq!(log.args["num_clients"], "1");
        assert_eq!(log.args["max_active_conversations"], "2");
        assert_eq!(log.args["no_early_stop"], "True");
        assert_eq!(log.args["limit_max_tokens"], "40");
        assert_eq!(log.args["num_conversations"], "16");
        assert_eq!(log.args["output_num_tokens"], "Constant[40]");
        assert!(!log.stopped_early);
    }

    #[test]
    fn reads_the_parameters_block_of_stdout_and_an_early_stop() {
        let text = "Parameters:\nnum_clients=8\nnum_conversations=24\nactive_conversations=16\nmax_tokens=400\n\
                    x [INFO] - Sending termination signal to clients\n";
        let log = parse_text(text);
        assert_eq!(log.args["max_active_conversations"], "16");
        assert_eq!(log.args["limit_max_tokens"], "400");
        assert!(log.stopped_early);
    }
}
