//! Writes a support bundle: the redacted results, the report made from them, the checklist
//! and a manifest with the size and sha256 of every file; sorted entries, fixed times,
//! so the same folder gives the same bytes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::analysis::{analyze, Analysis};
use crate::folder::Folder;
use crate::process::Runner;
use crate::render::report::{write_report, PdfChoice};
use crate::suites::Options;

use super::checklist::{self, Item};
use super::redact::{self, Pseudonyms};

pub struct BundleOptions<'a> {
    pub redact: bool,
    pub pseudonymize: bool,
    pub hosts: Vec<String>,
    pub pdf: PdfChoice<'a>,
    pub judging: Options,
}

pub struct Built {
    pub analysis: Analysis,
    pub checklist: Vec<Item>,
    pub redactions: usize,
    pub files: usize,
    /// Where the pseudonym mapping was written (beside the bundle, never inside).
    pub mapping: Option<PathBuf>,
}

#[derive(Serialize)]
struct FileEntry {
    path: String,
    size: u64,
    sha256: String,
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
}

fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn build(
    input: &Path,
    out: &Path,
    opts: &BundleOptions,
    runner: &dyn Runner,
) -> anyhow::Result<Built> {
    let folder =
        Folder::scan(input).with_context(|| format!("cannot read `{}`", input.display()))?;
    // 1. The results as they will leave the machine: redacted, pseudonymized.
    let mut raw = Vec::with_capacity(folder.files.len());
    for e in &folder.files {
        let bytes = std::fs::read(&e.path)
            .with_context(|| format!("cannot read `{}`", e.path.display()))?;
        raw.push((e, bytes));
    }
    let mut pseudo = opts.pseudonymize.then(|| {
        let mut hosts = opts.hosts.clone();
        for (_, bytes) in raw.iter().filter(|(_, b)| is_text(b)) {
            hosts.extend(redact::find_hosts(&String::from_utf8_lossy(bytes)));
        }
        Pseudonyms::with_hosts(hosts)
    });
    let mut entries: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut redactions = 0;
    for (e, bytes) in raw {
        let bytes = if is_text(&bytes) {
            let mut text = String::from_utf8_lossy(&bytes).into_owned();
            if opts.redact {
                let (t, n) = redact::redact(&text);
                text = t;
                redactions += n;
            }
            if let Some(p) = pseudo.as_mut() {
                text = p.apply(&text);
            }
            text.into_bytes()
        } else {
            bytes
        };
        let rel = match pseudo.as_mut() {
            Some(p) => p.apply(&e.rel),
            None => e.rel.clone(),
        };
        entries.insert(format!("input/{rel}"), bytes);
    }
    // 2. The report, made from exactly what is in the bundle.
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
    // 3. The manifest, over every other file.
    let files: Vec<FileEntry> = entries
        .iter()
        .map(|(path, bytes)| FileEntry {
            path: path.clone(),
            size: bytes.len() as u64,
            sha256: hex(&Sha256::digest(bytes)),
        })
        .collect();
    let manifest = Manifest {
        format: "reprobench-bundle/1",
        tool: analysis.tool.clone(),
        input: name,
        redacted: opts.redact,
        redactions,
        pseudonyms: pseudo.is_some(),
        summary: &analysis.summary,
        checklist: &items,
        files,
    };
    entries.insert(
        "manifest.json".into(),
        serde_json::to_vec_pretty(&manifest)?,
    );
    write_archive(out, &entries)?;
    let mapping = match pseudo {
        Some(p) => {
            let path = PathBuf::from(format!("{}.pseudonyms.json", out.display()));
            std::fs::write(&path, serde_json::to_vec_pretty(&p.map)?)
                .with_context(|| format!("failed to write `{}`", path.display()))?;
            Some(path)
        }
        None => None,
    };
    Ok(Built {
        files: entries.len(),
        analysis,
        checklist: items,
        redactions,
        mapping,
    })
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
