//! Archives inside a results folder (a `.tar` or `.tar.gz` in `logs/`): opened in memory,
//! every member read as text and redacted like any file, and packed again the way the
//! bundle writes its own archive (sorted, fixed times). An archive holding something that
//! cannot be read as text, a link or a special file, or too much, is left out whole, with
//! the reason: nothing inside it goes in unread.

use std::io::Read;

use super::encoding::{self, Text};

/// More members than this and the archive is left out.
pub const MAX_MEMBERS: usize = 10_000;
/// More bytes than this, unpacked, and the archive is left out.
pub const MAX_BYTES: u64 = 256 * 1024 * 1024;

/// One member of an archive, as it goes back in.
#[derive(Debug, Clone)]
pub enum Member {
    Dir(String),
    File { name: String, text: Text },
}

/// The members of a tar archive, each file read as text; or why the archive stays out.
pub fn open(bytes: &[u8]) -> Result<Vec<Member>, String> {
    let mut archive = tar::Archive::new(bytes);
    let entries = archive
        .entries()
        .map_err(|e| format!("an archive that cannot be read ({e})"))?;
    let mut out = Vec::new();
    let mut total: u64 = 0;
    for e in entries {
        let mut e = e.map_err(|e| format!("an archive that cannot be read ({e})"))?;
        let name = e
            .path()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| format!("an archive with an unreadable name ({e})"))?;
        if out.len() >= MAX_MEMBERS {
            return Err(format!("an archive of more than {MAX_MEMBERS} members"));
        }
        let kind = e.header().entry_type();
        if kind.is_dir() {
            out.push(Member::Dir(name));
            continue;
        }
        if !kind.is_file() {
            return Err(format!(
                "an archive holding `{name}`, which is a link or a special file: links inside archives are not followed"
            ));
        }
        total = total.saturating_add(e.header().size().unwrap_or(u64::MAX));
        if total > MAX_BYTES {
            return Err(format!(
                "an archive of more than {} MiB unpacked",
                MAX_BYTES >> 20
            ));
        }
        let mut data = Vec::new();
        (&mut e)
            .take(MAX_BYTES)
            .read_to_end(&mut data)
            .map_err(|err| format!("an archive whose member `{name}` cannot be read ({err})"))?;
        let text = encoding::decode(&data)
            .map_err(|why| format!("an archive whose member `{name}` is {why}"))?;
        out.push(Member::File { name, text });
    }
    Ok(out)
}

/// The members as a tar archive again: sorted, mtime 0, uid and gid 0, fixed modes.
pub fn pack(members: &[Member]) -> Result<Vec<u8>, String> {
    let mut sorted: Vec<&Member> = members.iter().collect();
    let name = |m: &Member| match m {
        Member::Dir(n) | Member::File { name: n, .. } => n.clone(),
    };
    sorted.sort_by_key(|m| name(m));
    let mut tar = tar::Builder::new(Vec::new());
    tar.mode(tar::HeaderMode::Deterministic);
    for m in sorted {
        let mut h = tar::Header::new_gnu();
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        let (path, data, kind, mode) = match m {
            Member::Dir(n) => (n.clone(), Vec::new(), tar::EntryType::Directory, 0o755),
            Member::File { name, text } => (
                name.clone(),
                encoding::encode(text),
                tar::EntryType::Regular,
                0o644,
            ),
        };
        h.set_size(data.len() as u64);
        h.set_mode(mode);
        h.set_entry_type(kind);
        tar.append_data(&mut h, &path, data.as_slice())
            .map_err(|e| format!("cannot pack `{path}` again ({e})"))?;
    }
    tar.into_inner()
        .map_err(|e| format!("cannot finish the archive ({e})"))
}
