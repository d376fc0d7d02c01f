//! A support bundle given to `analyze` or `report`: unpacked into a private temporary
//! folder by a tar reader of our own, so every limit holds while reading, not after:
//! total bytes (from the data actually read, whatever a header or PAX record claims),
//! entries, name and long-name record lengths, PAX record sizes and the compression
//! ratio. Nothing is written past a limit, and nothing outside the folder.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use anyhow::{bail, Context};

/// Caps that keep a hostile or broken archive from filling the disk or the memory.
pub const MAX_ENTRY_BYTES: u64 = 512 * 1024 * 1024;
pub const MAX_TOTAL_BYTES: u64 = 2 * 1024 * 1024 * 1024;
pub const MAX_ENTRIES: usize = 100_000;
/// Longest path (and GNU long-name or long-link record) accepted.
pub const MAX_NAME_BYTES: u64 = 4096;
/// Largest PAX extended-header record accepted.
pub const MAX_PAX_BYTES: u64 = 64 * 1024;
/// Unpacked over compressed bytes, checked once more than `RATIO_AFTER` bytes are out.
pub const MAX_RATIO: u64 = 200;
pub const RATIO_AFTER: u64 = 64 * 1024 * 1024;

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

/// Counts the bytes that pass through.
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// What a header (and the records before it) say about one entry.
struct Header {
    name: Vec<u8>,
    link: Vec<u8>,
    size: u64,
    kind: u8,
}

fn field(block: &[u8]) -> &[u8] {
    let end = block.iter().position(|&b| b == 0).unwrap_or(block.len());
    &block[..end]
}

/// A numeric header field: octal text, or GNU base-256 when the top bit is set.
fn number(block: &[u8]) -> Option<u64> {
    if block.first().is_some_and(|b| b & 0x80 != 0) {
        let mut n: u64 = u64::from(block[0] & 0x7f);
        for &b in &block[1..] {
            n = n.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return Some(n);
    }
    let text = std::str::from_utf8(field(block)).ok()?.trim();
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

fn checksum_ok(block: &[u8; 512]) -> bool {
    let Some(want) = number(&block[148..156]) else {
        return false;
    };
    let sum: u64 = block
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u64::from(b)
            }
        })
        .sum();
    sum == want
}

/// PAX records: `<len> <key>=<value>\n` ...
fn pax(
    data: &[u8],
    path: &mut Option<Vec<u8>>,
    link: &mut Option<Vec<u8>>,
    size: &mut Option<u64>,
) {
    let mut rest = data;
    while !rest.is_empty() {
        let Some(sp) = rest.iter().position(|&b| b == b' ') else {
            return;
        };
        let Some(len) = std::str::from_utf8(&rest[..sp])
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
        else {
            return;
        };
        if len <= sp || len > rest.len() {
            return;
        }
        let record = &rest[sp + 1..len];
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(eq) = record.iter().position(|&b| b == b'=') {
            let (k, v) = (&record[..eq], &record[eq + 1..]);
            match k {
                b"path" => *path = Some(v.to_vec()),
                b"linkpath" => *link = Some(v.to_vec()),
                b"size" => *size = std::str::from_utf8(v).ok().and_then(|s| s.parse().ok()),
                _ => {}
            }
        }
        rest = &rest[len..];
    }
}

fn padded(size: u64) -> u64 {
    size.div_ceil(512) * 512
}

pub fn unpack(bundle: &Path) -> anyhow::Result<Unpacked> {
    let shown = bundle.display().to_string();
    let file = File::open(bundle).with_context(|| format!("cannot read `{shown}`"))?;
    let compressed = Rc::new(Cell::new(0u64));
    let unpacked = Rc::new(Cell::new(0u64));
    let gz = flate2::read::MultiGzDecoder::new(Counting {
        inner: io::BufReader::new(file),
        count: compressed.clone(),
    });
    let mut input = Counting {
        inner: gz,
        count: unpacked.clone(),
    };
    let dir = tempfile::Builder::new()
        .prefix("reprobench-bundle-")
        .tempdir()
        .context("failed to create a temporary folder")?;
    let root = dir.path().to_path_buf();
    let refuse = |entry: &str, why: &str| -> anyhow::Error {
        anyhow::anyhow!("refused bundle `{shown}`: entry `{entry}` {why}")
    };
    let ratio_check = || -> anyhow::Result<()> {
        let (c, u) = (compressed.get(), unpacked.get());
        if u > RATIO_AFTER && u > c.saturating_mul(MAX_RATIO) {
            bail!(
                "refused bundle `{shown}`: it unpacks {u} bytes from {c}, more than {MAX_RATIO} times its size (a compression bomb?)"
            );
        }
        Ok(())
    };
    let mut written_total: u64 = 0;
    let mut entries = 0usize;
    let (mut long_name, mut long_link): (Option<Vec<u8>>, Option<Vec<u8>>) = (None, None);
    let (mut pax_path, mut pax_link, mut pax_size) = (None, None, None);
    let mut block = [0u8; 512];
    loop {
        ratio_check()?;
        match read_block(&mut input, &mut block) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => bail!("`{shown}` is not a readable tar.gz archive: {e}"),
        }
        if block.iter().all(|&b| b == 0) {
            break;
        }
        if !checksum_ok(&block) {
            bail!("`{shown}` is not a readable tar.gz archive: a header's checksum is wrong");
        }
        entries += 1;
        if entries > MAX_ENTRIES {
            bail!("refused bundle `{shown}`: more than {MAX_ENTRIES} entries");
        }
        let mut name = field(&block[0..100]).to_vec();
        if &block[257..262] == b"ustar" && block[345] != 0 {
            let mut full = field(&block[345..500]).to_vec();
            full.push(b'/');
            full.extend_from_slice(&name);
            name = full;
        }
        let h = Header {
            name: pax_path.take().or(long_name.take()).unwrap_or(name),
            link: pax_link
                .take()
                .or(long_link.take())
                .unwrap_or_else(|| field(&block[157..257]).to_vec()),
            size: match pax_size.take() {
                Some(s) => s,
                None => number(&block[124..136])
                    .ok_or_else(|| anyhow::anyhow!("`{shown}`: a header's size is not a number"))?,
            },
            kind: block[156],
        };
        let entry = String::from_utf8_lossy(&h.name).into_owned();
        let entry_shown: String = entry.chars().take(200).collect();
        match h.kind {
            b'L' | b'K' | b'x' | b'g' => {
                let cap = if matches!(h.kind, b'L' | b'K') {
                    MAX_NAME_BYTES
                } else {
                    MAX_PAX_BYTES
                };
                if h.size > cap {
                    return Err(refuse(
                        &entry_shown,
                        &format!(
                            "carries a {} record of {} bytes (the limit is {cap}): refused before reading it",
                            if matches!(h.kind, b'L' | b'K') { "GNU long-name" } else { "PAX" },
                            h.size
                        ),
                    ));
                }
                let mut data = vec![0u8; padded(h.size) as usize];
                input
                    .read_exact(&mut data)
                    .map_err(|_| refuse(&entry_shown, "is cut off: the archive ends inside it"))?;
                data.truncate(h.size as usize);
                match h.kind {
                    b'L' => long_name = Some(field(&data).to_vec()),
                    b'K' => long_link = Some(field(&data).to_vec()),
                    b'x' => pax(&data, &mut pax_path, &mut pax_link, &mut pax_size),
                    _ => {} // global PAX headers: nothing we use
                }
                continue;
            }
            _ => {}
        }
        if h.name.len() as u64 > MAX_NAME_BYTES {
            return Err(refuse(&entry_shown, "has a name longer than 4096 bytes"));
        }
        let rel = safe_relative(Path::new(&entry)).map_err(|why| refuse(&entry_shown, &why))?;
        let dest = root.join(&rel);
        match h.kind {
            b'0' | 0 | b'7' => {
                if h.size > MAX_ENTRY_BYTES {
                    return Err(refuse(
                        &entry_shown,
                        &format!(
                            "is {} bytes, larger than {} MiB",
                            h.size,
                            MAX_ENTRY_BYTES >> 20
                        ),
                    ));
                }
                if written_total + h.size > MAX_TOTAL_BYTES {
                    bail!(
                        "refused bundle `{shown}`: entry `{entry_shown}` would take it past {} GiB unpacked",
                        MAX_TOTAL_BYTES >> 30
                    );
                }
                if dest.exists() || std::fs::symlink_metadata(&dest).is_ok() {
                    return Err(refuse(&entry_shown, "appears twice"));
                }
                if let Some(parent) = dest.parent() {
                    make_dirs(&root, parent).map_err(|why| refuse(&entry_shown, &why))?;
                }
                let mut out = File::create(&dest)
                    .with_context(|| format!("failed to write `{}`", dest.display()))?;
                let copied = copy_exact(&mut input, &mut out, h.size, &ratio_check)
                    .map_err(|e| refuse(&entry_shown, &format!("cannot be read: {e:#}")))?;
                written_total += copied;
                skip(&mut input, padded(h.size) - h.size)
                    .map_err(|_| refuse(&entry_shown, "is cut off: the archive ends inside it"))?;
            }
            b'5' => make_dirs(&root, &dest).map_err(|why| refuse(&entry_shown, &why))?,
            b'2' => {
                let target = PathBuf::from(String::from_utf8_lossy(&h.link).into_owned());
                let inside = target.is_relative() && {
                    // The link resolves from its own folder: it may not climb out of it.
                    let depth = rel.components().count() - 1;
                    let mut level: i64 = depth as i64;
                    target.components().all(|c| match c {
                        Component::Normal(_) => {
                            level += 1;
                            true
                        }
                        Component::CurDir => true,
                        Component::ParentDir => {
                            level -= 1;
                            level >= 0
                        }
                        _ => false,
                    })
                };
                if !inside {
                    return Err(refuse(
                        &entry_shown,
                        &format!("is a link to `{}`, outside the bundle", target.display()),
                    ));
                }
                if let Some(parent) = dest.parent() {
                    make_dirs(&root, parent).map_err(|why| refuse(&entry_shown, &why))?;
                }
                std::os::unix::fs::symlink(&target, &dest)?;
                skip(&mut input, padded(h.size))
                    .map_err(|_| refuse(&entry_shown, "is cut off: the archive ends inside it"))?;
            }
            b'1' => return Err(refuse(&entry_shown, "is a hard link")),
            b'3' | b'4' | b'6' => {
                return Err(refuse(
                    &entry_shown,
                    "is a device, fifo or other special file",
                ))
            }
            other => {
                return Err(refuse(
                    &entry_shown,
                    &format!(
                        "has entry type `{}`, which a bundle never holds",
                        other as char
                    ),
                ))
            }
        }
    }
    Ok(Unpacked { dir })
}

/// Reads one 512-byte block; false at a clean end of the stream.
fn read_block(r: &mut impl Read, block: &mut [u8; 512]) -> io::Result<bool> {
    let mut got = 0;
    while got < 512 {
        match r.read(&mut block[got..])? {
            0 if got == 0 => return Ok(false),
            0 => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "cut-off header",
                ))
            }
            n => got += n,
        }
    }
    Ok(true)
}

/// Folders under `root`, refusing to create through a link.
fn make_dirs(root: &Path, dir: &Path) -> Result<(), String> {
    let rel = dir
        .strip_prefix(root)
        .map_err(|_| "is outside the bundle".to_string())?;
    let mut at = root.to_path_buf();
    for c in rel.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err("would put a file under a link or a file".into()),
            Err(_) => {
                std::fs::create_dir(&at).map_err(|e| format!("cannot create a folder: {e}"))?
            }
        }
    }
    Ok(())
}

/// Copies exactly `size` bytes, checking the ratio as it goes; a short stream is an error.
fn copy_exact(
    r: &mut impl Read,
    w: &mut impl Write,
    size: u64,
    ratio_check: &impl Fn() -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut left = size;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let n = r.read(&mut buf[..want])?;
        if n == 0 {
            bail!("the archive ends inside it");
        }
        w.write_all(&buf[..n])?;
        left -= n as u64;
        ratio_check()?;
    }
    Ok(size)
}

fn skip(r: &mut impl Read, n: u64) -> io::Result<()> {
    let copied = io::copy(&mut r.take(n), &mut io::sink())?;
    if copied < n {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "cut off"));
    }
    Ok(())
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

    #[test]
    fn reads_numbers_in_both_forms_and_pax_records() {
        assert_eq!(number(b"00000001750\0"), Some(1000));
        assert_eq!(
            number(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0]),
            Some(4096)
        );
        let (mut p, mut l, mut s) = (None, None, None);
        pax(
            b"17 path=a/long/x\n15 size=123456\n",
            &mut p,
            &mut l,
            &mut s,
        );
        assert_eq!(p.as_deref(), Some(&b"a/long/x"[..]));
        assert_eq!(s, Some(123456));
    }
}
