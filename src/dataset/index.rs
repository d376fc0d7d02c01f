//! `_index.json`, what a dataset holds (its campaigns and segments), checked as it is
//! read; and the schema version a dataset folder is of.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::schema::dataset as schema;

use super::{is_id, segment, table_names};

/// `_index.json`: every campaign by id, with its name and suites (what `add` decides by).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Index {
    pub campaigns: BTreeMap<String, Entry>,
    /// Every segment by id: the sha256 of its files as they were written
    /// ([`campaign::files_digest`]).
    #[serde(default)]
    pub segments: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub name: String,
    pub suites: Vec<String>,
    pub started: Option<String>,
    /// The segment that holds its rows.
    #[serde(default)]
    pub segment: String,
    /// Schema 1: sha256 of its own partition files as `add` wrote them (what `dataset
    /// compact` checks before it rewrites a dataset of schema 1).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub files: String,
}

impl Index {
    pub fn read(root: &Path) -> anyhow::Result<Index> {
        let path = root.join("_index.json");
        match std::fs::read_to_string(&path) {
            Ok(t) => {
                let index: Index = serde_json::from_str(&t)
                    .with_context(|| format!("`{}` is not a dataset index", path.display()))?;
                index.check().map_err(|why| {
                    anyhow::anyhow!(
                        "`{}` is not an index this tool wrote: {why}",
                        path.display()
                    )
                })?;
                Ok(index)
            }
            // A new dataset has none; one that holds tables without it lost it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match table_names().find(|t| root.join(t).exists()) {
                    Some(t) => anyhow::bail!(
                        "`{}` is missing, but `{}` holds tables (`{t}/`): its campaigns cannot be told apart without it; restore it, or start a new dataset",
                        path.display(),
                        root.display()
                    ),
                    None => Ok(Index::default()),
                }
            }
            Err(e) => Err(e).with_context(|| format!("cannot read `{}`", path.display())),
        }
    }

    /// Every id is a sha256 and every suite a registered one: the index names the
    /// partition folders read and removed, so nothing in it may point anywhere else.
    fn check(&self) -> Result<(), String> {
        for (id, e) in &self.campaigns {
            if !is_id(id) {
                return Err(format!("`{id}` is not a campaign id (64 hex digits)"));
            }
            for s in &e.suites {
                if !crate::suites::SUITES.iter().any(|x| x.name() == s) {
                    return Err(format!("campaign {id}: `{s}` is not a suite"));
                }
            }
            if !e.segment.is_empty() && !segment::is_id(&e.segment) {
                return Err(format!(
                    "campaign {id}: `{}` is not a segment id",
                    e.segment
                ));
            }
            if !e.segment.is_empty() && !self.segments.contains_key(&e.segment) {
                return Err(format!(
                    "campaign {id} (`{}`) is in segment {}, which the index does not list",
                    e.name, e.segment
                ));
            }
        }
        for s in self.segments.keys() {
            if !segment::is_id(s) {
                return Err(format!("`{s}` is not a segment id (16 hex digits)"));
            }
            if !self.campaigns.values().any(|e| e.segment == *s) {
                return Err(format!("segment {s} holds no campaign"));
            }
        }
        Ok(())
    }

    /// Stages the index and the schema it is of, for the change's commit.
    pub(super) fn stage(&self, staged: &mut super::commit::Staged) -> anyhow::Result<()> {
        use super::commit::Target;
        let text = serde_json::to_string_pretty(self).context("cannot write the index")? + "\n";
        staged.put_file(
            "_index.json",
            text.as_bytes(),
            Target::Inside("_index.json".into()),
        )?;
        staged.put_file(
            "_schema.json",
            schema::json().as_bytes(),
            Target::Inside("_schema.json".into()),
        )
    }

    pub(super) fn by_name(&self, name: &str) -> Option<&String> {
        self.campaigns
            .iter()
            .find(|(_, e)| e.name == name)
            .map(|(id, _)| id)
    }
}

/// The schema major version of the dataset at `root`: None for a folder that is empty
/// (or missing); an error for one that holds something else.
pub(super) fn major_at(root: &Path) -> anyhow::Result<Option<String>> {
    let path = root.join("_schema.json");
    match std::fs::read_to_string(&path) {
        Ok(t) => match schema::major_of(&t) {
            Some(m) => Ok(Some(m)),
            None => anyhow::bail!("`{}` is not a dataset schema", path.display()),
        },
        Err(_) => {
            // What a first add that failed leaves: its lock and staging folder.
            let empty = std::fs::read_dir(root)
                .map(|mut d| {
                    d.all(|e| {
                        e.is_ok_and(|e| e.file_name() == ".lock" || e.file_name() == ".pending")
                    })
                })
                .unwrap_or(true);
            if empty {
                Ok(None)
            } else {
                anyhow::bail!(
                    "`{}` is not empty and holds no _schema.json: not a dataset",
                    root.display()
                )
            }
        }
    }
}

/// Refuses a folder that is not a dataset of this major version (or empty).
pub(super) fn check_schema(root: &Path) -> anyhow::Result<()> {
    match major_at(root)? {
        None => Ok(()),
        Some(m) if m == schema::MAJOR => Ok(()),
        Some(m) if m == "1" => anyhow::bail!(
            "`{}` is a dataset of schema major version 1; this reprobench writes version {}: `reprobench dataset compact {}` rewrites it as version {}, every row kept (one atomic change)",
            root.display(),
            schema::VERSION,
            root.display(),
            schema::VERSION
        ),
        Some(m) => anyhow::bail!(
            "`{}` is a dataset of schema major version {m}; this reprobench writes version {}: add to a new dataset",
            root.display(),
            schema::VERSION
        ),
    }
}
