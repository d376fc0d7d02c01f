//! A support bundle given to `analyze` or `report`: unpacked into a private temporary
//! folder, refusing anything that could write outside it.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context};

/// Caps that keep a hostile or broken archive from filling the disk.
pub const MAX_ENTRY_BYTES: u64 = 512 * 1024 * 1024;
pub const MAX_TOTAL_BYTES: u64 = 2 * 1024 * 1024 * 1024;
pub const MAX_ENTRIES: usize = 100_000;

pub struct Unpacked {
    pub dir: tempfile::TempDir,
}

impl Unpacked {
    /// The results inside: `input/` for reprobench's own bundles, else the whole archive.
    pub fn results_dir(&self) -> PathBuf {
        let input = self.dir.path().join("input");
        if input.is_dir() && self.dir.path().join("manifest.json").is_file() {
            input
        } else {
            self.dir.path().to_path_buf()
        }
    }
}

pub fn is_bundle(p: &Path) -> bool {
    let name = p.to_string_lossy();
    p.is_file() && (name.ends_with(".tar.gz") || name.ends_with(".tgz"))
}

/// A relative path of plain components only.
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
    Ok(out)
}

pub fn unpack(bundle: &Path) -> anyhow::Result<Unpacked> {
    let refuse = |entry: &str, why: &str| -> anyhow::Error {
        anyhow::anyhow!(
            "refused bundle `{}`: entry `{entry}` {why}",
            bundle.display()
        )
    };
    let file = File::open(bundle).with_context(|| format!("cannot read `{}`", bundle.display()))?;
    let dir = tempfile::Builder::new()
        .prefix("reprobench-bundle-")
        .tempdir()
        .context("failed to create a temporary folder")?;
    let root = dir.path().to_path_buf();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut total = 0u64;
    let entries = archive
        .entries()
        .with_context(|| format!("`{}` is not a tar.gz archive", bundle.display()))?;
    for (count, entry) in entries.enumerate() {
        let mut entry = entry
            .with_context(|| format!("`{}` is not a readable tar.gz archive", bundle.display()))?;
        if count >= MAX_ENTRIES {
            bail!(
                "refused bundle `{}`: more than {MAX_ENTRIES} entries",
                bundle.display()
            );
        }
        let raw = entry.path().map(|p| p.into_owned()).unwrap_or_default();
        let shown = raw.display().to_string();
        let rel = safe_relative(&raw).map_err(|why| refuse(&shown, &why))?;
        let size = entry.header().size().unwrap_or(0);
        if size > MAX_ENTRY_BYTES {
            return Err(refuse(
                &shown,
                &format!("is larger than {} MiB", MAX_ENTRY_BYTES >> 20),
            ));
        }
        total += size;
        if total > MAX_TOTAL_BYTES {
            bail!(
                "refused bundle `{}`: it unpacks to more than {} GiB",
                bundle.display(),
                MAX_TOTAL_BYTES >> 30
            );
        }
        let dest = root.join(&rel);
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if kind.is_file() {
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let mut out = File::create(&dest)
                .with_context(|| format!("failed to write `{}`", dest.display()))?;
            let mut buf = Vec::new();
            (&mut entry)
                .take(MAX_ENTRY_BYTES + 1)
                .read_to_end(&mut buf)?;
            out.write_all(&buf)?;
        } else if kind.is_symlink() {
            let target = entry
                .link_name()
                .ok()
                .flatten()
                .map(|t| t.into_owned())
                .ok_or_else(|| refuse(&shown, "is a link without a target"))?;
            let ok = target.is_relative()
                && target
                    .components()
                    .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
            if !ok {
                return Err(refuse(
                    &shown,
                    &format!("is a link to `{}`, outside the bundle", target.display()),
                ));
            }
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::os::unix::fs::symlink(&target, &dest)?;
        } else if kind.is_hard_link() {
            return Err(refuse(&shown, "is a hard link"));
        } else {
            return Err(refuse(&shown, "is a device, fifo or other special file"));
        }
    }
    Ok(Unpacked { dir })
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
    }
}
