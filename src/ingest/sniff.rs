//! What a file is: decided by its content first (the bytes say fio, bdevperf, iostat,
//! Prometheus, a vLLM log ...), by its path only when the content says nothing (an empty,
//! cut or binary file is still the `.iostat` log it is named as, so its problem is
//! reported by the suite that wanted it).

use serde::Serialize;

use super::format::{Format, FORMATS};
use super::layout;
use super::rules::{Head, PathOf};

pub use super::format::Kind;

/// How a file's kind was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum By {
    Content,
    Path,
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
/// reported as the fio file it should be) and anything else text, or binary data when
/// its first bytes are not text.
pub fn sniff_with(rel: &str, bytes: &[u8], extra: &[&Format]) -> (Kind, By) {
    if let Some(k) = by_content(rel, bytes, extra) {
        return (k, By::Content);
    }
    let path = PathOf::new(rel);
    let mut formats = FORMATS.iter().chain(extra.iter().copied());
    let kind = match formats.find(|f| (f.path)(&path)) {
        Some(f) => f.kind,
        None if path.name.ends_with(".json") => Kind::Fio,
        None if crate::parse::text::TextCheck::of(bytes).is_err() => Kind::Binary,
        None => Kind::Text,
    };
    (kind, By::Path)
}

/// Source code and documents quote log lines and JSON keys; they are never results.
const NOT_RESULTS: &[&str] = &[
    ".py", ".md", ".sh", ".rs", ".yaml", ".yml", ".toml", ".j2", ".typ", ".html", ".svg",
];

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
                &crate::parse::text::lossy(&bytes[..bytes.len().min(16 * 1024)]),
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
            sniff("notes/chart.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            (Kind::Binary, By::Path)
        );
        assert_eq!(
            sniff("blob.bin", &[1, 2, 3, 4, 5, 6]),
            (Kind::Binary, By::Path)
        );
        assert_eq!(
            sniff("notes.txt", b"tab\tand \x1b[1mbold\x1b[0m\n").0,
            Kind::Text
        );
        assert_eq!(
            sniff("manifest.json", b"{\"model\": \"x\"}").0,
            Kind::Manifest
        );
    }
}
