//! What a file is: decided by its content first (the bytes say fio, bdevperf, iostat,
//! Prometheus, a vLLM log ...), by its path only when the content says nothing (an empty,
//! cut or binary file is still the `.iostat` log it is named as, so its problem is
//! reported by the suite that wanted it).

use memchr::memmem;
use serde::Serialize;

use super::layout;

/// The kinds of file the suites read, and the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// fio's JSON (`--output-format=json` or `json+`, fio 2.x or 3.x, client/server).
    Fio,
    /// SPDK's bdevperf results (`bdevperf.py perform_tests`).
    Bdevperf,
    /// An SPDK JSON config (`subsystems`).
    SpdkConfig,
    /// `rpc.py bdev_raid_get_bdevs` output.
    RaidState,
    /// The multi-turn client's per-request records (`--stats-json-output`).
    ClientRecords,
    /// Prometheus text (vLLM's `/metrics`).
    Prometheus,
    /// A `/metrics` time series (`# scrape <time>` blocks), as the ladder collector
    /// keeps it during each level.
    PromSeries,
    /// `iostat -x` output, text or sysstat's JSON.
    Iostat,
    /// `nvidia-smi --query-gpu=... --format=csv -l 1`, as the ladder collector keeps it.
    GpuSeries,
    /// fio's bandwidth log (`--write_bw_log`): `<job>_bw.log`, `<job>_bw.<N>.log`.
    FioLog,
    /// A vLLM server's log.
    ServerLog,
    /// The ADP gateway's log.
    GatewayLog,
    /// The multi-turn client's log.
    ClientLog,
    /// `ask` transcripts (or a saved completions response).
    Ask,
    /// A collector's (or a hand-written) manifest.
    Manifest,
    /// Valid JSON of no shape a suite reads.
    OtherJson,
    /// A host program's output or a compose file (`nvidia-smi`, `nvme list`,
    /// `ib_read_bw`, `lscpu`, ...): what the reference-setup tables compare.
    Host,
    /// Text no suite reads (notes, other outputs).
    Text,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Fio => "fio JSON",
            Kind::Bdevperf => "bdevperf results",
            Kind::SpdkConfig => "an SPDK JSON config",
            Kind::RaidState => "bdev_raid_get_bdevs output",
            Kind::ClientRecords => "the multi-turn client's request records",
            Kind::Prometheus => "a Prometheus /metrics snapshot",
            Kind::PromSeries => "a /metrics time series",
            Kind::Iostat => "an iostat log",
            Kind::FioLog => "a fio bandwidth log",
            Kind::GpuSeries => "an nvidia-smi time series",
            Kind::ServerLog => "a vLLM server log",
            Kind::GatewayLog => "a gateway log",
            Kind::ClientLog => "the multi-turn client's log",
            Kind::Ask => "an `ask` transcript",
            Kind::Manifest => "a manifest",
            Kind::OtherJson => "JSON",
            Kind::Host => "a host output",
            Kind::Text => "text",
        }
    }
}

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

/// The kind of the file at `rel` holding `bytes`.
pub fn sniff(rel: &str, bytes: &[u8]) -> (Kind, By) {
    match by_content(rel, bytes) {
        Some(k) => (k, By::Content),
        None => (by_path(rel), By::Path),
    }
}

/// Source code and documents quote log lines and JSON keys; they are never results.
const NOT_RESULTS: &[&str] = &[
    ".py", ".md", ".sh", ".rs", ".yaml", ".yml", ".toml", ".j2", ".typ", ".html", ".svg",
];

fn by_content(rel: &str, bytes: &[u8]) -> Option<Kind> {
    if bytes.is_empty() || !is_text(bytes) {
        return None;
    }
    let name = layout::file_name(rel).to_ascii_lowercase();
    let head_text = || String::from_utf8_lossy(&bytes[..bytes.len().min(16 * 1024)]).into_owned();
    if (name.ends_with(".yaml") || name.ends_with(".yml"))
        && crate::parse::host::compose::looks_like(&name, &head_text())
    {
        return Some(Kind::Host);
    }
    if NOT_RESULTS.iter().any(|ext| name.ends_with(ext)) {
        return Some(Kind::Text);
    }
    let first = first_byte(bytes)?;
    let json = first == b'{' || first == b'[';
    // Manifests are free-form JSON objects; their names say what they are.
    if json && layout::is_manifest(rel) {
        return Some(Kind::Manifest);
    }
    // The keys that say what a JSON document is come first in it (fio writes `fio
    // version` first, in every shape: text before the JSON, several documents,
    // client/server `client_stats`; bdevperf its `results`): the head is enough. A file
    // whose document starts later is still placed by its path.
    let head = &bytes[..bytes.len().min(64 * 1024)];
    // Every key looked for below is quoted: a head without a `"` (an iostat log, most
    // text) holds none of them, found with one scan instead of one per key.
    let quoted = memchr::memchr(b'"', head).is_some();
    if quoted && (has(head, "\"fio version\"") || has(head, "\"client_stats\"")) {
        return Some(Kind::Fio);
    }
    if json && has(head, "\"subsystems\"") {
        return Some(Kind::SpdkConfig);
    }
    if json && has(head, "\"raid_level\"") && has(head, "\"num_base_bdevs\"") {
        return Some(Kind::RaidState);
    }
    if quoted
        && has(head, "\"results\"")
        && (has(head, "\"core_mask\"") || has(head, "\"io_failed\""))
    {
        return Some(Kind::Bdevperf);
    }
    if json && has(head, "\"sysstat\"") {
        return Some(Kind::Iostat);
    }
    if first == b'[' && has(head, "\"ttft_ms\"") {
        return Some(Kind::ClientRecords);
    }
    if json && has(bytes, "\"usage\"") && has(bytes, "\"prompt_tokens\"") {
        return Some(Kind::Ask);
    }
    if json {
        // Another shape of JSON, or a broken file the path may still place.
        return None;
    }
    let line1 = first_line(head);
    if line1.starts_with(b"Linux") && (has(head, "avg-cpu") || has(head, "Device")) {
        return Some(Kind::Iostat);
    }
    if crate::parse::gpu_csv::is_header(&String::from_utf8_lossy(line1)) {
        return Some(Kind::GpuSeries);
    }
    if crate::parse::fio_log::job_of(&name).is_some() && is_fio_log_line(line1) {
        return Some(Kind::FioLog);
    }
    if line1.starts_with(crate::parse::prom_series::MARKER.as_bytes()) {
        return Some(Kind::PromSeries);
    }
    if is_prometheus(head) {
        return Some(Kind::Prometheus);
    }
    if is_ask(head) {
        return Some(Kind::Ask);
    }
    // Logs say what they are in their first lines (the client's arguments, vLLM's
    // version and arguments); later lines are not looked at.
    if is_client_log(head) {
        return Some(Kind::ClientLog);
    }
    if name.contains("gateway") {
        return Some(Kind::GatewayLog);
    }
    if is_vllm_log(head) {
        return Some(Kind::ServerLog);
    }
    if crate::parse::host::detect(&name, &head_text()).is_some() {
        return Some(Kind::Host);
    }
    None
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

/// The kind a file's path gives it when its content says nothing.
fn by_path(rel: &str) -> Kind {
    let name = layout::file_name(rel).to_ascii_lowercase();
    if layout::is_manifest(rel) && name.ends_with(".json") {
        return Kind::Manifest;
    }
    if let Some((_, _, part)) = layout::ladder_file(rel) {
        return match part {
            layout::LadderPart::Records => Kind::ClientRecords,
            layout::LadderPart::Log => Kind::ClientLog,
            layout::LadderPart::Pre | layout::LadderPart::Post => Kind::Prometheus,
            layout::LadderPart::Series => Kind::PromSeries,
            layout::LadderPart::Gpus => Kind::GpuSeries,
        };
    }
    if name.ends_with(".iostat") {
        return Kind::Iostat;
    }
    if crate::parse::fio_log::job_of(&name).is_some() {
        return Kind::FioLog;
    }
    if name.ends_with(".prom") {
        return Kind::Prometheus;
    }
    if name.ends_with(".log") && name.contains("gateway") {
        return Kind::GatewayLog;
    }
    if name.ends_with(".log") && (name.contains("vllm") || name.contains("server")) {
        return Kind::ServerLog;
    }
    if layout::transcript_dir(rel).is_some() && (name.ends_with(".txt") || name.ends_with(".json"))
    {
        return Kind::Ask;
    }
    if name.ends_with(".json") {
        // Storage and SPDK results are fio JSON by the procedures' layouts: a broken one
        // is reported as the fio file it should be.
        return Kind::Fio;
    }
    Kind::Text
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
