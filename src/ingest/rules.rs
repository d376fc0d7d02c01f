//! The formats' recognition rules: what a file's first bytes, or its path, say it is.
//! Each built-in format's entry in the registry (`format.rs`) names its two rules here;
//! `sniff.rs` tries them in the registry's order.

use memchr::memmem;

use super::layout;

fn has(hay: &[u8], needle: &str) -> bool {
    memmem::find(hay, needle.as_bytes()).is_some()
}

/// What the content rules look at: the file's head and a few facts about it, found once.
pub struct Head<'a> {
    pub rel: &'a str,
    /// The file name, lower case.
    pub name: String,
    /// The whole file.
    pub bytes: &'a [u8],
    /// Its first 64 KiB: the keys that say what a JSON document is come first in it (fio
    /// writes `fio version` first, in every shape: text before the JSON, several
    /// documents, client/server `client_stats`; bdevperf its `results`). A file whose
    /// document starts later is still placed by its path.
    pub head: &'a [u8],
    /// Whether the first non-blank byte opens a JSON document.
    pub json: bool,
    pub first: u8,
    /// Whether the head holds a `"`: every JSON key looked for is quoted, so a head
    /// without one (an iostat log, most text) holds none of them, found with one scan.
    pub quoted: bool,
    /// The first non-empty line, trimmed.
    pub line1: &'a [u8],
}

impl Head<'_> {
    /// The first 16 KiB as text, for the rules that read words.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes[..self.bytes.len().min(16 * 1024)]).into_owned()
    }

    /// Whether the head holds `needle`.
    pub fn has(&self, needle: &str) -> bool {
        has(self.head, needle)
    }
}

/// What the path rules look at.
pub struct PathOf<'a> {
    pub rel: &'a str,
    /// The file name, lower case.
    pub name: String,
}

impl PathOf<'_> {
    pub fn new(rel: &str) -> PathOf<'_> {
        PathOf {
            rel,
            name: layout::file_name(rel).to_ascii_lowercase(),
        }
    }

    fn ladder(&self) -> Option<layout::LadderPart> {
        layout::ladder_file(self.rel).map(|(_, _, part)| part)
    }
}

// The built-in formats' rules, in registry order. JSON rules and text rules are apart
// (`json`), so their order among each other is what decides.

/// Manifests are free-form JSON objects; their names say what they are.
pub fn manifest(h: &Head) -> bool {
    h.json && layout::is_manifest(h.rel)
}

pub fn manifest_path(p: &PathOf) -> bool {
    layout::is_manifest(p.rel) && p.name.ends_with(".json")
}

pub fn fio(h: &Head) -> bool {
    h.quoted && (h.has("\"fio version\"") || h.has("\"client_stats\""))
}

pub fn spdk_config(h: &Head) -> bool {
    h.json && h.has("\"subsystems\"")
}

pub fn raid_state(h: &Head) -> bool {
    h.json && h.has("\"raid_level\"") && h.has("\"num_base_bdevs\"")
}

pub fn bdevperf(h: &Head) -> bool {
    h.quoted && h.has("\"results\"") && (h.has("\"core_mask\"") || h.has("\"io_failed\""))
}

pub fn iostat(h: &Head) -> bool {
    if h.json {
        h.has("\"sysstat\"")
    } else {
        h.line1.starts_with(b"Linux") && (h.has("avg-cpu") || h.has("Device"))
    }
}

pub fn iostat_path(p: &PathOf) -> bool {
    p.name.ends_with(".iostat")
}

pub fn client_records(h: &Head) -> bool {
    h.first == b'[' && h.has("\"ttft_ms\"")
}

pub fn client_records_path(p: &PathOf) -> bool {
    p.ladder() == Some(layout::LadderPart::Records)
}

pub fn gpu_series(h: &Head) -> bool {
    !h.json && crate::parse::gpu_csv::is_header(&String::from_utf8_lossy(h.line1))
}

pub fn gpu_series_path(p: &PathOf) -> bool {
    p.ladder() == Some(layout::LadderPart::Gpus)
}

pub fn fio_log(h: &Head) -> bool {
    !h.json && crate::parse::fio_log::job_of(&h.name).is_some() && is_fio_log_line(h.line1)
}

pub fn fio_log_path(p: &PathOf) -> bool {
    p.ladder().is_none() && crate::parse::fio_log::job_of(&p.name).is_some()
}

pub fn prom_series(h: &Head) -> bool {
    !h.json
        && h.line1
            .starts_with(crate::parse::prom_series::MARKER.as_bytes())
}

pub fn prom_series_path(p: &PathOf) -> bool {
    p.ladder() == Some(layout::LadderPart::Series)
}

pub fn prometheus(h: &Head) -> bool {
    !h.json && is_prometheus(h.head)
}

pub fn prometheus_path(p: &PathOf) -> bool {
    match p.ladder() {
        Some(part) => matches!(part, layout::LadderPart::Pre | layout::LadderPart::Post),
        None => p.name.ends_with(".prom"),
    }
}

/// A saved completions response (JSON) or the `ask` helper's `time 2.1 s  {...}` lines.
pub fn ask(h: &Head) -> bool {
    if h.json {
        has(h.bytes, "\"usage\"") && has(h.bytes, "\"prompt_tokens\"")
    } else {
        is_ask(h.head)
    }
}

pub fn ask_path(p: &PathOf) -> bool {
    layout::transcript_dir(p.rel).is_some()
        && (p.name.ends_with(".txt") || p.name.ends_with(".json"))
}

/// Logs say what they are in their first lines (the client's arguments, vLLM's version
/// and arguments); later lines are not looked at.
pub fn client_log(h: &Head) -> bool {
    !h.json && is_client_log(h.head)
}

pub fn client_log_path(p: &PathOf) -> bool {
    p.ladder() == Some(layout::LadderPart::Log)
}

pub fn gateway_log(h: &Head) -> bool {
    !h.json && h.name.contains("gateway")
}

pub fn gateway_log_path(p: &PathOf) -> bool {
    p.ladder().is_none() && p.name.ends_with(".log") && p.name.contains("gateway")
}

pub fn server_log(h: &Head) -> bool {
    !h.json && is_vllm_log(h.head)
}

pub fn server_log_path(p: &PathOf) -> bool {
    p.ladder().is_none()
        && p.name.ends_with(".log")
        && (p.name.contains("vllm") || p.name.contains("server"))
}

pub fn host(h: &Head) -> bool {
    !h.json && crate::parse::host::detect(&h.name, &h.text()).is_some()
}

/// How many lines of a text file the log checks read.
const LOG_LINES: usize = 200;

fn lines(head: &[u8]) -> impl Iterator<Item = &[u8]> {
    head.split(|&c| c == b'\n').map(|l| l.trim_ascii())
}

/// A line without its ANSI colour sequences.
fn plain(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !line.contains(&0x1b) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if line[i] == 0x1b && line.get(i + 1) == Some(&b'[') {
            i += 2;
            while i < line.len() && !line[i].is_ascii_alphabetic() {
                i += 1;
            }
            i += 1;
            continue;
        }
        out.push(line[i]);
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

/// The multi-turn client's logger lines (`<date> <time> [INFO] - GenConvArgs(...)`,
/// `... - Client 3 is done (num_successes=...)`) or its stdout summary.
fn is_client_log(head: &[u8]) -> bool {
    lines(head).take(LOG_LINES).any(|l| {
        let l = plain(l);
        l.starts_with(b"Statistics summary:")
            || memmem::find(&l, b"] - ").is_some_and(|at| {
                let rest = &l[at + 4..];
                rest.starts_with(b"GenConvArgs(")
                    || rest.starts_with(b"Namespace(")
                    || (rest.starts_with(b"Client ") && has(rest, " is done (num_successes="))
            })
    })
}

/// vLLM's logger lines: `[(EngineCore pid=N) ]INFO 11-29 10:00:01 [file.py:123] ...`.
fn is_vllm_log(head: &[u8]) -> bool {
    lines(head).take(LOG_LINES).any(|l| {
        // `docker compose logs` prefixes each line with `service-1  | `.
        let l = match memmem::find(l, b" | ") {
            Some(i) if i < 48 => l[i + 3..].trim_ascii_start(),
            _ => l,
        };
        let l = if l.starts_with(b"(") {
            l.iter()
                .position(|&c| c == b')')
                .map_or(l, |i| l[i + 1..].trim_ascii_start())
        } else {
            l
        };
        ["INFO ", "WARNING ", "DEBUG ", "ERROR "]
            .iter()
            .any(|level| l.starts_with(level.as_bytes()))
            && has(l, ".py:")
    })
}

/// `# HELP`/`# TYPE` lines or vLLM's `vllm:` samples.
/// `1000, 181656, 1, 0, 0`: four to six whole numbers.
fn is_fio_log_line(line: &[u8]) -> bool {
    let fields: Vec<&[u8]> = line.split(|&c| c == b',').map(|f| f.trim_ascii()).collect();
    (4..=6).contains(&fields.len())
        && fields
            .iter()
            .all(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

fn is_prometheus(head: &[u8]) -> bool {
    head.split(|&c| c == b'\n')
        .map(|l| l.trim_ascii())
        .filter(|l| !l.is_empty())
        .take(20)
        .any(|l| l.starts_with(b"# HELP ") || l.starts_with(b"# TYPE ") || l.starts_with(b"vllm:"))
}

/// The `ask` helper's `time 2.118532 s  {...}` lines.
fn is_ask(head: &[u8]) -> bool {
    head.split(|&c| c == b'\n')
        .map(|l| l.trim_ascii())
        .any(|l| {
            l.strip_prefix(b"time ")
                .is_some_and(|rest| rest.first().is_some_and(u8::is_ascii_digit) && has(rest, " s"))
        })
}
