//! The reference-setup tables beside what the files show: match, differs or unknown per
//! row, and what each difference predicts. The tables are data in each suite's
//! `reports/<suite>.toml` (`[reference_setup]`); the suite checks each row against the
//! files; this module holds the shapes and the helpers the checks share.

use serde::{Deserialize, Serialize};

use super::setup::{Read, Setup};

/// A procedure's reference-setup table, as its suite's TOML holds it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceSetup {
    pub title: String,
    pub source: String,
    #[serde(rename = "row")]
    pub rows: Vec<Row>,
}

/// One reference-setup row.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Key of the fact it compares (see [`super::setup`]).
    pub id: String,
    pub part: String,
    pub reference: String,
    /// What a difference does to the comparison.
    pub predicts: String,
    /// What would give the value when the folder does not.
    pub would_give: String,
}

#[derive(Deserialize)]
struct SetupFile {
    reference_setup: ReferenceSetup,
}

impl ReferenceSetup {
    /// The `[reference_setup]` table of a suite's TOML.
    pub fn parse(toml_text: &'static str) -> Result<ReferenceSetup, toml::de::Error> {
        crate::parse::embedded_toml::read::<SetupFile>(toml_text).map(|f| f.reference_setup)
    }

    /// The table beside `setup`, each row checked by `judge`.
    /// A row `check` has nothing for shows as unknown.
    pub fn judge(
        &self,
        setup: &Setup,
        check: fn(&Row, &Setup) -> Option<ConformanceRow>,
    ) -> Conformance {
        Conformance {
            title: self.title.clone(),
            source: self.source.clone(),
            rows: self
                .rows
                .iter()
                .map(|r| check(r, setup).unwrap_or_else(|| unknown(r)))
                .collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Conform {
    Match,
    Differs,
    Unknown,
}

impl Conform {
    pub fn label(self) -> &'static str {
        match self {
            Conform::Match => "match",
            Conform::Differs => "differs",
            Conform::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ConformanceRow {
    pub id: String,
    pub part: String,
    pub reference: String,
    /// What the files show, or `unknown`.
    pub yours: String,
    pub status: Conform,
    /// For a difference, what it predicts; for unknown, the file that would give it.
    pub predicts: String,
    /// The file (and line) the value was read from.
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Conformance {
    pub title: String,
    pub source: String,
    pub rows: Vec<ConformanceRow>,
}

/// The row when the files do not give its value.
pub fn unknown(row: &Row) -> ConformanceRow {
    ConformanceRow {
        id: row.id.clone(),
        part: row.part.clone(),
        reference: row.reference.clone(),
        yours: "unknown".into(),
        status: Conform::Unknown,
        predicts: format!("the files do not say: {} would give it", row.would_give),
        source: String::new(),
    }
}

/// The row with the value read, matching the reference when `ok`; `extra` adds to what a
/// difference predicts.
pub fn row_with(row: &Row, read: &Read, ok: bool, extra: Option<String>) -> ConformanceRow {
    ConformanceRow {
        id: row.id.clone(),
        part: row.part.clone(),
        reference: row.reference.clone(),
        yours: read.value.clone(),
        status: if ok { Conform::Match } else { Conform::Differs },
        predicts: if ok {
            String::new()
        } else {
            match extra {
                Some(e) => format!("{} {e}", row.predicts),
                None => row.predicts.clone(),
            }
        },
        source: read.source.clone(),
    }
}

/// Whether the value read holds `needle`, ignoring case.
pub fn contains(read: &Read, needle: &str) -> bool {
    read.value
        .to_ascii_lowercase()
        .contains(&needle.to_ascii_lowercase())
}
