//! Placing each entry as it is read: files written under the caps, folders made (never
//! through a link or a file), links noted for the end, only plain relative paths.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context};

use super::headers::padded;
use super::{Header, Node, Reading, MAX_DEPTH, MAX_ENTRY_BYTES, MAX_NAME_BYTES, MAX_TOTAL_BYTES};

/// A relative path of plain components only, at most [`MAX_DEPTH`] folders deep.
fn safe_relative(p: &Path) -> Result<PathBuf, String> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(x) => out.push(x),
            Component::CurDir => {}
            Component::ParentDir => return Err("has `..` and would leave the bundle".into()),
            Component::RootDir | Component::Prefix(_) => return Err("is an absolute path".into()),
        }
    }
    if out.as_os_str().is_empty() {
        return Err("has an empty path".into());
    }
    if out.components().count() > MAX_DEPTH + 1 {
        return Err(format!("is nested deeper than {MAX_DEPTH} folders"));
    }
    Ok(out)
}

impl Reading {
    /// Places one entry: a file or folder on disk, a link noted for the end.
    pub(super) fn place(&mut self, h: Header) -> anyhow::Result<()> {
        let entry = String::from_utf8_lossy(&h.name).into_owned();
        if h.name.len() as u64 > MAX_NAME_BYTES {
            return Err(self.refuse(&entry, "has a name longer than 4096 bytes"));
        }
        // `./` (and `.`): the archive's own root, which `tar -C DIR -czf X .` writes first.
        // It names the folder everything unpacks into, which exists: nothing to place.
        let is_root = h.kind == b'5'
            && Path::new(&entry)
                .components()
                .all(|c| matches!(c, Component::CurDir));
        if is_root && !entry.is_empty() {
            return Ok(());
        }
        let rel = safe_relative(Path::new(&entry)).map_err(|why| self.refuse(&entry, &why))?;
        let node = match h.kind {
            b'0' | 0 | b'7' => Node::File,
            b'5' => Node::Dir,
            b'2' => Node::Link(PathBuf::from(String::from_utf8_lossy(&h.link).into_owned())),
            b'1' => return Err(self.refuse(&entry, "is a hard link")),
            b'3' | b'4' | b'6' => {
                return Err(self.refuse(&entry, "is a device, fifo or other special file"))
            }
            other => {
                return Err(self.refuse(
                    &entry,
                    &format!(
                        "has entry type `{}`, which a bundle never holds",
                        other as char
                    ),
                ))
            }
        };
        if rel == Path::new("input") && !matches!(node, Node::Dir) {
            return Err(self.refuse(
                &entry,
                "is not a folder: a bundle's `input` holds its results",
            ));
        }
        match self.nodes.get(&rel) {
            Some(Node::Dir) if matches!(node, Node::Dir) => return Ok(()),
            Some(_) => return Err(self.refuse(&entry, "appears twice")),
            None => {}
        }
        if let Some(parent) = rel.parent() {
            self.make_dirs(parent)
                .map_err(|why| self.refuse(&entry, &why))?;
        }
        match &node {
            Node::File => self.write_file(&entry, &rel, h.size)?,
            Node::Dir => {
                self.make_dirs(&rel)
                    .map_err(|why| self.refuse(&entry, &why))?;
                self.skip_data(&entry, h.size)?;
            }
            Node::Link(target) => {
                if target.as_os_str().is_empty() {
                    return Err(self.refuse(&entry, "is a link with an empty target"));
                }
                if !target.is_relative() {
                    return Err(self.refuse(
                        &entry,
                        &format!("is a link to `{}`, outside the bundle", target.display()),
                    ));
                }
                self.links.push(rel.clone());
                self.skip_data(&entry, h.size)?;
            }
        }
        self.nodes.insert(rel, node);
        Ok(())
    }

    fn write_file(&mut self, entry: &str, rel: &Path, size: u64) -> anyhow::Result<()> {
        if size > MAX_ENTRY_BYTES {
            return Err(self.refuse(
                entry,
                &format!("is {size} bytes, larger than {} MiB", MAX_ENTRY_BYTES >> 20),
            ));
        }
        if self.written.saturating_add(size) > MAX_TOTAL_BYTES {
            bail!(
                "refused bundle `{}`: entry `{entry}` would take it past {} GiB unpacked",
                self.shown,
                MAX_TOTAL_BYTES >> 30
            );
        }
        let dest = self.root.join(rel);
        let mut out = File::create_new(&dest)
            .map_err(|e| self.refuse(entry, &format!("cannot be written: {e}")))?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut left = size;
        while left > 0 {
            let want = left.min(buf.len() as u64) as usize;
            let n = self
                .input
                .read(&mut buf[..want])
                .map_err(|e| self.refuse(entry, &format!("cannot be read: {e}")))?;
            if n == 0 {
                return Err(self.refuse(entry, "is cut off: the archive ends inside it"));
            }
            out.write_all(&buf[..n])
                .with_context(|| format!("failed to write `{}`", dest.display()))?;
            left -= n as u64;
            self.ratio_check()?;
        }
        self.written += size;
        // `size` is at most MAX_ENTRY_BYTES here: its padding fits.
        self.skip(entry, padded(size).unwrap_or(size) - size)
    }

    /// Skips an entry's data (a link or folder that claims some).
    fn skip_data(&mut self, entry: &str, size: u64) -> anyhow::Result<()> {
        let blocks = padded(size).ok_or_else(|| {
            self.refuse(
                entry,
                &format!("claims {size} bytes of data, more than any archive holds"),
            )
        })?;
        self.skip(entry, blocks)
    }

    fn skip(&mut self, entry: &str, n: u64) -> anyhow::Result<()> {
        let copied = io::copy(&mut (&mut self.input).take(n), &mut io::sink())
            .map_err(|e| self.refuse(entry, &format!("cannot be read: {e}")))?;
        if copied < n {
            return Err(self.refuse(entry, "is cut off: the archive ends inside it"));
        }
        self.ratio_check()
    }

    /// Folders under the root, each checked once: never through a link or a file.
    fn make_dirs(&mut self, rel: &Path) -> Result<(), String> {
        if rel.as_os_str().is_empty() || self.made.contains(rel) {
            return Ok(());
        }
        let mut at = PathBuf::new();
        for c in rel.components() {
            at.push(c);
            if self.made.contains(&at) {
                continue;
            }
            match self.nodes.get(&at) {
                Some(Node::Dir) | None => {}
                Some(_) => return Err("would put a file under a link or a file".into()),
            }
            let disk = self.root.join(&at);
            match std::fs::symlink_metadata(&disk) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => return Err("would put a file under a link or a file".into()),
                Err(_) => std::fs::create_dir(&disk)
                    .map_err(|e| format!("cannot create a folder: {e}"))?,
            }
            self.nodes.entry(at.clone()).or_insert(Node::Dir);
            self.made.insert(at.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_pass() {
        assert!(safe_relative(Path::new("input/results/a.json")).is_ok());
        assert!(safe_relative(Path::new("./a")).is_ok());
        assert!(safe_relative(Path::new("../a")).is_err());
        assert!(safe_relative(Path::new("a/../../b")).is_err());
        assert!(safe_relative(Path::new("/etc/passwd")).is_err());
        assert!(safe_relative(Path::new("")).is_err());
        let deep = vec!["d"; MAX_DEPTH + 2].join("/");
        assert!(safe_relative(Path::new(&deep)).is_err());
    }
}
