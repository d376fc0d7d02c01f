//! Writes a support bundle. What goes in is chosen, never swept: the files the suites read,
//! the files the analysis could not read (evidence too), what the procedures' "Report the
//! results" sections ask for (`system/`, `compose/`, `logs/`, collectors' manifests) and
//! what `--include` names. Every file is read as text whatever its encoding and redacted,
//! then checked again with the same detectors, or left out with the reason. The manifest
//! lists both, with the size and sha256 of every file; sorted entries and fixed times make
//! the same folder give the same bytes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::analysis::{analyze, analyze_catalog, Analysis};
use crate::ingest::walk::{Entry, Folder};
use crate::ingest::Catalog;
use crate::process::Runner;
use crate::render::report::{write_report, PdfChoice};
use crate::suites::Options;

use super::checklist::{self, Item};
use super::encoding::{self, Text};
use super::pseudonym::{self, Pseudonyms};
use super::redact;

pub struct BundleOptions<'a> {
    pub redact: bool,
    pub pseudonymize: bool,
    pub hosts: Vec<String>,
    /// Globs (relative to the folder) of files to add on purpose.
    pub includes: Vec<String>,
    /// Files (relative paths) that may go in although the check still finds a secret.
    pub allow_unredacted: Vec<String>,
    pub pdf: PdfChoice<'a>,
    pub judging: Options,
}

/// A results file larger than this does not go into a bundle.
pub const MAX_BUNDLED_FILE: u64 = 64 * 1024 * 1024;

/// One file chosen to go in, as it will leave the machine.
#[derive(Debug, Clone, Serialize)]
pub struct Chosen {
    pub path: String,
    /// Why it goes in.
    pub why: String,
    /// How it was read (`utf-8`, `latin-1 in gzip`, ...).
    pub encoding: String,
    pub redactions: usize,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// One file that stays behind, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftOut {
    pub path: String,
    pub reason: String,
}

/// What a bundle of this folder holds, before anything is written.
pub struct Plan {
    pub chosen: Vec<Chosen>,
    pub left_out: Vec<LeftOut>,
    pub pseudonyms: Option<Pseudonyms>,
    pub redactions: usize,
    /// Secrets the check still finds after redaction, per file, masked.
    pub unredacted: Vec<(String, Vec<String>)>,
}

pub struct Built {
    pub analysis: Analysis,
    pub checklist: Vec<Item>,
    pub plan: Plan,
    pub files: usize,
    /// Where the pseudonym mapping was written (beside the bundle, never inside).
    pub mapping: Option<PathBuf>,
}

#[derive(Serialize)]
struct FileEntry {
    path: String,
    size: u64,
    sha256: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    redactions: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
}

#[derive(Serialize)]
struct Manifest<'a> {
    format: &'static str,
    tool: String,
    input: String,
    redacted: bool,
    redactions: usize,
    pseudonyms: bool,
    summary: &'a crate::analysis::Summary,
    checklist: &'a [Item],
    files: Vec<FileEntry>,
    left_out: &'a [LeftOut],
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Folders whose files the procedures ask support to receive.
const ASKED_FOLDERS: [&str; 3] = ["system", "compose", "logs"];

/// Why `e` goes into the bundle, if it does.
fn reason_to_include(e: &Entry, analysis: &Analysis, includes: &[glob::Pattern]) -> Option<String> {
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
    if e.file_name().ends_with(".json.failed") || e.file_name().ends_with(".json.interrupted") {
        return Some(
            "a run the collector set aside (failed or interrupted): kept as evidence".into(),
        );
    }
    includes
        .iter()
        .find(|p| p.matches(&e.rel))
        .map(|p| format!("--include {}", p.as_str()))
}

/// Chooses, reads, redacts and checks every file; writes nothing.
pub fn plan(folder: &Folder, analysis: &Analysis, opts: &BundleOptions) -> anyhow::Result<Plan> {
    let includes = opts
        .includes
        .iter()
        .map(|g| glob::Pattern::new(g).with_context(|| format!("--include `{g}` is not a glob")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut left_out: Vec<LeftOut> = folder
        .problems
        .iter()
        .map(|p| LeftOut {
            path: p.file.clone(),
            reason: p.reason.clone(),
        })
        .collect();
    // 1. Chosen files, read as text.
    let mut texts: Vec<(String, String, Result<Text, Vec<u8>>)> = Vec::new();
    for e in &folder.files {
        let Some(why) = reason_to_include(e, analysis, &includes) else {
            left_out.push(LeftOut {
                path: e.rel.clone(),
                reason: "not read by any suite and not asked for by the procedures (add it with --include)".into(),
            });
            continue;
        };
        let size = std::fs::metadata(&e.path).map(|m| m.len()).unwrap_or(0);
        if size > MAX_BUNDLED_FILE {
            left_out.push(LeftOut {
                path: e.rel.clone(),
                reason: format!(
                    "{size} bytes: larger than the {} MiB a bundled file may be",
                    MAX_BUNDLED_FILE >> 20
                ),
            });
            continue;
        }
        let bytes = match std::fs::read(&e.path) {
            Ok(b) => b,
            Err(err) => {
                left_out.push(LeftOut {
                    path: e.rel.clone(),
                    reason: format!("cannot read: {err}"),
                });
                continue;
            }
        };
        match encoding::decode(&bytes) {
            Ok(t) => texts.push((e.rel.clone(), why, Ok(t))),
            Err(reason) if opts.redact => left_out.push(LeftOut {
                path: e.rel.clone(),
                reason: format!("{reason}; left out unread (nothing goes in unredacted)"),
            }),
            Err(_) => texts.push((e.rel.clone(), why, Err(bytes))),
        }
    }
    // 2. Redaction, then pseudonyms found across every file, then the check.
    let mut redactions = 0;
    let mut counts = BTreeMap::new();
    for (rel, _, t) in texts.iter_mut() {
        if let (true, Ok(t)) = (opts.redact, t) {
            let (text, n) = redact::redact(&t.text);
            t.text = text;
            redactions += n;
            counts.insert(rel.clone(), n);
        }
    }
    let mut pseudonyms = opts.pseudonymize.then(|| {
        let mut hosts = opts.hosts.clone();
        for (_, _, t) in &texts {
            if let Ok(t) = t {
                hosts.extend(pseudonym::find_hosts(&t.text));
            }
        }
        Pseudonyms::with_hosts(hosts)
    });
    let mut unredacted = Vec::new();
    let mut chosen = Vec::new();
    for (rel, why, t) in texts {
        let path = match pseudonyms.as_mut() {
            Some(p) => p.apply(&rel),
            None => rel.clone(),
        };
        // File names are not rewritten (the suites read them): a secret in one stops the
        // bundle like a secret left in a file.
        let in_name: Vec<String> = redact::find(&path)
            .iter()
            .map(|f| format!("in its name: {}", redact::masked(&path, f)))
            .collect();
        if opts.redact && !in_name.is_empty() && !opts.allow_unredacted.contains(&rel) {
            unredacted.push((redact::redact(&rel).0, in_name));
        }
        let (bytes, label) = match t {
            Ok(mut t) => {
                if let Some(p) = pseudonyms.as_mut() {
                    t.text = p.apply(&t.text);
                }
                if opts.redact {
                    let hits: Vec<String> = redact::find(&t.text)
                        .iter()
                        .map(|f| redact::masked(&t.text, f))
                        .collect();
                    if !hits.is_empty() && !opts.allow_unredacted.contains(&rel) {
                        unredacted.push((redact::redact(&rel).0, hits));
                    }
                }
                (encoding::encode(&t), t.label())
            }
            Err(raw) => (raw, "as it is (redaction off)".to_string()),
        };
        chosen.push(Chosen {
            path,
            why,
            encoding: label,
            redactions: counts.get(&rel).copied().unwrap_or(0),
            bytes,
        });
    }
    left_out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Plan {
        chosen,
        left_out,
        pseudonyms,
        redactions,
        unredacted,
    })
}

/// The plan as a person reads it, for `--dry-run` and errors.
pub fn describe(plan: &Plan) -> String {
    let mut s = format!("would go in ({} files):\n", plan.chosen.len());
    for c in &plan.chosen {
        s.push_str(&format!(
            "  {}  [{}; {} redacted] {}\n",
            c.path, c.encoding, c.redactions, c.why
        ));
    }
    s.push_str(&format!("left out ({} files):\n", plan.left_out.len()));
    for l in &plan.left_out {
        s.push_str(&format!("  {}  {}\n", l.path, l.reason));
    }
    s
}

pub fn build(
    input: &Path,
    out: &Path,
    opts: &BundleOptions,
    runner: &dyn Runner,
) -> anyhow::Result<Built> {
    let (folder, analysis) = survey(input, opts)?;
    let plan = plan(&folder, &analysis, opts)?;
    if !plan.unredacted.is_empty() {
        anyhow::bail!("{}", unredacted_message(&plan));
    }
    let mut entries: BTreeMap<String, Vec<u8>> = plan
        .chosen
        .iter()
        .map(|c| (format!("input/{}", c.path), c.bytes.clone()))
        .collect();
    // The report, made from exactly what is in the bundle.
    let staged = tempfile::Builder::new()
        .prefix("reprobench-stage-")
        .tempdir()?;
    for (path, bytes) in &entries {
        let dest = staged.path().join(path);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&dest, bytes)?;
    }
    let staged_input = staged.path().join("input");
    std::fs::create_dir_all(&staged_input)?;
    let mut analysis = analyze(&staged_input, &opts.judging)?;
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    analysis.input = name.clone();
    let report_dir = staged.path().join("report");
    std::fs::create_dir_all(&report_dir)?;
    let written = write_report(&analysis, &report_dir, &opts.pdf, runner)?;
    for f in written.files {
        let rel = f
            .strip_prefix(staged.path())
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        entries.insert(rel, std::fs::read(&f)?);
    }
    let staged_folder = Folder::scan(&staged_input)?;
    let items = checklist::checklist(&staged_folder, &analysis);
    entries.insert(
        "CHECKLIST.md".into(),
        checklist::markdown(&items).into_bytes(),
    );
    let by_path: BTreeMap<String, &Chosen> = plan
        .chosen
        .iter()
        .map(|c| (format!("input/{}", c.path), c))
        .collect();
    let files: Vec<FileEntry> = entries
        .iter()
        .map(|(path, bytes)| {
            let c = by_path.get(path);
            FileEntry {
                path: path.clone(),
                size: bytes.len() as u64,
                sha256: hex(&Sha256::digest(bytes)),
                redactions: c.map(|c| c.redactions),
                encoding: c.map(|c| c.encoding.clone()),
                why: c.map(|c| c.why.clone()),
            }
        })
        .collect();
    let manifest = Manifest {
        format: "reprobench-bundle/2",
        tool: analysis.tool.clone(),
        input: name,
        redacted: opts.redact,
        redactions: plan.redactions,
        pseudonyms: plan.pseudonyms.is_some(),
        summary: &analysis.summary,
        checklist: &items,
        files,
        left_out: &plan.left_out,
    };
    entries.insert(
        "manifest.json".into(),
        serde_json::to_vec_pretty(&manifest)?,
    );
    write_archive(out, &entries)?;
    let mapping = match &plan.pseudonyms {
        Some(p) if !p.map.is_empty() => {
            let path = PathBuf::from(format!("{}.pseudonyms.json", out.display()));
            std::fs::write(&path, serde_json::to_vec_pretty(&p.map)?)
                .with_context(|| format!("failed to write `{}`", path.display()))?;
            Some(path)
        }
        _ => None,
    };
    Ok(Built {
        files: entries.len(),
        analysis,
        checklist: items,
        plan,
        mapping,
    })
}

/// The folder and its analysis, which decides what the suites read.
pub fn survey(input: &Path, opts: &BundleOptions) -> anyhow::Result<(Folder, Analysis)> {
    let folder =
        Folder::scan(input).with_context(|| format!("cannot read `{}`", input.display()))?;
    // One walk: the listing the bundle chooses from is the one the analysis read.
    let catalog = Catalog::ingest(folder.clone());
    let analysis = analyze_catalog(input, &catalog, &opts.judging)?;
    Ok((folder, analysis))
}

pub fn unredacted_message(plan: &Plan) -> String {
    let mut s = String::from(
        "refused to write the bundle: after redaction the check still finds secrets in",
    );
    for (file, hits) in &plan.unredacted {
        s.push_str(&format!("\n  `{file}`: {}", hits.join("; ")));
    }
    s.push_str(
        "\nRemove them from the folder, or let a file go in as it is with --allow-unredacted FILE.",
    );
    s
}

/// A gzip'd tar with sorted entries, mtime 0, uid/gid 0 and fixed modes.
pub fn write_archive(out: &Path, entries: &BTreeMap<String, Vec<u8>>) -> anyhow::Result<()> {
    let file = std::fs::File::create(out)
        .with_context(|| format!("failed to create `{}`", out.display()))?;
    let gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    for (path, bytes) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        h.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut h, path, bytes.as_slice())
            .with_context(|| format!("failed to add `{path}` to the bundle"))?;
    }
    let gz = tar
        .into_inner()
        .context("failed to finish the tar archive")?;
    let mut file = gz.finish().context("failed to finish the gzip stream")?;
    file.flush()?;
    Ok(())
}
