//! Writes a support bundle. What goes in is chosen, never swept: the files the suites read,
//! the files the analysis could not read (evidence too), what the procedures' "Report the
//! results" sections ask for (`system/`, `compose/`, `logs/`, collectors' manifests) and
//! what `--include` names. Every file is read as text whatever its encoding and redacted,
//! then checked again with the same detectors, or left out with the reason. The manifest
//! lists both, with the size and sha256 of every file; sorted entries and fixed times make
//! the same folder give the same bytes.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use crate::analysis::{analyze_catalog, Analysis};
use crate::ingest::walk::Folder;
use crate::ingest::Catalog;
use crate::render::report::PdfChoice;
use crate::suites::Options;

use super::pseudonym::{self, Pseudonyms};
use super::redact;
use crate::checklist::Item;

mod choose;
mod redaction;
mod write;

use choose::{choose, encoded};
use redaction::{
    clean_name, pseudonymize, redact_content, still_secret, texts_of, withhold_if_secret,
};
pub use write::{build, write_archive};

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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
    let mut redactions = redactions;
    // Every name first: two names redacted alike stay two files, the second numbered in
    // its redacted part, never onto another file's name.
    let paths: Vec<String> = pending
        .iter()
        .map(|p| name(&p.rel, &mut pseudonyms))
        .collect();
    let paths = distinct(paths);
    for (mut p, path) in pending.into_iter().zip(paths) {
        if opts.redact {
            redactions += redact::redact(&p.rel).1;
        }
        if let Some(ps) = pseudonyms.as_mut() {
            pseudonymize(ps, &mut p.content);
        }
        if opts.redact && !opts.allow_unredacted.contains(&p.rel) {
            unredacted.extend(still_secret(&p, &path));
        }
        let (bytes, label) = encoded(p.content, &p.rel)?;
        // Why a file went in may quote another file's name: it leaves like a name.
        let why = name(&p.why, &mut pseudonyms);
        chosen.push(Chosen {
            path,
            why,
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

/// The names, each once: a name met again (two names redacted alike) gets its last
/// `[REDACTED]` numbered (`[REDACTED-2]`), which keeps its folder, stem and suffix (a
/// `-2` after the stem would read as a repeat, a ladder level's parts would part), and
/// never takes a name another file has. A name with no mark (pseudonyms alike) gets
/// `[2]` before its extension.
fn distinct(paths: Vec<String>) -> Vec<String> {
    let mut taken: std::collections::HashSet<String> = paths.iter().cloned().collect();
    let mut seen = std::collections::HashSet::new();
    paths
        .into_iter()
        .map(|path| {
            if seen.insert(path.clone()) {
                return path;
            }
            (2..)
                .map(|k| match path.rfind(redact::MARK) {
                    Some(at) => format!(
                        "{}[REDACTED-{k}]{}",
                        &path[..at],
                        &path[at + redact::MARK.len()..]
                    ),
                    None => {
                        let file_at = path.rfind('/').map_or(0, |i| i + 1);
                        let dot = path[file_at..]
                            .rfind('.')
                            .filter(|&d| d > 0)
                            .map_or(path.len(), |d| file_at + d);
                        format!("{}[{k}]{}", &path[..dot], &path[dot..])
                    }
                })
                .find(|candidate| taken.insert(candidate.clone()))
                .unwrap_or(path)
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

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
