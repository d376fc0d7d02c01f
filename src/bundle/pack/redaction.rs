//! Redaction, pseudonyms and the independent check on what goes in: file contents,
//! archive members and names, and what the check still finds after redaction.

use sha2::{Digest, Sha256};

use super::choose::{Content, Pending};
use super::{exclude_glob, hex, LeftOut, Unredacted};
use crate::bundle::container::Member;
use crate::bundle::encoding::Text;
use crate::bundle::pseudonym::Pseudonyms;
use crate::bundle::{redact, scan};

/// Redacts a file's content in place; returns how many secrets went.
pub(super) fn redact_content(rel: &str, content: &mut Content) -> usize {
    let mut n = 0;
    // The redactor, then what the independent check still finds, redacted in place too:
    // a value either pass flags goes, and a bundle is refused only for what cannot be
    // redacted where it stands.
    let mut text = |name: &str, t: &mut Text| {
        t.map(|s| {
            let (r, k) = redact::redact_file(name, s);
            let (r, k2) = scan::redact_found(&r);
            n += k + k2;
            r
        })
    };
    match content {
        Content::Text(t) => text(rel, t),
        Content::Tar { members, .. } => Member::visit_mut(members, &mut |name, t| {
            *name = clean_name(name);
            if let Some(t) = t {
                let member = name.clone();
                text(&member, t);
            }
        }),
        Content::Raw(_) => {}
    }
    n
}

/// A path as it may leave: redacted, then what the check still finds redacted too.
pub(super) fn clean_name(name: &str) -> String {
    scan::redact_found(&redact::redact_name(name)).0
}

/// Every text of a file: (where, text), for pseudonyms and the check.
pub(super) fn texts_of(rel: &str, content: &Content) -> Vec<(String, String)> {
    match content {
        Content::Text(t) => vec![(rel.to_string(), t.joined())],
        Content::Tar { members, .. } => {
            let mut out = Vec::new();
            Member::texts(members, rel, &mut out);
            out
        }
        Content::Raw(_) => Vec::new(),
    }
}

pub(super) fn pseudonymize(p: &mut Pseudonyms, content: &mut Content) {
    match content {
        Content::Text(t) => t.map(|s| p.apply(s)),
        Content::Tar { members, .. } => Member::visit_mut(members, &mut |name, text| {
            *name = p.apply(name);
            if let Some(text) = text {
                text.map(|s| p.apply(s));
            }
        }),
        Content::Raw(_) => {}
    }
}

/// The independent check on one text: its hits as `line N: what`.
pub(super) fn check(text: &str) -> Vec<String> {
    scan::scan(text)
        .into_iter()
        .map(|h| format!("line {}: {}", h.line, h.what))
        .collect()
}

/// A left-out file's name and reason leave in the manifest: redacted like any text, and
/// withheld when the check still finds a secret in them (the file stays behind either
/// way, so nothing the user could do would make the name safer).
pub(super) fn withhold_if_secret(l: &mut LeftOut) {
    l.reason = scan::redact_found(&redact::redact(&l.reason).0).0;
    if !check(&l.path).is_empty() {
        l.path = withheld_name(&l.path);
    }
    if !check(&l.reason).is_empty() {
        l.reason = "(the reason is withheld: it still looks like a secret after redaction)".into();
    }
}

/// What the check still finds in a chosen file after redaction (in its name, as it
/// leaves, or in its text), with the flags that would let the bundle be written; None
/// when it finds nothing.
pub(super) fn still_secret(p: &Pending, path: &str) -> Option<Unredacted> {
    let mut hits: Vec<String> = check(path)
        .into_iter()
        .map(|h| format!("in its name: {h}"))
        .collect();
    for (at, t) in texts_of(path, &p.content) {
        let prefix = if at == path {
            String::new()
        } else {
            format!("in `{at}`: ")
        };
        hits.extend(check(&t).into_iter().map(|h| format!("{prefix}{h}")));
    }
    if hits.is_empty() {
        return None;
    }
    let name_hit = hits.iter().any(|h| h.starts_with("in its name:"));
    let mut flags = vec![format!("--exclude '{}'", exclude_glob(&p.rel))];
    if !name_hit {
        flags.push(format!("--allow-unredacted '{}'", p.rel));
    }
    Some(Unredacted {
        path: path.to_string(),
        hits,
        flags,
    })
}

/// A name the check still stops after redaction, as it leaves: its folder (when that is
/// clean) and a digest of the name, so two withheld names stay apart.
fn withheld_name(path: &str) -> String {
    let digest = hex(&Sha256::digest(path.as_bytes()));
    let label = format!(
        "[name withheld: it still looks like a secret after redaction; sha256 {}]",
        &digest[..12]
    );
    match path.rsplit_once('/') {
        Some((dir, _)) if check(dir).is_empty() => format!("{dir}/{label}"),
        _ => label,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_withheld_name_keeps_a_clean_folder_and_trips_nothing() {
        let name = "notes/ghp_0123456789abcdefghijABCDEF.txt";
        assert!(!check(name).is_empty(), "the check stops the name itself");
        let w = withheld_name(name);
        assert!(w.starts_with("notes/[name withheld"), "{w}");
        assert!(check(&w).is_empty(), "{w}");
        assert_ne!(w, withheld_name("notes/ghp_0123456789abcdefghijABCDEG.txt"));
        let in_folder = withheld_name("ghp_0123456789abcdefghijABCDEF/x.txt");
        assert!(in_folder.starts_with("[name withheld"), "{in_folder}");
    }
}
