//! Atomic changes to a dataset. An `add` writes everything new into a private staging
//! folder (`.pending/<n>/`), then writes its plan (what to remove, what to move where) as
//! `plan.json` with one rename: that rename is the commit. Before it, the dataset is as
//! it was and the staging folder is thrown away by the next open; after it, the plan is
//! carried out, and carried out again by the next open if the process died halfway (every
//! step can run twice). One writer at a time: the dataset's `.lock` is held throughout.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// Where a staged file goes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// A path inside the dataset.
    Inside(String),
    /// The pseudonym mapping, kept beside the dataset (`<dataset>.pseudonyms.json`),
    /// never inside it: the dataset travels, the mapping stays.
    Mapping,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Files or folders to remove (a replaced campaign's segment, the segments a
    /// compaction merged, schema 1's folders), relative to the dataset.
    pub remove: Vec<String>,
    /// Staged folders or files (relative to the staging folder) and where they go.
    pub put: Vec<(String, Target)>,
}

/// The mapping file of a dataset: beside it.
pub fn mapping_path(root: &Path) -> PathBuf {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dataset".into());
    let file = format!("{name}.pseudonyms.json");
    root.with_file_name(file)
}

/// A dataset opened for one writer, with any interrupted change finished or undone.
pub struct Locked {
    pub root: PathBuf,
    _lock: File,
}

impl Locked {
    pub fn open(root: &Path) -> anyhow::Result<Locked> {
        std::fs::create_dir_all(root)
            .with_context(|| format!("cannot create the dataset `{}`", root.display()))?;
        let path = root.join(".lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open `{}`", path.display()))?;
        lock.lock()
            .with_context(|| format!("cannot lock `{}`", path.display()))?;
        let l = Locked {
            root: root.to_path_buf(),
            _lock: lock,
        };
        l.recover()?;
        Ok(l)
    }

    fn pending(&self) -> PathBuf {
        self.root.join(".pending")
    }

    /// Finishes every committed change, throws away every uncommitted one.
    fn recover(&self) -> anyhow::Result<()> {
        let pending = self.pending();
        let Ok(list) = std::fs::read_dir(&pending) else {
            return Ok(());
        };
        // Real folders only: a link here is not a change this tool staged.
        let mut dirs: Vec<PathBuf> = list
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        dirs.sort();
        for d in dirs {
            let plan = d.join("plan.json");
            match std::fs::read_to_string(&plan) {
                Ok(text) => {
                    let p: Plan = serde_json::from_str(&text).with_context(|| {
                        format!("`{}` is not a plan this version wrote", plan.display())
                    })?;
                    self.apply(&d, &p)?;
                }
                Err(_) => {
                    std::fs::remove_dir_all(&d).with_context(|| {
                        format!("cannot remove the unfinished change `{}`", d.display())
                    })?;
                }
            }
        }
        let _ = std::fs::remove_dir(&pending);
        Ok(())
    }

    /// A new staging folder, named for the change (`add-`, `compact-`).
    pub fn stage(&self, prefix: &str) -> anyhow::Result<Staged> {
        let pending = self.pending();
        std::fs::create_dir_all(&pending)
            .with_context(|| format!("cannot create `{}`", pending.display()))?;
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in(&pending)
            .with_context(|| format!("cannot create a staging folder in `{}`", pending.display()))?
            .keep();
        Ok(Staged {
            dir,
            root: self.root.clone(),
            plan: Plan::default(),
        })
    }

    /// Commits a staged change (the plan's rename), then carries it out. The staged
    /// files reach the disk (one `syncfs`, not one flush per file) before the plan names
    /// them.
    pub fn commit(&self, mut s: Staged) -> anyhow::Result<()> {
        // A path both removed and put (a campaign's segment removed by one input of an
        // add and written again, the same bytes, by another) is only put: a plan carried
        // out again after a crash must not remove what it already moved in.
        let put: std::collections::HashSet<String> = s
            .plan
            .put
            .iter()
            .filter_map(|(_, t)| match t {
                Target::Inside(r) => Some(r.clone()),
                Target::Mapping => None,
            })
            .collect();
        s.plan.remove.retain(|r| !put.contains(r));
        let text = serde_json::to_string_pretty(&s.plan).context("cannot write the plan")?;
        let tmp = s.dir.join("plan.json.tmp");
        std::fs::write(&tmp, text.as_bytes())
            .with_context(|| format!("cannot write `{}`", tmp.display()))?;
        // Everything staged, and the plan, on disk before the rename that commits them.
        let dir =
            File::open(&s.dir).with_context(|| format!("cannot open `{}`", s.dir.display()))?;
        nix::unistd::syncfs(&dir)
            .with_context(|| format!("cannot flush `{}` to disk", s.dir.display()))?;
        std::fs::rename(&tmp, s.dir.join("plan.json"))
            .with_context(|| format!("cannot commit `{}`", s.dir.display()))?;
        sync_dir(&s.dir);
        self.apply(&s.dir, &s.plan)
    }

    /// Throws a staged change away.
    pub fn abandon(&self, s: Staged) {
        let _ = std::fs::remove_dir_all(&s.dir);
        let _ = std::fs::remove_dir(self.pending());
    }

    /// Carries out a committed plan; safe to run again after a crash at any step. Every
    /// path in it must stay inside the dataset (and the staging folder): a plan that
    /// names `..` or an absolute path is refused before anything moves.
    fn apply(&self, dir: &Path, p: &Plan) -> anyhow::Result<()> {
        let paths = p.remove.iter().chain(p.put.iter().flat_map(|(s, t)| {
            std::iter::once(s).chain(match t {
                Target::Inside(r) => Some(r),
                Target::Mapping => None,
            })
        }));
        for rel in paths {
            if !inside(rel) {
                anyhow::bail!(
                    "`{}` names `{rel}`, outside the dataset: not a plan this tool wrote; nothing was changed",
                    dir.join("plan.json").display()
                );
            }
        }
        for r in &p.remove {
            let path = self.root.join(r);
            // A folder (schema 1's partitions) or a file (a segment's); a link is
            // removed, never followed.
            let removed = match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
                Ok(_) => std::fs::remove_file(&path),
                Err(_) => Ok(()),
            };
            removed.with_context(|| format!("cannot remove `{}`", path.display()))?;
            if let Some(parent) = path.parent() {
                // The suite folder, once its last campaign is gone.
                let _ = std::fs::remove_dir(parent);
            }
        }
        for (staged, target) in &p.put {
            let from = dir.join(staged);
            if !from.exists() {
                continue; // moved before a crash
            }
            let to = match target {
                Target::Inside(rel) => self.root.join(rel),
                Target::Mapping => mapping_path(&self.root),
            };
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create `{}`", parent.display()))?;
            }
            if to.is_dir() {
                std::fs::remove_dir_all(&to)
                    .with_context(|| format!("cannot replace `{}`", to.display()))?;
            }
            std::fs::rename(&from, &to).with_context(|| {
                format!("cannot move `{}` to `{}`", from.display(), to.display())
            })?;
        }
        sync_dir(&self.root);
        std::fs::remove_dir_all(dir)
            .with_context(|| format!("cannot remove `{}`", dir.display()))?;
        let _ = std::fs::remove_dir(self.pending());
        Ok(())
    }
}

/// Whether a plan's path stays below its folder: relative, no `..`, not empty.
fn inside(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// A change being staged: write under `dir`, say where it goes in `plan`.
pub struct Staged {
    pub dir: PathBuf,
    /// The dataset it changes.
    pub root: PathBuf,
    pub plan: Plan,
}

impl Staged {
    /// Writes a staged file and plans where it goes (the commit flushes them all).
    pub fn put_file(&mut self, staged: &str, bytes: &[u8], target: Target) -> anyhow::Result<()> {
        let path = self.dir.join(staged);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create `{}`", parent.display()))?;
        }
        std::fs::write(&path, bytes)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
        self.plan.put.push((staged.to_string(), target));
        Ok(())
    }

    /// Takes back a file staged for `rel` inside the dataset (a segment staged by an
    /// earlier input of the same change, replaced by a later one).
    pub fn unput(&mut self, rel: &str) {
        let dir = &self.dir;
        self.plan.put.retain(|(staged, target)| match target {
            Target::Inside(r) if r == rel => {
                let _ = std::fs::remove_file(dir.join(staged));
                false
            }
            _ => true,
        });
    }

    /// Where a dataset file is as this change sees it: staged, else in the dataset.
    pub fn current(&self, rel: &str) -> PathBuf {
        let staged = self
            .plan
            .put
            .iter()
            .find_map(|(staged, target)| match target {
                Target::Inside(r) if r == rel => Some(self.dir.join(staged)),
                _ => None,
            });
        staged.unwrap_or_else(|| self.root.join(rel))
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if !p.ends_with(".lock") {
                    let rel = p.strip_prefix(root).expect("inside").display().to_string();
                    out.push((rel, std::fs::read(&p).expect("read")));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_plan_that_points_outside_the_dataset_moves_nothing() {
        let d = tempfile::tempdir().expect("tempdir");
        let root = d.path().join("ds");
        let victim = d.path().join("victim");
        std::fs::create_dir_all(&victim).expect("mkdir");
        std::fs::write(victim.join("keep"), b"x").expect("write");
        drop(Locked::open(&root).expect("open"));
        let pending = root.join(".pending/add-x");
        std::fs::create_dir_all(&pending).expect("mkdir");
        let plan = Plan {
            remove: vec!["../victim".into()],
            put: Vec::new(),
        };
        std::fs::write(
            pending.join("plan.json"),
            serde_json::to_string(&plan).expect("json"),
        )
        .expect("plan");
        let e = Locked::open(&root).err().expect("refused");
        assert!(format!("{e:#}").contains("outside the dataset"), "{e:#}");
        assert!(victim.join("keep").exists());
    }

    #[test]
    fn an_uncommitted_change_is_thrown_away_on_open() {
        let d = tempfile::tempdir().expect("tempdir");
        let root = d.path().join("ds");
        {
            let l = Locked::open(&root).expect("open");
            let mut s = l.stage("add-").expect("stage");
            s.put_file("x/part-0.parquet", b"new", Target::Inside("t/x".into()))
                .expect("put");
            // The process dies here: no commit.
            std::mem::forget(s);
        }
        let before = tree(&root);
        assert!(before.iter().any(|(p, _)| p.starts_with(".pending")));
        let _l = Locked::open(&root).expect("reopen");
        assert!(tree(&root).is_empty(), "{:?}", tree(&root));
    }

    #[test]
    fn a_committed_change_interrupted_halfway_is_finished_on_open() {
        let d = tempfile::tempdir().expect("tempdir");
        let root = d.path().join("ds");
        std::fs::create_dir_all(root.join("t/old")).expect("mkdir");
        std::fs::write(root.join("t/old/part-0.parquet"), b"old").expect("write");
        {
            let l = Locked::open(&root).expect("open");
            let mut s = l.stage("add-").expect("stage");
            s.put_file("a", b"A", Target::Inside("t/a/part-0.parquet".into()))
                .expect("put");
            s.put_file("b", b"B", Target::Inside("t/b/part-0.parquet".into()))
                .expect("put");
            s.plan.remove.push("t/old".into());
            // Committed, and the first move done, then the process dies.
            let text = serde_json::to_string(&s.plan).expect("json");
            std::fs::write(s.dir.join("plan.json"), text).expect("plan");
            std::fs::create_dir_all(root.join("t/a")).expect("mkdir");
            std::fs::rename(s.dir.join("a"), root.join("t/a/part-0.parquet")).expect("mv");
        }
        let _l = Locked::open(&root).expect("reopen");
        let t = tree(&root);
        let names: Vec<&str> = t.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["t/a/part-0.parquet", "t/b/part-0.parquet"]);
        assert_eq!(t[1].1, b"B");
    }
}
