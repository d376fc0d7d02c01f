//! A campaign's identity: the sha256 of its input's contents. A bundle is hashed as the
//! tarball it is (as pbench keys a dataset by its tarball's hash); a folder as the sorted
//! list of `path NUL sha256(file)` lines of every file under it (symbolic links by their
//! target, never followed), so the same bytes under the same names give the same id on
//! any machine, whatever the files' times or the order the file system lists them in.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Folder,
    Bundle,
}

impl InputKind {
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Folder => "folder",
            InputKind::Bundle => "bundle",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Identity {
    /// sha256 of the contents, hex.
    pub id: String,
    pub kind: InputKind,
    /// The input's file name (a bundle without `.tar.gz`).
    pub name: String,
    pub files: u64,
    pub bytes: u64,
}

pub fn hex(d: impl AsRef<[u8]>) -> String {
    use std::fmt::Write;
    d.as_ref().iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The name a campaign is known by when none is given.
pub fn default_name(input: &Path) -> String {
    let n = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| input.display().to_string());
    for ext in [".tar.gz", ".tgz"] {
        if let Some(stem) = n.strip_suffix(ext) {
            return stem.to_string();
        }
    }
    n
}

fn hash_reader(mut r: impl Read) -> std::io::Result<(String, u64)> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        let k = r.read(&mut buf)?;
        if k == 0 {
            break;
        }
        n += k as u64;
        h.update(&buf[..k]);
    }
    Ok((hex(h.finalize()), n))
}

/// Every entry under `root`, relative and `/`-separated, sorted; links not followed.
fn entries(root: &Path) -> anyhow::Result<Vec<(String, PathBuf, bool)>> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let list =
            std::fs::read_dir(&dir).with_context(|| format!("cannot read `{}`", dir.display()))?;
        for e in list {
            let e = e.with_context(|| format!("cannot read `{}`", dir.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let ty = e
                .file_type()
                .with_context(|| format!("cannot read `{}`", e.path().display()))?;
            if ty.is_dir() {
                stack.push((e.path(), rel));
            } else {
                out.push((rel, e.path(), ty.is_symlink()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The identity of a folder or bundle.
pub fn identify(input: &Path) -> anyhow::Result<Identity> {
    let name = default_name(input);
    if input.is_file() {
        let f = std::fs::File::open(input)
            .with_context(|| format!("cannot read `{}`", input.display()))?;
        let (id, bytes) =
            hash_reader(f).with_context(|| format!("cannot read `{}`", input.display()))?;
        let kind = if crate::ingest::unpack::is_bundle(input) {
            InputKind::Bundle
        } else {
            InputKind::Folder
        };
        return Ok(Identity {
            id,
            kind,
            name,
            files: 1,
            bytes,
        });
    }
    let list = entries(input)?;
    let lines: Vec<(String, u64)> = list
        .par_iter()
        .map(|(rel, path, link)| -> anyhow::Result<(String, u64)> {
            if *link {
                let target = std::fs::read_link(path)
                    .with_context(|| format!("cannot read `{}`", path.display()))?;
                return Ok((format!("{rel}\0link:{}\n", target.display()), 0));
            }
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            let (h, n) =
                hash_reader(f).with_context(|| format!("cannot read `{}`", path.display()))?;
            Ok((format!("{rel}\0{h}\n"), n))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut h = Sha256::new();
    let mut bytes = 0;
    for (line, n) in &lines {
        h.update(line.as_bytes());
        bytes += n;
    }
    Ok(Identity {
        id: hex(h.finalize()),
        kind: InputKind::Folder,
        name,
        files: lines.len() as u64,
        bytes,
    })
}

/// One file's line of a digest: `rel NUL sha256(bytes) LF`.
pub fn file_line(rel: &str, bytes: &[u8]) -> String {
    format!("{rel}\0{}\n", hex(Sha256::digest(bytes)))
}

/// The sha256 of a campaign's partition files as written: their [`file_line`]s in path
/// order, as a folder's id is made. The index keeps it; a reader checks it before any
/// byte reaches the Parquet reader.
pub fn files_digest(mut lines: Vec<String>) -> String {
    lines.sort();
    let mut h = Sha256::new();
    for l in &lines {
        h.update(l.as_bytes());
    }
    hex(h.finalize())
}

/// Host names the texts under `root` name (for pseudonyms), found as the bundle finds
/// them.
pub fn hosts_in(root: &Path) -> Vec<String> {
    let Ok(list) = entries(root) else {
        return Vec::new();
    };
    let mut hosts: Vec<String> = list
        .par_iter()
        .filter(|(_, _, link)| !link)
        .filter_map(|(_, path, _)| std::fs::read(path).ok())
        .filter_map(|b| String::from_utf8(b).ok())
        .flat_map_iter(|t| crate::bundle::pseudonym::find_hosts(&t))
        .collect();
    hosts.sort();
    hosts.dedup();
    hosts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_id_is_its_names_and_bytes_not_its_times() {
        let a = tempfile::tempdir().expect("tempdir");
        let b = tempfile::tempdir().expect("tempdir");
        for d in [a.path(), b.path()] {
            std::fs::create_dir_all(d.join("results/adp")).expect("mkdir");
            std::fs::write(d.join("results/adp/x.json"), "{}").expect("write");
            std::fs::write(d.join("manifest.json"), "{\"a\":1}").expect("write");
        }
        let (ia, ib) = (
            identify(a.path()).expect("id"),
            identify(b.path()).expect("id"),
        );
        assert_eq!(ia.id, ib.id);
        assert_eq!((ia.files, ia.bytes), (2, 9));
        std::fs::write(b.path().join("results/adp/x.json"), "{ }").expect("write");
        assert_ne!(
            ia.id,
            identify(b.path()).expect("id").id,
            "one byte changed"
        );
        std::fs::rename(
            b.path().join("results/adp/x.json"),
            b.path().join("results/adp/y.json"),
        )
        .expect("rename");
        std::fs::write(b.path().join("results/adp/y.json"), "{}").expect("write");
        assert_ne!(ia.id, identify(b.path()).expect("id").id, "a file renamed");
    }

    #[test]
    fn names_drop_the_bundle_suffix() {
        assert_eq!(default_name(Path::new("/x/site-3.tar.gz")), "site-3");
        assert_eq!(default_name(Path::new("/x/run-7")), "run-7");
    }
}
