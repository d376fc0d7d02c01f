//! The result dataset's schema: its version, and every table's columns with their types,
//! units and meaning. `_schema.json` is written from this table; a test fails when a file
//! carries a column that is not here or a type that changed.
//!
//! How it evolves: within a major version changes are additive only (a new table, a new
//! column at the end of a table; the minor number goes up). Renaming or removing a column,
//! changing its type, unit or meaning, or changing how a partition is keyed is a new major
//! version, and a dataset of another major version is refused, never appended to.

use serde::Serialize;

/// `major.minor`, in every file (a column and the Parquet key-value metadata) and in
/// `_schema.json`.
pub const VERSION: &str = "1.0";
pub const MAJOR: &str = "1";

/// The partition columns: in every table's path (`suite=…/campaign=…`), never inside the
/// files (Spark and DuckDB add them from the path).
pub const PARTITIONS: &[Column] = &[
    Column {
        name: "suite",
        ty: Type::Str,
        unit: "",
        meaning: "the suite (kv-restore, kv-ladder, kv-dram, storage, spdk-raid)",
    },
    Column {
        name: "campaign",
        ty: Type::Str,
        unit: "",
        meaning: "the campaign's id: sha256 of its input's contents (hex)",
    },
];

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
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Column {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: Type,
    pub unit: &'static str,
    pub meaning: &'static str,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Table {
    pub name: &'static str,
    /// One row per ...
    pub rows: &'static str,
    pub columns: &'static [Column],
}

const fn c(name: &'static str, ty: Type, unit: &'static str, meaning: &'static str) -> Column {
    Column {
        name,
        ty,
        unit,
        meaning,
    }
}

const NAME_COLUMN: Column = c(
    "campaign_name",
    Type::Str,
    "",
    "the campaign's name (as in campaigns.name): campaigns are selected without a join",
);
const STARTED_COLUMN: Column = c(
    "started",
    Type::Str,
    "",
    "when the campaign started (as in campaigns.started); null when no manifest says",
);

const VERSION_COLUMN: Column = c(
    "schema_version",
    Type::Str,
    "",
    "the dataset schema version the file was written with (major.minor)",
);

pub const TABLES: &[Table] = &[
    Table {
        name: "campaigns",
        rows: "suite a campaign ran: what it is, when it started, how its verdicts came out",
        columns: &[
            c("name", Type::Str, "", "the campaign's name: the input's file name, or --name; a campaign added again under the same name replaces it"),
            c("input_kind", Type::Str, "", "folder or bundle"),
            c("started", Type::Str, "", "when the run started (ISO 8601, UTC) from a collector's manifest; null when no manifest says"),
            c("tool", Type::Str, "", "the reprobench version that analyzed it"),
            c("analysis_schema", Type::I64, "", "the analysis model's schema_version (analyze --format json)"),
            c("files", Type::I64, "", "files the campaign's input holds"),
            c("bytes", Type::I64, "B", "their size"),
            c("pass", Type::I64, "", "this suite's verdicts that pass"),
            c("fail", Type::I64, "", "... that fail"),
            c("not_measured", Type::I64, "", "... not measured"),
            c("inconclusive", Type::I64, "", "... inconclusive"),
            c("not_comparable", Type::I64, "", "... not comparable (the run deviates from the procedure)"),
            c("pseudonymized", Type::Bool, "", "host names and IPv4 addresses were replaced by the dataset's pseudonyms"),
            VERSION_COLUMN,
        ],
    },
    Table {
        name: "measurements",
        rows: "number a suite measured (what compare and --trend pool)",
        columns: &[
            c("subject", Type::Str, "", "what was measured: array and job shape, variant and level"),
            c("metric", Type::Str, "", "which number of it"),
            c("value", Type::F64, "column unit", "the number"),
            c("unit", Type::Str, "", "its unit (MB/s, IO/s, ms, s, tok/s, x, %, ...)"),
            c("better", Type::Str, "", "higher or lower"),
            c("noise", Type::F64, "fraction", "its relative noise as its own files give it; null when they give none"),
            c("noise_source", Type::Str, "", "what the noise figure is"),
            c("files", Type::Str, "", "the results files it was computed from (;-separated, relative to the input)"),
            NAME_COLUMN,
            STARTED_COLUMN,
            VERSION_COLUMN,
        ],
    },
    Table {
        name: "verdicts",
        rows: "pass criterion the procedure states, judged",
        columns: &[
            c("id", Type::Str, "", "the criterion's id (kv-restore.ttft-restore, storage.randwrite-ratio, ...)"),
            c("criterion", Type::Str, "", "the criterion as the procedure states it"),
            c("status", Type::Str, "", "pass, fail, not-measured, inconclusive, not-comparable"),
            c("measured_value", Type::F64, "column unit", "the number judged; null when none was measured"),
            c("threshold_value", Type::F64, "column unit", "the bound it was judged against"),
            c("published_value", Type::F64, "column unit", "the vendor's published figure"),
            c("unit", Type::Str, "", "the unit of the three numbers"),
            c("measured", Type::Str, "", "the measured number as the report writes it"),
            c("threshold", Type::Str, "", "the bound as the report writes it"),
            c("published", Type::Str, "", "the published figure as the report writes it"),
            c("files", Type::Str, "", "the files it was judged from (;-separated)"),
            c("note", Type::Str, "", "why, when the verdict needs a word"),
            NAME_COLUMN,
            STARTED_COLUMN,
            VERSION_COLUMN,
        ],
    },
    Table {
        name: "deviations",
        rows: "way a run departs from the procedure",
        columns: &[
            c("parameter", Type::Str, "", "what differs"),
            c("procedure", Type::Str, "", "what the procedure says"),
            c("ran", Type::Str, "", "what the files show ran"),
            c("unit", Type::Str, "", "the unit of both"),
            c("changes_comparison", Type::Bool, "", "whether it changes the comparison with the published numbers"),
            c("subjects", Type::Str, "", "the jobs or levels it touches (;-separated)"),
            c("files", Type::Str, "", "the files that show it (;-separated)"),
            c("evidence", Type::Str, "", "the files that judged its effect (;-separated)"),
            c("verdicts", Type::Str, "", "the verdicts it touches (;-separated ids)"),
            c("effect", Type::Str, "", "what it does to the numbers"),
            c("source", Type::Str, "", "where the procedure says it"),
            NAME_COLUMN,
            STARTED_COLUMN,
            VERSION_COLUMN,
        ],
    },
    Table {
        name: "setup",
        rows: "fact about the setup the files show (kind fact), and row of the procedure's reference-setup table beside what the files show (kind reference); a campaign's rows are in each of its suites' partitions",
        columns: &[
            c("kind", Type::Str, "", "fact or reference"),
            c("id", Type::Str, "", "the fact's key (gpu-model, nvme-devices, ...) or the reference row's id (drives, gpu, ...)"),
            c("part", Type::Str, "", "the reference row's part (Drives, GPU); empty for a fact"),
            c("reference", Type::Str, "", "what the procedure's reference setup has; empty for a fact"),
            c("value", Type::Str, "", "what the files show (unknown when they do not)"),
            c("number", Type::F64, "", "the fact as a number, where it is one"),
            c("status", Type::Str, "", "match, differs, unknown for a reference row; empty for a fact"),
            c("predicts", Type::Str, "", "for a difference what it predicts, for unknown the file that would give it"),
            c("source", Type::Str, "", "the file (and line) it was read from"),
            NAME_COLUMN,
            STARTED_COLUMN,
            VERSION_COLUMN,
        ],
    },
    Table {
        name: "parameters",
        rows: "parameter a run or a server ran with, as its files record it",
        columns: &[
            c("subject", Type::Str, "", "what ran with it: a job, a server's variant"),
            c("name", Type::Str, "", "the parameter (runtime, max_model_len, ...)"),
            c("number", Type::F64, "column unit", "its value when a number"),
            c("text", Type::Str, "", "its value when text"),
            c("unit", Type::Str, "", "the number's unit; empty for text"),
            c("scope", Type::Str, "", "run or server"),
            c("file", Type::Str, "", "the file it was read from"),
            NAME_COLUMN,
            STARTED_COLUMN,
            VERSION_COLUMN,
        ],
    },
];

pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

/// `_schema.json`: the version, the partitioning and every table.
pub fn json() -> String {
    let value = serde_json::json!({
        "schema_version": VERSION,
        "layout": "<table>/suite=<suite>/campaign=<sha256>/part-0.parquet (Hive-style partitions)",
        "evolution": "additive only within a major version (new tables; new columns at the end); anything else is a new major version",
        "partitions": PARTITIONS,
        "tables": TABLES,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

/// The major version of a `_schema.json`, if it has one.
pub fn major_of(schema_json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(schema_json).ok()?;
    let s = v.get("schema_version")?.as_str()?;
    Some(s.split('.').next().unwrap_or(s).to_string())
}
