//! Reading the archive's headers: their checksums, numeric fields in both forms, GNU
//! long-name and PAX records, and what may follow the end of the archive.

use std::io::{self, Read};

use anyhow::bail;

use super::{Header, Reading, MAX_ENTRIES, MAX_NAME_BYTES, MAX_PAX_BYTES};

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
pub(super) fn padded(size: u64) -> Option<u64> {
    size.checked_next_multiple_of(512)
}

impl Reading {
    /// The next entry's header, with its long-name and PAX records applied; None at the
    /// end of the archive.
    pub(super) fn next_header(&mut self) -> anyhow::Result<Option<Header>> {
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

    /// After the end-of-archive blocks: only zeros may follow, to the end of the gzip
    /// stream, whose checksums are verified as it is read out.
    pub(super) fn drain(&mut self) -> anyhow::Result<()> {
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
