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

/// Archives inside archives deeper than this and the outer one is left out.
pub const MAX_DEPTH: usize = 4;

/// One member of an archive, as it goes back in.
#[derive(Debug, Clone)]
pub enum Member {
    Dir(String),
    File {
        name: String,
        text: Text,
    },
    /// A tar or tar.gz inside the archive: opened in turn, its members redacted as
    /// members (not its bytes as text), packed again the same way.
    Archive {
        name: String,
        gzip: bool,
        members: Vec<Member>,
    },
}

impl Member {
    /// Every name (also inside nested archives), and every file's text with it: what
    /// redaction and pseudonyms go over.
    pub fn visit_mut(members: &mut [Member], f: &mut dyn FnMut(&mut String, Option<&mut Text>)) {
        for m in members {
            match m {
                Member::Dir(name) => f(name, None),
                Member::File { name, text } => f(name, Some(text)),
                Member::Archive { name, members, .. } => {
                    f(name, None);
                    Member::visit_mut(members, f);
                }
            }
        }
    }

    /// Every file's text, as (`outer!inner!name`, text).
    pub fn texts(members: &[Member], prefix: &str, out: &mut Vec<(String, String)>) {
        for m in members {
            match m {
                Member::File { name, text } => {
                    out.push((format!("{prefix}!{name}"), text.joined()))
                }
                Member::Archive { name, members, .. } => {
                    Member::texts(members, &format!("{prefix}!{name}"), out);
                }
                Member::Dir(_) => {}
            }
        }
    }
}

/// The members of a tar archive, each file read as text (an archive inside opened in
/// turn); or why the archive stays out.
pub fn open(bytes: &[u8]) -> Result<Vec<Member>, String> {
    let mut total: u64 = 0;
    open_at(bytes, 0, &mut total)
}

/// [`open`], `depth` archives down; `total` counts the bytes unpacked at every depth.
fn open_at(bytes: &[u8], depth: usize, total: &mut u64) -> Result<Vec<Member>, String> {
    let mut archive = tar::Archive::new(bytes);
    let entries = archive
        .entries()
        .map_err(|e| format!("an archive that cannot be read ({e})"))?;
    let mut out = Vec::new();
    for e in entries {
        let mut e = e.map_err(|e| format!("an archive that cannot be read ({e})"))?;
        let name = e
            .path()
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| format!("an archive with an unreadable name ({e})"))?;
        if out.len() >= MAX_MEMBERS {
            return Err(format!("an archive of more than {MAX_MEMBERS} members"));
        }
        // A name that leaves the archive's folder is never packed again: the bundle's
        // own archive would hold it.
        let path = std::path::Path::new(&name);
        if path.is_absolute()
            || path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(format!(
                "an archive holding `{}`, a path outside its own folder (absolute or with `..`)",
                crate::output::visible_name(&name)
            ));
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
        *total = total.saturating_add(e.header().size().unwrap_or(u64::MAX));
        if *total > MAX_BYTES {
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
        match encoding::decode_file(&data) {
            Ok(encoding::Decoded::Tar { bytes, gzip }) => {
                if depth + 1 >= MAX_DEPTH {
                    return Err(format!(
                        "archives inside archives more than {MAX_DEPTH} deep (at `{name}`)"
                    ));
                }
                *total = total.saturating_add(bytes.len() as u64);
                if *total > MAX_BYTES {
                    return Err(format!(
                        "an archive of more than {} MiB unpacked",
                        MAX_BYTES >> 20
                    ));
                }
                let members = open_at(&bytes, depth + 1, total)
                    .map_err(|why| format!("the archive `{name}` inside it is {why}"))?;
                out.push(Member::Archive {
                    name,
                    gzip,
                    members,
                });
            }
            Ok(encoding::Decoded::Text(text)) => out.push(Member::File { name, text }),
            Err(why) => return Err(format!("an archive whose member `{name}` is {why}")),
        }
    }
    Ok(out)
}

/// The members as a tar archive again: sorted, mtime 0, uid and gid 0, fixed modes.
pub fn pack(members: &[Member]) -> Result<Vec<u8>, String> {
    let mut sorted: Vec<&Member> = members.iter().collect();
    let name = |m: &Member| match m {
        Member::Dir(n) | Member::File { name: n, .. } | Member::Archive { name: n, .. } => {
            n.clone()
        }
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
            Member::Archive {
                name,
                gzip,
                members,
            } => {
                let inner = pack(members)?;
                let data = if *gzip { encoding::gzip(&inner) } else { inner };
                (name.clone(), data, tar::EntryType::Regular, 0o644)
            }
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
