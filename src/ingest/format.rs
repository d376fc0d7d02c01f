//! The formats registry: every kind of file the suites read, each entry one rule that
//! recognises it by its content, one that recognises it by its path, and its parser.
//! A suite with a format of its own adds entries through [`crate::suites::Suite::formats`];
//! nothing else in ingest changes.

use serde::Serialize;

use super::rules::{self, Head, PathOf};
use super::Record;
use crate::error::Problem;
use crate::parse;

/// A kind of file: an id (kebab-case, as it serializes) and the label the terminal uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind {
    id: &'static str,
    label: &'static str,
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

impl Kind {
    /// A kind of file a suite of its own defines (its entry in [`Format`]).
    pub const fn new(id: &'static str, label: &'static str) -> Kind {
        Kind { id, label }
    }

    pub fn id(self) -> &'static str {
        self.id
    }

    pub fn label(self) -> &'static str {
        self.label
    }
}

/// The built-in kinds, named as the variants of the enum they once were, so that a
/// `match` on them reads the same.
#[allow(non_upper_case_globals)]
impl Kind {
    /// fio's JSON (`--output-format=json` or `json+`, fio 2.x or 3.x, client/server).
    pub const Fio: Kind = Kind::new("fio", "fio JSON");
    /// SPDK's bdevperf results (`bdevperf.py perform_tests`).
    pub const Bdevperf: Kind = Kind::new("bdevperf", "bdevperf results");
    /// An SPDK JSON config (`subsystems`).
    pub const SpdkConfig: Kind = Kind::new("spdk-config", "an SPDK JSON config");
    /// `rpc.py bdev_raid_get_bdevs` output.
    pub const RaidState: Kind = Kind::new("raid-state", "bdev_raid_get_bdevs output");
    /// The multi-turn client's per-request records (`--stats-json-output`).
    pub const ClientRecords: Kind =
        Kind::new("client-records", "the multi-turn client's request records");
    /// Prometheus text (vLLM's `/metrics`).
    pub const Prometheus: Kind = Kind::new("prometheus", "a Prometheus /metrics snapshot");
    /// A `/metrics` time series (`# scrape <time>` blocks), as the ladder collector keeps
    /// it during each level.
    pub const PromSeries: Kind = Kind::new("prom-series", "a /metrics time series");
    /// `iostat -x` output, text or sysstat's JSON.
    pub const Iostat: Kind = Kind::new("iostat", "an iostat log");
    /// `nvidia-smi --query-gpu=... --format=csv -l 1`, as the ladder collector keeps it.
    pub const GpuSeries: Kind = Kind::new("gpu-series", "an nvidia-smi time series");
    /// fio's bandwidth log (`--write_bw_log`): `<job>_bw.log`, `<job>_bw.<N>.log`.
    pub const FioLog: Kind = Kind::new("fio-log", "a fio bandwidth log");
    /// A vLLM server's log.
    pub const ServerLog: Kind = Kind::new("server-log", "a vLLM server log");
    /// The ADP gateway's log.
    pub const GatewayLog: Kind = Kind::new("gateway-log", "a gateway log");
    /// The multi-turn client's log.
    pub const ClientLog: Kind = Kind::new("client-log", "the multi-turn client's log");
    /// `ask` transcripts (or a saved completions response).
    pub const Ask: Kind = Kind::new("ask", "an `ask` transcript");
    /// A collector's (or a hand-written) manifest.
    pub const Manifest: Kind = Kind::new("manifest", "a manifest");
    /// Valid JSON of no shape a suite reads.
    pub const OtherJson: Kind = Kind::new("other-json", "JSON");
    /// A host program's output or a compose file (`nvidia-smi`, `nvme list`,
    /// `ib_read_bw`, `lscpu`, ...): what the reference-setup tables compare.
    pub const Host: Kind = Kind::new("host", "a host output");
    /// Text no suite reads (notes, other outputs).
    pub const Text: Kind = Kind::new("text", "text");
    /// Bytes that are not text (an image, an archive, a core dump): no suite reads them.
    pub const Binary: Kind = Kind::new("binary", "binary data");
}

/// One format: how a file is recognised as it, and how it is read.
pub struct Format {
    pub kind: Kind,
    /// Whether the file's first bytes say it is this format. Tried in registry order
    /// (the first that answers wins) on text that is not source code or a document.
    pub content: fn(&Head) -> bool,
    /// Whether the file's path says so, when no format recognised its content.
    pub path: fn(&PathOf) -> bool,
    /// The file's record, or why it cannot be read as this format.
    pub parse: fn(&str, &[u8]) -> Result<Record, Problem>,
}

/// A format no path names (or whose content alone says what it is).
pub fn no_path(_: &PathOf) -> bool {
    false
}

/// A format no content rule recognises (it is only ever given by a rule of ingest).
pub fn no_content(_: &Head) -> bool {
    false
}

/// The built-in formats, in the order their content rules are tried.
pub static FORMATS: &[Format] = &[
    Format {
        kind: Kind::Manifest,
        content: rules::manifest,
        path: rules::manifest_path,
        parse: json,
    },
    Format {
        kind: Kind::Fio,
        content: rules::fio,
        // A `.json` no other rule places is fio's (`sniff.rs` says why).
        path: no_path,
        parse: fio,
    },
    Format {
        kind: Kind::SpdkConfig,
        content: rules::spdk_config,
        path: no_path,
        parse: json,
    },
    Format {
        kind: Kind::RaidState,
        content: rules::raid_state,
        path: no_path,
        parse: json,
    },
    Format {
        kind: Kind::Bdevperf,
        content: rules::bdevperf,
        path: no_path,
        parse: |_, b| Ok(Record::Bdevperf(parse::bdevperf::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::Iostat,
        content: rules::iostat,
        path: rules::iostat_path,
        parse: |_, b| Ok(Record::Iostat(parse::iostat::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::ClientRecords,
        content: rules::client_records,
        path: rules::client_records_path,
        parse: |_, b| Ok(Record::ClientRecords(parse::mt_records::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::GpuSeries,
        content: rules::gpu_series,
        path: rules::gpu_series_path,
        parse: |_, b| Ok(Record::GpuSeries(parse::gpu_csv::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::FioLog,
        content: rules::fio_log,
        path: rules::fio_log_path,
        parse: |_, b| Ok(Record::FioLog(parse::fio_log::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::PromSeries,
        content: rules::prom_series,
        path: rules::prom_series_path,
        parse: |_, b| Ok(Record::PromSeries(parse::prom_series::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::Prometheus,
        content: rules::prometheus,
        path: rules::prometheus_path,
        parse: |_, b| Ok(Record::Prometheus(parse::prom::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::Ask,
        content: rules::ask,
        path: rules::ask_path,
        parse: |_, b| Ok(Record::Ask(parse::ask::parse_bytes(b)?)),
    },
    Format {
        kind: Kind::ClientLog,
        content: rules::client_log,
        path: rules::client_log_path,
        parse: |_, b| Ok(Record::ClientLog(parse::client_log::parse_text(&text(b)?))),
    },
    Format {
        kind: Kind::GatewayLog,
        content: rules::gateway_log,
        path: rules::gateway_log_path,
        parse: |_, b| {
            Ok(Record::GatewayLog(parse::gateway_log::parse_text(&text(
                b,
            )?)))
        },
    },
    Format {
        kind: Kind::ServerLog,
        content: rules::server_log,
        path: rules::server_log_path,
        parse: |_, b| {
            Ok(Record::ServerLog(Box::new(parse::vllm_log::parse_text(
                &text(b)?,
            ))))
        },
    },
    Format {
        kind: Kind::Host,
        content: rules::host,
        path: no_path,
        parse: host,
    },
    Format {
        kind: Kind::OtherJson,
        content: no_content,
        path: no_path,
        parse: unread,
    },
    Format {
        kind: Kind::Text,
        content: no_content,
        path: no_path,
        parse: unread,
    },
    Format {
        kind: Kind::Binary,
        content: no_content,
        path: no_path,
        parse: unread,
    },
];

/// The format of `kind`: a built-in one, or one of `extra` (a suite's own).
pub fn of<'a>(kind: Kind, extra: &[&'a Format]) -> Option<&'a Format> {
    FORMATS
        .iter()
        .chain(extra.iter().copied())
        .find(|f| f.kind == kind)
}

fn unread(_: &str, _: &[u8]) -> Result<Record, Problem> {
    Ok(Record::Unread)
}

fn fio(_: &str, bytes: &[u8]) -> Result<Record, Problem> {
    let mut output = parse::fio::parse_bytes(bytes)?;
    let groups = crate::fio::groups::groups(&output);
    // The groups hold what the histograms gave; the catalog keeps no bins.
    output.drop_bins();
    Ok(Record::Fio(Box::new(super::FioRecord { output, groups })))
}

fn host(rel: &str, bytes: &[u8]) -> Result<Record, Problem> {
    let head = crate::parse::text::lossy(&bytes[..bytes.len().min(16 * 1024)]);
    let name = super::layout::file_name(rel).to_ascii_lowercase();
    Ok(match parse::host::detect(&name, &head) {
        Some(format) => Record::Host(Box::new(parse::host::parse_bytes(format, bytes)?)),
        None => Record::Unread,
    })
}

/// SPDK configs, `bdev_raid_get_bdevs` output and manifests: small JSON documents read
/// as they are.
fn json(_: &str, bytes: &[u8]) -> Result<Record, Problem> {
    Ok(Record::Json(json_value(bytes)?))
}

pub(super) fn json_value(bytes: &[u8]) -> Result<serde_json::Value, Problem> {
    parse::text::TextCheck::of(bytes)?;
    serde_json::from_slice(bytes)
        .map_err(|e| Problem::at(e.line().max(1), parse::text::json_problem(&e, "document")))
}

/// The bytes as text, refused when they are binary.
pub fn text(bytes: &[u8]) -> Result<String, Problem> {
    parse::text::TextCheck::of(bytes)?;
    Ok(crate::parse::text::lossy(bytes).into_owned())
}
