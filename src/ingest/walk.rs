//! A results folder, listed once and never written to: regular files with their paths
//! relative to the root, and the entries that could not be listed, with reasons.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// A file that was not used, and why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Skipped {
    /// Path relative to the input folder.
    pub file: String,
    pub line: Option<usize>,
    pub reason: String,
}

impl Skipped {
    pub fn one_line(&self) -> String {
        match self.line {
            Some(l) => format!("{}: line {l}: {}", self.file, self.reason),
            None => format!("{}: {}", self.file, self.reason),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    /// Relative to the folder, with `/` separators.
    pub rel: String,
}

impl Entry {
    pub fn parent_name(&self) -> Option<&str> {
        self.path.parent()?.file_name()?.to_str()
    }

    pub fn file_name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }

    pub fn stem(&self) -> &str {
        let name = self.file_name();
        name.rsplit_once('.').map_or(name, |(s, _)| s)
    }
}

#[derive(Debug, Clone)]
pub struct Folder {
    pub root: PathBuf,
    pub files: Vec<Entry>,
    pub problems: Vec<Skipped>,
}

/// How deep a results tree may nest before we stop descending.
const MAX_DEPTH: usize = 16;
/// How many entries a results folder may hold before the walk stops: a folder with more
/// is not a results folder (a link to `/` once made the walk read the whole disk).
pub const MAX_ENTRIES: usize = 200_000;

impl Folder {
    /// Lists `root` recursively without ever leaving it. A symbolic link is followed only
    /// when it points to a file inside the folder; a link out of the folder, to a folder,
    /// or broken is listed as skipped with the reason.
    pub fn scan(root: &Path) -> std::io::Result<Folder> {
        let meta = std::fs::metadata(root)?;
        let mut folder = Folder {
            root: root.to_path_buf(),
            files: Vec::new(),
            problems: Vec::new(),
        };
        if meta.is_file() {
            let name = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            folder.files.push(Entry {
                path: root.to_path_buf(),
                rel: name,
            });
            return Ok(folder);
        }
        let canonical = root.canonicalize()?;
        let mut count = 0;
        folder.walk(root, "", 0, &canonical, &mut count);
        folder.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        // Two names that show the same once their control characters are visible (`a^[`
        // and `a` with an ESC): the second is left out, never read as the first.
        let mut shown = std::collections::HashSet::new();
        let (mut kept, mut twins) = (Vec::new(), Vec::new());
        for f in std::mem::take(&mut folder.files) {
            if shown.insert(f.rel.clone()) {
                kept.push(f);
            } else {
                twins.push(f.rel);
            }
        }
        folder.files = kept;
        for rel in twins {
            folder.problem(
                &rel,
                "its name shows as another file's once its control characters are made visible: not read".into(),
            );
        }
        folder.problems.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(folder)
    }

    fn walk(&mut self, dir: &Path, prefix: &str, depth: usize, root: &Path, count: &mut usize) {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                self.problem(prefix.trim_end_matches('/'), format!("cannot list: {e}"));
                return;
            }
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            *count += 1;
            if *count > MAX_ENTRIES {
                if *count == MAX_ENTRIES + 1 {
                    self.problem(
                        prefix.trim_end_matches('/'),
                        format!(
                            "more than {MAX_ENTRIES} entries: the rest of the folder was not read"
                        ),
                    );
                }
                return;
            }
            let path = entry.path();
            // A name as it may be shown anywhere: control characters visible, so no name
            // can forge a line of the terminal or a report.
            let raw = entry.file_name();
            let name = crate::output::visible_name(&raw.to_string_lossy()).into_owned();
            let rel = format!("{prefix}{name}");
            let Ok(kind) = entry.file_type() else {
                self.problem(&rel, "cannot read its type".into());
                continue;
            };
            if kind.is_symlink() {
                if let Some(why) = self.link(&path, &rel, root) {
                    self.problem(&rel, why);
                }
            } else if kind.is_dir() {
                if depth >= MAX_DEPTH {
                    self.problem(&rel, format!("nested deeper than {MAX_DEPTH} folders"));
                    continue;
                }
                self.walk(&path, &format!("{rel}/"), depth + 1, root, count);
            } else if kind.is_file() {
                self.files.push(Entry { path, rel });
            } else {
                self.problem(&rel, "not a regular file (device, socket or fifo)".into());
            }
        }
    }

    /// A symbolic link: its file is listed when it stays inside the folder; otherwise the
    /// reason it is left alone.
    fn link(&mut self, path: &Path, rel: &str, root: &Path) -> Option<String> {
        let target = std::fs::read_link(path)
            .map(|t| crate::output::visible_name(&t.display().to_string()).into_owned())
            .unwrap_or_default();
        let real = match path.canonicalize() {
            Ok(r) => r,
            Err(e) if e.raw_os_error() == Some(40) => {
                return Some(format!("symbolic link loop (`{target}`): not followed"))
            }
            Err(e) => return Some(format!("broken symbolic link to `{target}`: {e}")),
        };
        if !real.starts_with(root) {
            return Some(format!(
                "symbolic link to `{target}`, outside the results folder: not followed"
            ));
        }
        if real.is_dir() {
            return Some(format!(
                "symbolic link to the folder `{target}` inside the results folder: its files are read where they are"
            ));
        }
        if !real.is_file() {
            return Some(format!("symbolic link to `{target}`, not a regular file"));
        }
        // Read through the resolved path, so the link cannot be swapped in between.
        self.files.push(Entry {
            path: real,
            rel: rel.to_string(),
        });
        None
    }

    fn problem(&mut self, rel: &str, reason: String) {
        self.problems.push(Skipped {
            file: rel.to_string(),
            line: None,
            reason,
        });
    }

    /// Files whose name ends with `suffix` (e.g. `.json`).
    pub fn with_suffix<'a>(&'a self, suffix: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.files.iter().filter(move |e| e.rel.ends_with(suffix))
    }

    /// The path of `entry` relative to the folder, for messages.
    pub fn skipped(
        &self,
        entry: &Entry,
        line: Option<usize>,
        reason: impl Into<String>,
    ) -> Skipped {
        Skipped {
            file: entry.rel.clone(),
            line,
            reason: reason.into(),
        }
    }
}
