//! What a file is: decided by its content first (the bytes say fio, bdevperf, iostat,
//! Prometheus, a vLLM log ...), by its path only when the content says nothing (an empty,
//! cut or binary file is still the `.iostat` log it is named as, so its problem is
//! reported by the suite that wanted it).

use memchr::memmem;
use serde::Serialize;

use super::format::{Format, FORMATS};
use super::layout;

pub use super::format::Kind;

/// How a file's kind was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum By {
    Content,
    Path,
}

fn has(hay: &[u8], needle: &str) -> bool {
    memmem::find(hay, needle.as_bytes()).is_some()
}

/// The first non-blank byte after an optional UTF-8 BOM.
fn first_byte(bytes: &[u8]) -> Option<u8> {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    b.iter().copied().find(|c| !c.is_ascii_whitespace())
}

/// The first non-empty line, trimmed.
fn first_line(bytes: &[u8]) -> &[u8] {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    b.split(|&c| c == b'\n')
        .map(|l| l.trim_ascii())
        .find(|l| !l.is_empty())
        .unwrap_or(&[])
}

/// Whether the bytes may be text: no NUL in the first 8 KiB (the parsers check the rest
/// and refuse binary data with a reason).
fn is_text(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_none()
}

/// The kind of the file at `rel` holding `bytes`, among the built-in formats.
pub fn sniff(rel: &str, bytes: &[u8]) -> (Kind, By) {
    sniff_with(rel, bytes, &[])
}

/// The kind of the file at `rel` holding `bytes`: the first format of the registry
/// whose content rule recognises it, then a suite's own formats (`extra`); else the
/// first whose path rule does, built-in before a suite's own; else a `.json` is fio's
/// (storage and SPDK results are fio JSON by the procedures' layouts: a broken one is
/// reported as the fio file it should be) and anything else text.
pub fn sniff_with(rel: &str, bytes: &[u8], extra: &[&Format]) -> (Kind, By) {
    if let Some(k) = by_content(rel, bytes, extra) {
        return (k, By::Content);
    }
    let path = PathOf::new(rel);
    let mut formats = FORMATS.iter().chain(extra.iter().copied());
    let kind = match formats.find(|f| (f.path)(&path)) {
        Some(f) => f.kind,
        None if path.name.ends_with(".json") => Kind::Fio,
        None => Kind::Text,
    };
    (kind, By::Path)
}

/// Source code and documents quote log lines and JSON keys; they are never results.
const NOT_RESULTS: &[&str] = &[
    ".py", ".md", ".sh", ".rs", ".yaml", ".yml", ".toml", ".j2", ".typ", ".html", ".svg",
];

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

fn by_content(rel: &str, bytes: &[u8], extra: &[&Format]) -> Option<Kind> {
    if bytes.is_empty() || !is_text(bytes) {
        return None;
    }
    let name = layout::file_name(rel).to_ascii_lowercase();
    let head = &bytes[..bytes.len().min(64 * 1024)];
    if NOT_RESULTS.iter().any(|ext| name.ends_with(ext)) {
        // A compose file is the one document a reference-setup table reads.
        let compose = (name.ends_with(".yaml") || name.ends_with(".yml"))
            && crate::parse::host::compose::looks_like(
                &name,
                &String::from_utf8_lossy(&bytes[..bytes.len().min(16 * 1024)]),
            );
        return Some(if compose { Kind::Host } else { Kind::Text });
    }
    let first = first_byte(bytes)?;
    let h = Head {
        rel,
        name,
        bytes,
        head,
        json: first == b'{' || first == b'[',
        first,
        quoted: memchr::memchr(b'"', head).is_some(),
        line1: first_line(head),
    };
    FORMATS
        .iter()
        .chain(extra.iter().copied())
        .find(|f| (f.content)(&h))
        .map(|f| f.kind)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(rel: &str, text: &str) -> Kind {
        sniff(rel, text.as_bytes()).0
    }

    #[test]
    fn content_decides_before_the_name() {
        let fio = "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : []\n}\n";
        assert_eq!(kind("anything.out", fio), Kind::Fio);
        assert_eq!(
            kind("notes.txt", &format!("fio: warning\n{fio}")),
            Kind::Fio
        );
        let iostat = "Linux 6.1.0 (host) \t11/30/26 \t_x86_64_\t(2 CPU)\n\navg-cpu:  %user\n";
        assert_eq!(kind("raid10/iostat/x.log", iostat), Kind::Iostat);
        assert_eq!(
            kind("m.txt", "# HELP vllm:x help\nvllm:x 1\n"),
            Kind::Prometheus
        );
        assert_eq!(
            kind("a.txt", "time 2.5 s  {\"prompt_tokens\":1,\"cached\":0}\n"),
            Kind::Ask
        );
        assert_eq!(
            kind("level.json", "[{\"ttft_ms\": 1.0}]"),
            Kind::ClientRecords
        );
        assert_eq!(
            kind("x.json", "{\"results\": [{\"core_mask\": \"0x1\"}]}"),
            Kind::Bdevperf
        );
        assert_eq!(
            kind(
                "x.json",
                "[{\"raid_level\": \"raid5f\", \"num_base_bdevs\": 8}]"
            ),
            Kind::RaidState
        );
        assert_eq!(kind("c.json", "{\"subsystems\": []}"), Kind::SpdkConfig);
        assert_eq!(
            kind("s.json", "{\"sysstat\": {\"hosts\": []}}"),
            Kind::Iostat
        );
        assert_eq!(
            kind(
                "v.log",
                "INFO 11-29 10:00:01 [api_server.py:1831] vLLM API server version 0.28.0\n"
            ),
            Kind::ServerLog
        );
        assert_eq!(
            kind("c.log", "x [INFO] - GenConvArgs(num_conversations=24)\n"),
            Kind::ClientLog
        );
    }

    #[test]
    fn the_path_decides_when_the_content_cannot() {
        assert_eq!(
            sniff("raid10/iostat/x.iostat", b""),
            (Kind::Iostat, By::Path)
        );
        assert_eq!(
            sniff("raid10/x.json", b"{\"jobs\": [ {"),
            (Kind::Fio, By::Path)
        );
        assert_eq!(
            sniff("results/adp-1-L8.json", b"[{\"ttft"),
            (Kind::ClientRecords, By::Path)
        );
        assert_eq!(
            sniff("results/adp-1-L8.log", b""),
            (Kind::ClientLog, By::Path)
        );
        assert_eq!(
            sniff("results/adp-1-L8.pre.prom", b"\x00\x01"),
            (Kind::Prometheus, By::Path)
        );
        assert_eq!(sniff("restore/adp.txt", b"nothing"), (Kind::Ask, By::Path));
        assert_eq!(
            sniff("system/lsblk.txt", b"NAME SIZE"),
            (Kind::Text, By::Path)
        );
        assert_eq!(
            sniff("manifest.json", b"{\"model\": \"x\"}").0,
            Kind::Manifest
        );
    }
}
