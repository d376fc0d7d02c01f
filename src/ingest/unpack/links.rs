//! Links, once the whole tree is known: each target followed through the links the
//! archive holds, refused when it leaves the folder, then written to the resolved place.

use std::path::{Component, Path, PathBuf};

use super::{Node, Reading, MAX_HOPS};

impl Reading {
    /// Where `target`, read from the folder `from`, ends up in the unpacked tree: every
    /// component followed through the links the archive holds, `..` never above the root.
    /// `hops` holds the links followed so far: more than [`MAX_HOPS`] is refused, as a
    /// loop when one of them came round again, else as a chain too long to follow.
    fn resolve(
        &self,
        from: &Path,
        target: &Path,
        hops: &mut Vec<PathBuf>,
    ) -> Result<PathBuf, String> {
        let mut at: Vec<std::ffi::OsString> = from
            .components()
            .map(|c| c.as_os_str().to_owned())
            .collect();
        for c in target.components() {
            match c {
                Component::Normal(x) => {
                    at.push(x.to_owned());
                    let here: PathBuf = at.iter().collect();
                    if let Some(Node::Link(t)) = self.nodes.get(&here) {
                        hops.push(here.clone());
                        if hops.len() > MAX_HOPS {
                            let mut seen = std::collections::HashSet::new();
                            return Err(if hops.iter().all(|h| seen.insert(h)) {
                                format!("starts a chain of more than {MAX_HOPS} links, more than the kernel follows")
                            } else {
                                "is part of a loop of links".into()
                            });
                        }
                        at.pop();
                        let parent: PathBuf = at.iter().collect();
                        let resolved = self.resolve(&parent, t, hops)?;
                        at = resolved
                            .components()
                            .map(|c| c.as_os_str().to_owned())
                            .collect();
                    }
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if at.pop().is_none() {
                        return Err(format!(
                            "is a link to `{}`, which leads outside the bundle",
                            target.display()
                        ));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(format!(
                        "is a link to `{}`, outside the bundle",
                        target.display()
                    ))
                }
            }
        }
        Ok(at.iter().collect())
    }

    /// Writes every link, once the whole tree is known, pointing straight at the place
    /// its target resolves to (a path of real folders inside the root).
    pub(super) fn finish_links(&mut self) -> anyhow::Result<()> {
        for rel in std::mem::take(&mut self.links) {
            let shown = rel.display().to_string();
            let Some(Node::Link(target)) = self.nodes.get(&rel) else {
                continue;
            };
            let parent = rel.parent().unwrap_or(Path::new("")).to_path_buf();
            let mut hops = Vec::new();
            let resolved = self
                .resolve(&parent, target, &mut hops)
                .map_err(|why| self.refuse(&shown, &why))?;
            match self.nodes.get(&resolved) {
                Some(Node::File) | Some(Node::Dir) => {}
                // The root itself.
                None if resolved.as_os_str().is_empty() => {}
                _ => {
                    return Err(self.refuse(
                        &shown,
                        &format!(
                            "is a link to `{}`, which is not in the bundle",
                            target.display()
                        ),
                    ))
                }
            }
            if resolved == rel {
                return Err(self.refuse(&shown, "is a link to itself"));
            }
            let up = parent.components().count();
            let mut relative = PathBuf::new();
            for _ in 0..up {
                relative.push("..");
            }
            relative.push(&resolved);
            if relative.as_os_str().is_empty() {
                relative.push(".");
            }
            std::os::unix::fs::symlink(&relative, self.root.join(&rel))
                .map_err(|e| self.refuse(&shown, &format!("cannot be written: {e}")))?;
        }
        Ok(())
    }
}
