//! A results folder, listed once and never written to: regular files with their paths
//! relative to the root, and the entries that could not be listed, with reasons.

use std::any::Any;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde::Serialize;

/// A file that was not used, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

#[derive(Clone)]
pub struct Folder {
    pub root: PathBuf,
    pub files: Vec<Entry>,
    pub problems: Vec<Skipped>,
    /// What suites read from this folder, kept so that suites sharing files (the KV
    /// suites share the ladder and the server logs) parse each file once.
    memo: RefCell<HashMap<&'static str, Rc<dyn Any>>>,
}

impl std::fmt::Debug for Folder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Folder")
            .field("root", &self.root)
            .field("files", &self.files.len())
            .field("problems", &self.problems)
            .finish()
    }
}

/// How deep a results tree may nest before we stop descending.
const MAX_DEPTH: usize = 16;

impl Folder {
    /// Lists `root` recursively. Symbolic links are followed only while they stay new:
    /// a loop is reported, not walked forever.
    pub fn scan(root: &Path) -> std::io::Result<Folder> {
        let meta = std::fs::metadata(root)?;
        let mut folder = Folder {
            root: root.to_path_buf(),
            files: Vec::new(),
            problems: Vec::new(),
            memo: RefCell::new(HashMap::new()),
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
        let mut seen = HashSet::new();
        if let Ok(c) = root.canonicalize() {
            seen.insert(c);
        }
        folder.walk(root, "", 0, &mut seen);
        folder.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        folder.problems.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(folder)
    }

    fn walk(&mut self, dir: &Path, prefix: &str, depth: usize, seen: &mut HashSet<PathBuf>) {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                self.problem(prefix.trim_end_matches('/'), format!("cannot list: {e}"));
                return;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            let meta = match std::fs::metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    let reason = if e.raw_os_error() == Some(40) {
                        "symbolic link loop".to_string()
                    } else if path.is_symlink() {
                        format!("broken symbolic link: {e}")
                    } else {
                        format!("cannot read: {e}")
                    };
                    self.problem(&rel, reason);
                    continue;
                }
            };
            if meta.is_dir() {
                if depth >= MAX_DEPTH {
                    self.problem(&rel, format!("nested deeper than {MAX_DEPTH} folders"));
                    continue;
                }
                let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
                if !seen.insert(canonical) {
                    self.problem(&rel, "symbolic link loop (folder already visited)".into());
                    continue;
                }
                self.walk(&path, &format!("{rel}/"), depth + 1, seen);
            } else if meta.is_file() {
                self.files.push(Entry { path, rel });
            } else {
                self.problem(&rel, "not a regular file".into());
            }
        }
    }

    fn problem(&mut self, rel: &str, reason: String) {
        self.problems.push(Skipped {
            file: rel.to_string(),
            line: None,
            reason,
        });
    }

    /// What `read` makes of this folder, computed once per `key` and then shared.
    pub fn memo<T: 'static>(&self, key: &'static str, read: impl FnOnce() -> T) -> Rc<T> {
        if let Some(v) = self.memo.borrow().get(key).cloned() {
            if let Ok(t) = v.downcast::<T>() {
                return t;
            }
        }
        let value = Rc::new(read());
        self.memo.borrow_mut().insert(key, value.clone());
        value
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
