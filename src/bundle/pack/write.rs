//! Writes the bundle: the report and checklist made from exactly what goes in, the
//! manifest, the check on what the bundle made itself, and the deterministic tarball.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::analysis::{analyze, Analysis};
use crate::ingest::walk::Folder;
use crate::process::Runner;
use crate::render::report::write_report;

use super::redaction::check;
use super::{
    exclude_glob, hex, plan, survey, unredacted_message, Built, BundleOptions, Chosen, LeftOut,
    Plan,
};
use crate::bundle::redact;
use crate::checklist::{self, Item};

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
    let (analysis, name) = report_of_the_bundle(input, staged.path(), &mut entries, opts, runner)?;
    let staged_input = staged.path().join("input");
    let staged_folder = Folder::scan(&staged_input)?;
    let items = analysis.checklist(&staged_folder);
    entries.insert(
        "CHECKLIST.md".into(),
        checklist::markdown(&items).into_bytes(),
    );
    let files = file_entries(&entries, &plan);
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
    if opts.redact {
        second_check(&entries, &opts.allow_unredacted)?;
    }
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

/// The report and checklist's analysis, made from exactly what is in the bundle: the
/// chosen files staged under `staged/input`, analyzed, the report written under
/// `staged/report` and added to `entries`. The analysis, and the input's name as it
/// leaves (redacted).
fn report_of_the_bundle(
    input: &Path,
    staged: &Path,
    entries: &mut BTreeMap<String, Vec<u8>>,
    opts: &BundleOptions,
    runner: &dyn Runner,
) -> anyhow::Result<(Analysis, String)> {
    for (path, bytes) in entries.iter() {
        let dest = staged.join(path);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&dest, bytes)?;
    }
    let staged_input = staged.join("input");
    std::fs::create_dir_all(&staged_input)?;
    let mut analysis = analyze(&staged_input, &opts.judging)?;
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    let name = if opts.redact {
        redact::redact(&name).0
    } else {
        name
    };
    analysis.input = name.clone();
    let report_dir = staged.join("report");
    std::fs::create_dir_all(&report_dir)?;
    let written = write_report(&analysis, &report_dir, &opts.pdf, runner)?;
    for f in written.files {
        let rel = f
            .strip_prefix(staged)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        entries.insert(rel, std::fs::read(&f)?);
    }
    Ok((analysis, name))
}

/// Each file of the bundle as the manifest lists it: size, sha256, and for a chosen input
/// file its redactions, encoding and why it is in.
fn file_entries(entries: &BTreeMap<String, Vec<u8>>, plan: &Plan) -> Vec<FileEntry> {
    let by_path: BTreeMap<String, &Chosen> = plan
        .chosen
        .iter()
        .map(|c| (format!("input/{}", c.path), c))
        .collect();
    entries
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
        .collect()
}

/// What the bundle made itself (the report's Markdown, its Typst source, plots, the
/// checklist, the manifest), checked like the inputs before anything is written: nothing
/// that leaves is made from text the check would stop.
fn second_check(entries: &BTreeMap<String, Vec<u8>>, allowed: &[String]) -> anyhow::Result<()> {
    let mut found = Vec::new();
    for (path, bytes) in entries {
        if path.starts_with("input/") || path.ends_with(".pdf") {
            continue;
        }
        let hits = check(&String::from_utf8_lossy(bytes));
        if !hits.is_empty() {
            found.push((path.clone(), hits));
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    let mut s = String::from(
        "refused to write the bundle: the files it made itself still hold what looks like a secret:",
    );
    for (file, hits) in found {
        s.push_str(&format!("\n  `{file}`: {}", hits.join("; ")));
    }
    // Names and left-out entries were checked (and withheld) before: what is left came
    // from an input's content that the report or the checklist quotes.
    if allowed.is_empty() {
        s.push_str("\nIt is quoted from an input whose redaction the check disagrees with: `reprobench bundle --dry-run` lists every file going in; leave the one that holds it out with --exclude GLOB.");
    } else {
        s.push_str(&format!(
            "\nIt is quoted from an input let in with --allow-unredacted ({}): leave that file out with --exclude GLOB instead.",
            allowed.iter().map(|a| format!("`{}`", exclude_glob(a))).collect::<Vec<_>>().join(", ")
        ));
    }
    anyhow::bail!(s)
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
