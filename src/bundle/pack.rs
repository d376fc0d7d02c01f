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

use super::container::{self, Member};
use super::encoding::{self, Decoded, Text};
use super::pseudonym::{self, Pseudonyms};
use super::{redact, scan};
use crate::checklist::{self, Item};

pub struct BundleOptions<'a> {
    pub redact: bool,
    pub pseudonymize: bool,
    pub hosts: Vec<String>,
    /// Globs (relative to the folder) of files to add on purpose.
    pub includes: Vec<String>,
    /// Globs (relative to the folder) of files to leave out, whatever reads them.
    pub excludes: Vec<String>,
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

/// A file the check still finds a secret in after redaction, and how to go on.
#[derive(Debug, Clone)]
pub struct Unredacted {
    /// The file as it would leave (redacted, pseudonymized).
    pub path: String,
    /// What was found, masked (`in its name: line 1: …`).
    pub hits: Vec<String>,
    /// The flags that would let the bundle be written: `--exclude GLOB` always (a glob
    /// that shows none of what was redacted), `--allow-unredacted FILE` when the name is
    /// clean (the file's own name is then safe to print and to send).
    pub flags: Vec<String>,
}

/// What a bundle of this folder holds, before anything is written.
pub struct Plan {
    pub chosen: Vec<Chosen>,
    pub left_out: Vec<LeftOut>,
    pub pseudonyms: Option<Pseudonyms>,
    pub redactions: usize,
    /// Secrets the check still finds after redaction, per file, masked.
    pub unredacted: Vec<Unredacted>,
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
enum Content {
    Text(Text),
    /// A tar archive in the folder, opened: its members go back in, redacted.
    Tar {
        gzip: bool,
        members: Vec<Member>,
    },
    /// As it is (redaction off and not text).
    Raw(Vec<u8>),
}

struct Pending {
    rel: String,
    why: String,
    content: Content,
    redactions: usize,
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

/// Redacts a file's content in place; returns how many secrets went.
fn redact_content(rel: &str, content: &mut Content) -> usize {
    let mut n = 0;
    // The redactor, then what the independent check still finds, redacted in place too:
    // a value either pass flags goes, and a bundle is refused only for what cannot be
    // redacted where it stands.
    let mut text = |name: &str, t: &mut Text| {
        t.map(|s| {
            let (r, k) = redact::redact_file(name, s);
            let (r, k2) = scan::redact_found(&r);
            n += k + k2;
            r
        })
    };
    match content {
        Content::Text(t) => text(rel, t),
        Content::Tar { members, .. } => Member::visit_mut(members, &mut |name, t| {
            *name = clean_name(name);
            if let Some(t) = t {
                let member = name.clone();
                text(&member, t);
            }
        }),
        Content::Raw(_) => {}
    }
    n
}

/// A path as it may leave: redacted, then what the check still finds redacted too.
fn clean_name(name: &str) -> String {
    scan::redact_found(&redact::redact_name(name)).0
}

/// Every text of a file: (where, text), for pseudonyms and the check.
fn texts_of(rel: &str, content: &Content) -> Vec<(String, String)> {
    match content {
        Content::Text(t) => vec![(rel.to_string(), t.joined())],
        Content::Tar { members, .. } => {
            let mut out = Vec::new();
            Member::texts(members, rel, &mut out);
            out
        }
        Content::Raw(_) => Vec::new(),
    }
}

fn pseudonymize(p: &mut Pseudonyms, content: &mut Content) {
    match content {
        Content::Text(t) => t.map(|s| p.apply(s)),
        Content::Tar { members, .. } => Member::visit_mut(members, &mut |name, text| {
            *name = p.apply(name);
            if let Some(text) = text {
                text.map(|s| p.apply(s));
            }
        }),
        Content::Raw(_) => {}
    }
}

/// The independent check on one text: its hits as `line N: what`.
fn check(text: &str) -> Vec<String> {
    scan::scan(text)
        .into_iter()
        .map(|h| format!("line {}: {}", h.line, h.what))
        .collect()
}

/// Chooses, reads, redacts and checks every file; writes nothing.
pub fn plan(folder: &Folder, analysis: &Analysis, opts: &BundleOptions) -> anyhow::Result<Plan> {
    let mut left_out: Vec<LeftOut> = folder
        .problems
        .iter()
        .map(|p| LeftOut {
            path: p.file.clone(),
            reason: p.reason.clone(),
        })
        .collect();
    // 1. Chosen files, read as text (or as archives to open).
    let mut pending = choose(folder, analysis, opts, &mut left_out)?;
    // 2. Redaction, then pseudonyms found across every file, then the check.
    if opts.redact {
        for p in &mut pending {
            p.redactions = redact_content(&p.rel, &mut p.content);
        }
    }
    let redactions = pending.iter().map(|p| p.redactions).sum();
    let mut pseudonyms = opts.pseudonymize.then(|| {
        let mut hosts = opts.hosts.clone();
        for p in &pending {
            for (_, t) in texts_of(&p.rel, &p.content) {
                hosts.extend(pseudonym::find_hosts(&t));
            }
        }
        Pseudonyms::with_hosts(hosts)
    });
    // Names leave too: every path (in and out) is redacted and pseudonymized.
    let name = |rel: &str, pseudonyms: &mut Option<Pseudonyms>| {
        let n = if opts.redact {
            clean_name(rel)
        } else {
            rel.to_string()
        };
        match pseudonyms.as_mut() {
            Some(p) => p.apply(&n),
            None => n,
        }
    };
    for l in &mut left_out {
        l.path = name(&l.path, &mut pseudonyms);
        if opts.redact {
            withhold_if_secret(l);
        }
    }
    let mut unredacted = Vec::new();
    let mut chosen = Vec::new();
    for mut p in pending {
        let path = name(&p.rel, &mut pseudonyms);
        if let Some(ps) = pseudonyms.as_mut() {
            pseudonymize(ps, &mut p.content);
        }
        if opts.redact && !opts.allow_unredacted.contains(&p.rel) {
            unredacted.extend(still_secret(&p, &path));
        }
        let (bytes, label) = encoded(p.content, &p.rel)?;
        chosen.push(Chosen {
            path,
            why: p.why,
            encoding: label,
            redactions: p.redactions,
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

/// The folder's files that go into the bundle, read (as text, or as archives to open);
/// every other file goes to `left_out` with its reason.
fn choose(
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

/// A left-out file's name and reason leave in the manifest: redacted like any text, and
/// withheld when the check still finds a secret in them (the file stays behind either
/// way, so nothing the user could do would make the name safer).
fn withhold_if_secret(l: &mut LeftOut) {
    l.reason = scan::redact_found(&redact::redact(&l.reason).0).0;
    if !check(&l.path).is_empty() {
        l.path = withheld_name(&l.path);
    }
    if !check(&l.reason).is_empty() {
        l.reason = "(the reason is withheld: it still looks like a secret after redaction)".into();
    }
}

/// What the check still finds in a chosen file after redaction (in its name, as it
/// leaves, or in its text), with the flags that would let the bundle be written; None
/// when it finds nothing.
fn still_secret(p: &Pending, path: &str) -> Option<Unredacted> {
    let mut hits: Vec<String> = check(path)
        .into_iter()
        .map(|h| format!("in its name: {h}"))
        .collect();
    for (at, t) in texts_of(path, &p.content) {
        let prefix = if at == path {
            String::new()
        } else {
            format!("in `{at}`: ")
        };
        hits.extend(check(&t).into_iter().map(|h| format!("{prefix}{h}")));
    }
    if hits.is_empty() {
        return None;
    }
    let name_hit = hits.iter().any(|h| h.starts_with("in its name:"));
    let mut flags = vec![format!("--exclude '{}'", exclude_glob(&p.rel))];
    if !name_hit {
        flags.push(format!("--allow-unredacted '{}'", p.rel));
    }
    Some(Unredacted {
        path: path.to_string(),
        hits,
        flags,
    })
}

/// A chosen file's bytes as they go into the bundle, and how they were written.
fn encoded(content: Content, rel: &str) -> anyhow::Result<(Vec<u8>, String)> {
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

/// A name the check still stops after redaction, as it leaves: its folder (when that is
/// clean) and a digest of the name, so two withheld names stay apart.
fn withheld_name(path: &str) -> String {
    let digest = hex(&Sha256::digest(path.as_bytes()));
    let label = format!(
        "[name withheld: it still looks like a secret after redaction; sha256 {}]",
        &digest[..12]
    );
    match path.rsplit_once('/') {
        Some((dir, _)) if check(dir).is_empty() => format!("{dir}/{label}"),
        _ => label,
    }
}

/// A glob that matches `rel` and shows none of what redaction removes from it: the
/// redacted name with each redaction a `*`.
pub fn exclude_glob(rel: &str) -> String {
    redact::redact(rel)
        .0
        .split(redact::MARK)
        .map(glob::Pattern::escape)
        .collect::<Vec<_>>()
        .join("*")
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

/// The folder and its analysis, which decides what the suites read.
pub fn survey(input: &Path, opts: &BundleOptions) -> anyhow::Result<(Folder, Analysis)> {
    let folder =
        Folder::scan(input).with_context(|| format!("cannot read `{}`", input.display()))?;
    // One walk: the listing the bundle chooses from is the one the analysis read, with
    // the suites' own formats as analyze knows them.
    let formats: Vec<&crate::ingest::format::Format> = crate::suites::SUITES
        .iter()
        .flat_map(|s| s.formats())
        .collect();
    let catalog = Catalog::ingest_with(folder.clone(), &formats);
    let analysis = analyze_catalog(input, &catalog, &opts.judging)?;
    Ok((folder, analysis))
}

pub fn unredacted_message(plan: &Plan) -> String {
    let mut s = String::from(
        "refused to write the bundle: after redaction the check still finds secrets in",
    );
    for u in &plan.unredacted {
        s.push_str(&format!(
            "\n  `{}`: {}\n    to go on: {}",
            u.path,
            u.hits.join("; "),
            u.flags.join(", or ")
        ));
    }
    s.push_str(
        "\nNothing was written. Each file says how to go on: leave it out with --exclude (the glob shows none of what was redacted), or, when its name is clean, let it in as it is with --allow-unredacted.",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_withheld_name_keeps_a_clean_folder_and_trips_nothing() {
        let name = "notes/ghp_0123456789abcdefghijABCDEF.txt";
        assert!(!check(name).is_empty(), "the check stops the name itself");
        let w = withheld_name(name);
        assert!(w.starts_with("notes/[name withheld"), "{w}");
        assert!(check(&w).is_empty(), "{w}");
        assert_ne!(w, withheld_name("notes/ghp_0123456789abcdefghijABCDEG.txt"));
        let in_folder = withheld_name("ghp_0123456789abcdefghijABCDEF/x.txt");
        assert!(in_folder.starts_with("[name withheld"), "{in_folder}");
    }

    #[test]
    fn an_exclude_glob_matches_its_file_and_shows_nothing_redacted() {
        let rel =
            "dl/x.run?X-Amz-Date=20261129T091200Z&X-Amz-Signature=5e1f4c2d9a8b7c6d5e4f3a2b1c0d9e8f";
        let g = exclude_glob(rel);
        assert!(!g.contains("5e1f4c2d"), "{g}");
        assert!(glob::Pattern::new(&g).expect("a glob").matches(rel), "{g}");
        // A name with glob characters of its own matches itself, literally.
        assert_eq!(exclude_glob("a[1]*.txt"), "a[[]1[]][*].txt");
    }
}
