//! A support bundle given to `analyze` or `report`: unpacked into a private temporary
//! folder by a tar reader of our own, so every limit holds while reading, not after:
//! total bytes (from the data actually read, whatever a header or PAX record claims),
//! entries, depth, name and long-name record lengths, PAX record sizes and the
//! compression ratio. Links are resolved, not counted: each one's target is followed
//! through the whole unpacked tree (links inside it included) and refused when the walk
//! leaves the folder at any point; the link is then written to the resolved place. The
//! gzip stream is read to its end, so its checksums are verified and data after the
//! archive is refused. Every refusal names the bundle and the entry.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
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
/// How deep a bundle's folders may nest (as deep as the folder walk descends).
pub const MAX_DEPTH: usize = 16;
/// Links followed while resolving one link's target, before it is called a loop.
const MAX_HOPS: usize = 40;

pub struct Unpacked {
    pub dir: tempfile::TempDir,
}

impl Unpacked {
    /// The results inside: `input/` for reprobench's own bundles, else the whole archive.
    /// (`input` is never a link: the unpacker refuses one.)
    pub fn results_dir(&self) -> PathBuf {
        let input = self.dir.path().join("input");
        let real_dir = std::fs::symlink_metadata(&input).is_ok_and(|m| m.is_dir());
        if real_dir && self.dir.path().join("manifest.json").is_file() {
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

/// Counts the bytes that pass through.
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get().saturating_add(n as u64));
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

/// A numeric header field: octal text, or GNU base-256 when the top bit is set. None
/// when it is not a number or does not fit in 64 bits.
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

/// The bytes an entry of `size` takes in the archive (whole 512-byte blocks), when that
/// fits in 64 bits.
fn padded(size: u64) -> Option<u64> {
    size.checked_next_multiple_of(512)
}

/// What the unpacked tree holds at each path, as the archive said.
enum Node {
    Dir,
    File,
    Link(PathBuf),
}

/// The archive being read: its stream, its counters, and what it has put where.
struct Reading {
    shown: String,
    input: Counting<flate2::read::MultiGzDecoder<Counting<io::BufReader<File>>>>,
    compressed: Rc<Cell<u64>>,
    unpacked: Rc<Cell<u64>>,
    root: PathBuf,
    nodes: HashMap<PathBuf, Node>,
    /// Folders known to exist on disk (checked once, not per entry).
    made: HashSet<PathBuf>,
    links: Vec<PathBuf>,
    written: u64,
    entries: usize,
}

impl Reading {
    fn refuse(&self, entry: &str, why: &str) -> anyhow::Error {
        let entry: String = entry.chars().take(200).collect();
        anyhow::anyhow!("refused bundle `{}`: entry `{entry}` {why}", self.shown)
    }

    fn ratio_check(&self) -> anyhow::Result<()> {
        let (c, u) = (self.compressed.get(), self.unpacked.get());
        if u > RATIO_AFTER && u > c.saturating_mul(MAX_RATIO) {
            bail!(
                "refused bundle `{}`: it unpacks {u} bytes from {c}, more than {MAX_RATIO} times its size (a compression bomb?)",
                self.shown
            );
        }
        Ok(())
    }

    /// The next entry's header, with its long-name and PAX records applied; None at the
    /// end of the archive.
    fn next_header(&mut self) -> anyhow::Result<Option<Header>> {
        let (mut long_name, mut long_link) = (None, None);
        let (mut pax_path, mut pax_link, mut pax_size) = (None, None, None);
        let mut block = [0u8; 512];
        loop {
            self.ratio_check()?;
            match read_block(&mut self.input, &mut block) {
                Ok(true) => {}
                Ok(false) => return Ok(None),
                Err(e) => bail!("`{}` is not a readable tar.gz archive: {e}", self.shown),
            }
            if block.iter().all(|&b| b == 0) {
                return Ok(None);
            }
            if !checksum_ok(&block) {
                bail!(
                    "`{}` is not a readable tar.gz archive: a header's checksum is wrong",
                    self.shown
                );
            }
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                bail!(
                    "refused bundle `{}`: more than {MAX_ENTRIES} entries",
                    self.shown
                );
            }
            let mut name = field(&block[0..100]).to_vec();
            if &block[257..262] == b"ustar" && block[345] != 0 {
                let mut full = field(&block[345..500]).to_vec();
                full.push(b'/');
                full.extend_from_slice(&name);
                name = full;
            }
            let kind = block[156];
            let size = match pax_size.take() {
                Some(s) => s,
                None => number(&block[124..136]).ok_or_else(|| {
                    let n = String::from_utf8_lossy(&name).into_owned();
                    self.refuse(&n, "has a size that is not a number of 64 bits")
                })?,
            };
            if !matches!(kind, b'L' | b'K' | b'x' | b'g') {
                return Ok(Some(Header {
                    name: pax_path.take().or(long_name.take()).unwrap_or(name),
                    link: pax_link
                        .take()
                        .or(long_link.take())
                        .unwrap_or_else(|| field(&block[157..257]).to_vec()),
                    size,
                    kind,
                }));
            }
            let entry = String::from_utf8_lossy(&name).into_owned();
            let long = matches!(kind, b'L' | b'K');
            let cap = if long { MAX_NAME_BYTES } else { MAX_PAX_BYTES };
            if size > cap {
                return Err(self.refuse(
                    &entry,
                    &format!(
                        "carries a {} record of {size} bytes (the limit is {cap}): refused before reading it",
                        if long { "GNU long-name" } else { "PAX" }
                    ),
                ));
            }
            let mut data = vec![0u8; padded(size).unwrap_or(0) as usize];
            self.input
                .read_exact(&mut data)
                .map_err(|_| self.refuse(&entry, "is cut off: the archive ends inside it"))?;
            data.truncate(size as usize);
            match kind {
                b'L' => long_name = Some(field(&data).to_vec()),
                b'K' => long_link = Some(field(&data).to_vec()),
                b'x' => pax(&data, &mut pax_path, &mut pax_link, &mut pax_size),
                _ => {} // global PAX headers: nothing we use
            }
        }
    }

    /// Places one entry: a file or folder on disk, a link noted for the end.
    fn place(&mut self, h: Header) -> anyhow::Result<()> {
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
    fn finish_links(&mut self) -> anyhow::Result<()> {
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

    /// After the end-of-archive blocks: only zeros may follow, to the end of the gzip
    /// stream, whose checksums are verified as it is read out.
    fn drain(&mut self) -> anyhow::Result<()> {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match self.input.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) => bail!(
                    "refused bundle `{}`: its gzip stream is damaged or has data after its end ({e})",
                    self.shown
                ),
            };
            if buf[..n].iter().any(|&b| b != 0) {
                bail!(
                    "refused bundle `{}`: it holds data after the end of the archive",
                    self.shown
                );
            }
            self.ratio_check()?;
        }
    }
}

pub fn unpack(bundle: &Path) -> anyhow::Result<Unpacked> {
    let shown = bundle.display().to_string();
    let meta =
        std::fs::symlink_metadata(bundle).with_context(|| format!("cannot read `{shown}`"))?;
    if !meta.is_file() {
        bail!("refused bundle `{shown}`: not a regular file (a link or a special file)");
    }
    let file = File::open(bundle).with_context(|| format!("cannot read `{shown}`"))?;
    let compressed = Rc::new(Cell::new(0u64));
    let unpacked = Rc::new(Cell::new(0u64));
    let gz = flate2::read::MultiGzDecoder::new(Counting {
        inner: io::BufReader::new(file),
        count: compressed.clone(),
    });
    let dir = tempfile::Builder::new()
        .prefix("reprobench-bundle-")
        .tempdir()
        .context("failed to create a temporary folder")?;
    let mut r = Reading {
        shown,
        input: Counting {
            inner: gz,
            count: unpacked.clone(),
        },
        compressed,
        unpacked,
        root: dir.path().to_path_buf(),
        nodes: HashMap::new(),
        made: HashSet::new(),
        links: Vec::new(),
        written: 0,
        entries: 0,
    };
    while let Some(h) = r.next_header()? {
        r.place(h)?;
    }
    r.drain()?;
    r.finish_links()?;
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

    #[test]
    fn reads_numbers_in_both_forms_and_pax_records() {
        assert_eq!(number(b"00000001750\0"), Some(1000));
        assert_eq!(
            number(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0]),
            Some(4096)
        );
        assert_eq!(number(&[0xff; 12]), None, "base-256 past 64 bits");
        assert_eq!(padded(u64::MAX), None);
        assert_eq!(padded(1), Some(512));
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
