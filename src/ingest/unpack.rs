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
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::{bail, Context};

mod headers;
mod links;
mod place;

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
