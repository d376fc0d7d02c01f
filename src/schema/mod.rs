//! One catalog of every table reprobench writes: the frames `--export` writes
//! ([`frames::FRAMES`], described in `schema.md`) and the dataset's tables
//! ([`dataset::TABLES`], described in `_schema.json`), each column with its type, unit and
//! meaning. The columns both carry (verdicts, deviations, measurements, parameters) are
//! described once, here, and a written frame or table that is not what its entry says
//! is refused (`frames::conforms`).

pub mod dataset;
pub mod frames;

use serde::ser::SerializeStruct;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Type {
    /// UTF-8 text.
    Str,
    /// 64-bit float, null where the files give no number.
    F64,
    /// 64-bit signed integer (not unsigned: Spark and Trino read no unsigned types).
    I64,
    Bool,
    /// An instant in UTC, to the microsecond: a Parquet TIMESTAMP stored without a zone
    /// (`isAdjustedToUTC = false`), so every engine compares it with a literal such as
    /// `'2026-03-01'` as UTC, whatever its session's time zone.
    Timestamp,
}

impl Type {
    /// The Polars type a column of this type is written with.
    pub fn dtype(self) -> polars_core::prelude::DataType {
        use polars_core::prelude::{DataType, TimeUnit};
        match self {
            Type::Str => DataType::String,
            Type::F64 => DataType::Float64,
            Type::I64 => DataType::Int64,
            Type::Bool => DataType::Boolean,
            Type::Timestamp => DataType::Datetime(TimeUnit::Microseconds, None),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Column {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: Type,
    pub unit: &'static str,
    pub meaning: &'static str,
}

/// A table: its rows, and its columns in order, given as parts (a table's own columns and
/// the groups it shares with others).
#[derive(Debug, Clone, Copy)]
pub struct Table {
    pub name: &'static str,
    /// One row per ...
    pub rows: &'static str,
    pub parts: &'static [&'static [Column]],
}

impl Table {
    pub fn columns(&self) -> impl Iterator<Item = &'static Column> {
        self.parts.iter().flat_map(|p| p.iter())
    }

    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns().find(|c| c.name == name)
    }
}

impl Serialize for Table {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_struct("Table", 3)?;
        t.serialize_field("name", self.name)?;
        t.serialize_field("rows", self.rows)?;
        t.serialize_field("columns", &self.columns().collect::<Vec<_>>())?;
        t.end()
    }
}

pub(crate) const fn c(
    name: &'static str,
    ty: Type,
    unit: &'static str,
    meaning: &'static str,
) -> Column {
    Column {
        name,
        ty,
        unit,
        meaning,
    }
}

/// The verdicts' columns, in the exported frame and in the dataset.
pub const VERDICT: &[Column] = &[
    c(
        "id",
        Type::Str,
        "",
        "the criterion's id (kv-restore.ttft-restore, storage.randwrite-ratio, ...)",
    ),
    c(
        "criterion",
        Type::Str,
        "",
        "the criterion as the procedure states it",
    ),
    c(
        "status",
        Type::Str,
        "",
        "pass, fail, not-measured, inconclusive, not-comparable",
    ),
    c(
        "measured_value",
        Type::F64,
        "column unit",
        "the number judged; null when none was measured",
    ),
    c(
        "threshold_value",
        Type::F64,
        "column unit",
        "the bound it was judged against",
    ),
    c(
        "published_value",
        Type::F64,
        "column unit",
        "the vendor's published figure",
    ),
    c("unit", Type::Str, "", "the unit of the three numbers"),
    c(
        "measured",
        Type::Str,
        "",
        "the measured number as the report writes it",
    ),
    c(
        "threshold",
        Type::Str,
        "",
        "the bound as the report writes it",
    ),
    c(
        "published",
        Type::Str,
        "",
        "the published figure as the report writes it",
    ),
    c(
        "files",
        Type::Str,
        "",
        "the files it was judged from (;-separated)",
    ),
    c("note", Type::Str, "", "why, when the verdict needs a word"),
];

/// The deviations' columns.
pub const DEVIATION: &[Column] = &[
    c("parameter", Type::Str, "", "what differs"),
    c("procedure", Type::Str, "", "what the procedure says"),
    c("ran", Type::Str, "", "what the files show ran"),
    c("unit", Type::Str, "", "the unit of both"),
    c(
        "changes_comparison",
        Type::Bool,
        "",
        "whether it changes the comparison with the published numbers",
    ),
    c(
        "subjects",
        Type::Str,
        "",
        "the jobs or levels it touches (;-separated)",
    ),
    c(
        "files",
        Type::Str,
        "",
        "the files that show it (;-separated)",
    ),
    c(
        "evidence",
        Type::Str,
        "",
        "the files that judged its effect (;-separated)",
    ),
    c(
        "verdicts",
        Type::Str,
        "",
        "the verdicts it touches (;-separated ids)",
    ),
    c("effect", Type::Str, "", "what it does to the numbers"),
    c("source", Type::Str, "", "where the procedure says it"),
];

/// The measurements' columns.
pub const MEASUREMENT: &[Column] = &[
    c(
        "subject",
        Type::Str,
        "",
        "what was measured: array and job shape, variant and level",
    ),
    c("metric", Type::Str, "", "which number of it"),
    c("value", Type::F64, "column unit", "the number"),
    c(
        "unit",
        Type::Str,
        "",
        "its unit (MB/s, IO/s, ms, s, tok/s, x, %, ...)",
    ),
    c("better", Type::Str, "", "higher or lower"),
    c(
        "noise",
        Type::F64,
        "fraction",
        "its relative noise as its own files give it; null when they give none",
    ),
    c("noise_source", Type::Str, "", "what the noise figure is"),
    c(
        "files",
        Type::Str,
        "",
        "the results files it was computed from (;-separated, relative to the input)",
    ),
];

/// A measurement's standard error within its one run: after the measurements' columns in
/// the frame, after the keys in the dataset (added in 1.1, at the end, as the dataset's
/// rule for growing within a major version asks).
pub const STANDARD_ERROR: &[Column] = &[c(
    "standard_error",
    Type::F64,
    "fraction",
    "the value's standard error within its one run, relative (fio's bandwidth samples: bw_dev / sqrt(bw_samples), taken as independent); null where the files give none",
)];

/// The parameters' columns.
pub const PARAMETER: &[Column] = &[
    c(
        "subject",
        Type::Str,
        "",
        "what ran with it: a job, a server's variant",
    ),
    c(
        "name",
        Type::Str,
        "",
        "the parameter (runtime, max_model_len, ...)",
    ),
    c(
        "number",
        Type::F64,
        "column unit",
        "its value when a number",
    ),
    c("text", Type::Str, "", "its value when text"),
    c("unit", Type::Str, "", "the number's unit; empty for text"),
    c("scope", Type::Str, "", "run or server"),
    c("file", Type::Str, "", "the file it was read from"),
];
