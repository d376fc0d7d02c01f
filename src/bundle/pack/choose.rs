//! What goes in: the files the suites read, the evidence, what the procedures ask for
//! and what `--include` names, each read as text or opened as an archive, or left out
//! with the reason.

use anyhow::Context;

use crate::analysis::Analysis;
use crate::ingest::walk::{Entry, Folder};

use super::{BundleOptions, LeftOut, MAX_BUNDLED_FILE};
use crate::bundle::container::{self, Member};
use crate::bundle::encoding::{self, Decoded, Text};

/// Folders whose files the procedures ask support to receive.
const ASKED_FOLDERS: [&str; 3] = ["system", "compose", "logs"];

/// Why `e` goes into the bundle, if it does.
fn reason_to_include(e: &Entry, analysis: &Analysis, includes: &[glob::Pattern]) -> Option<String> {
    if let Some(why) = crate::ingest::layout::set_aside(&e.rel) {
        return Some(format!(
            "a run the collector set aside ({why}): kept as evidence, not a result"
        ));
    }
    for s in &analysis.suites {
        if s.files_read.contains(&e.rel) {
            return Some(format!("read by the {} suite", s.name));
        }
    }
    if let Some(k) = analysis.skipped.iter().find(|k| k.file == e.rel) {
        return Some(format!(
            "could not be read by the analysis ({}): kept as evidence",
            k.reason
        ));
    }
    let dirs: Vec<&str> = e.rel.split('/').collect();
    if let Some(d) = dirs[..dirs.len() - 1]
        .iter()
        .find(|d| ASKED_FOLDERS.contains(d))
    {
        return Some(format!("in `{d}/`, which the procedures ask for"));
    }
    let in_manifests = e.rel.split('/').next() == Some("manifests") && e.rel.ends_with(".json");
    if in_manifests || e.file_name() == "manifest.json" || e.file_name().ends_with(".manifest.json")
    {
        return Some("a collector's manifest: what ran".into());
    }
    includes
        .iter()
        .find(|p| p.matches(&e.rel))
        .map(|p| format!("--include {}", p.as_str()))
}

/// A chosen file between reading and writing.
pub(super) enum Content {
    Text(Text),
    /// A tar archive in the folder, opened: its members go back in, redacted.
    Tar {
        gzip: bool,
        members: Vec<Member>,
    },
    /// As it is (redaction off and not text).
    Raw(Vec<u8>),
}

pub(super) struct Pending {
    pub(super) rel: String,
    pub(super) why: String,
    pub(super) content: Content,
    pub(super) redactions: usize,
}

/// Reads one chosen file: text, an archive to open, or why it stays out.
fn read_chosen(e: &Entry, opts: &BundleOptions) -> Result<Content, String> {
    let size = std::fs::metadata(&e.path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_BUNDLED_FILE {
        return Err(format!(
            "{size} bytes: larger than the {} MiB a bundled file may be",
            MAX_BUNDLED_FILE >> 20
        ));
    }
    let bytes = std::fs::read(&e.path).map_err(|err| format!("cannot read: {err}"))?;
    match encoding::decode_file(&bytes) {
        Ok(Decoded::Text(t)) => Ok(Content::Text(t)),
        Ok(Decoded::Tar { .. }) if !opts.redact => Ok(Content::Raw(bytes)),
        Ok(Decoded::Tar { bytes: tar, gzip }) => container::open(&tar)
            .map(|members| Content::Tar { gzip, members })
            .map_err(|why| format!("{why}; left out whole (nothing goes in unread)")),
        Err(_) if !opts.redact => Ok(Content::Raw(bytes)),
        Err(reason) => Err(format!(
            "{reason}; left out unread (nothing goes in unredacted)"
        )),
    }
}

/// The folder's files that go into the bundle, read (as text, or as archives to open);
/// every other file goes to `left_out` with its reason.
pub(super) fn choose(
    folder: &Folder,
    analysis: &Analysis,
    opts: &BundleOptions,
    left_out: &mut Vec<LeftOut>,
) -> anyhow::Result<Vec<Pending>> {
    let globs = |list: &[String], flag: &str| {
        list.iter()
            .map(|g| glob::Pattern::new(g).with_context(|| format!("{flag} `{g}` is not a glob")))
            .collect::<anyhow::Result<Vec<_>>>()
    };
    let includes = globs(&opts.includes, "--include")?;
    let excludes = globs(&opts.excludes, "--exclude")?;
    let mut pending: Vec<Pending> = Vec::new();
    for e in &folder.files {
        if let Some(g) = excludes.iter().find(|g| g.matches(&e.rel)) {
            left_out.push(LeftOut {
                path: e.rel.clone(),
                reason: format!("left out with --exclude {}", g.as_str()),
            });
            continue;
        }
        let Some(why) = reason_to_include(e, analysis, &includes) else {
            left_out.push(LeftOut {
                path: e.rel.clone(),
                reason: "not read by any suite and not asked for by the procedures (add it with --include)".into(),
            });
            continue;
        };
        match read_chosen(e, opts) {
            Ok(content) => pending.push(Pending {
                rel: e.rel.clone(),
                why,
                content,
                redactions: 0,
            }),
            Err(reason) => left_out.push(LeftOut {
                path: e.rel.clone(),
                reason,
            }),
        }
    }
    Ok(pending)
}

/// A chosen file's bytes as they go into the bundle, and how they were written.
pub(super) fn encoded(content: Content, rel: &str) -> anyhow::Result<(Vec<u8>, String)> {
    Ok(match content {
        Content::Text(t) => (encoding::encode(&t), t.label()),
        Content::Tar { gzip, members } => {
            let packed = container::pack(&members).map_err(|e| anyhow::anyhow!("`{rel}`: {e}"))?;
            let n = members.len();
            if gzip {
                (
                    encoding::gzip(&packed),
                    format!("tar.gz of {n} members, each read as text"),
                )
            } else {
                (packed, format!("tar of {n} members, each read as text"))
            }
        }
        Content::Raw(raw) => (raw, "as it is (redaction off)".to_string()),
    })
}
