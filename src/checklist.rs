//! What the procedures' "Report the results" sections ask support to receive, checked
//! against a folder: present or missing, and where. Each suite lists its procedure's
//! items ([`crate::suites::Suite::checklist`]); this module holds their shape and helpers.

use serde::Serialize;

use crate::ingest::walk::Folder;
use crate::model::report::Fact;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub procedure: &'static str,
    pub what: &'static str,
    pub present: bool,
    pub found: Vec<String>,
    /// Where to put it when missing.
    pub hint: &'static str,
}

fn norm(s: &str) -> String {
    s.to_ascii_lowercase().replace(['_', ' '], "-")
}

pub fn files_where(folder: &Folder, f: impl Fn(&str, &str) -> bool) -> Vec<String> {
    folder
        .files
        .iter()
        .filter(|e| f(&e.rel, &norm(e.file_name())))
        .map(|e| e.rel.clone())
        .collect()
}

pub fn fact_sources(environment: &[Fact], name: &str) -> Vec<String> {
    environment
        .iter()
        .filter(|f| f.name == name)
        .map(|f| f.source.clone())
        .collect()
}

pub fn item(
    procedure: &'static str,
    what: &'static str,
    found: Vec<String>,
    hint: &'static str,
) -> Item {
    Item {
        procedure,
        what,
        present: !found.is_empty(),
        found,
        hint,
    }
}

/// A system command's saved output: what it is, a key its file name contains (after
/// lowercasing and `_` -> `-`), a key it must not contain, and where to save it.
pub type SystemOutput = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
);

pub fn system_outputs(
    folder: &Folder,
    procedure: &'static str,
    list: &[SystemOutput],
) -> Vec<Item> {
    list.iter()
        .map(|&(what, key, not, hint)| {
            let found = files_where(folder, |_, n| {
                n.contains(key) && not.is_none_or(|x| !n.contains(x))
            });
            item(procedure, what, found, hint)
        })
        .collect()
}

/// The checklist as Markdown, for CHECKLIST.md and the terminal.
pub fn markdown(items: &[Item]) -> String {
    let mut s = String::from("# What support asked for\n\nFrom the procedures' \"Report the results\" sections.\n\n| | procedure | item | found |\n|---|---|---|---|\n");
    for i in items {
        let found = if i.present {
            i.found
                .iter()
                .take(3)
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
                + if i.found.len() > 3 { " …" } else { "" }
        } else {
            format!("missing: add {}", i.hint)
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            if i.present { "present" } else { "MISSING" },
            i.procedure,
            i.what,
            found
        ));
    }
    s
}
