//! The result dataset's tables: its version, and every table's columns with their types,
//! units and meaning. `_schema.json` is written from this table; a test fails when a file
//! carries a column that is not here or a type that changed.
//!
//! How it evolves: within a major version changes are additive only (a new table, a new
//! column at the end of a table; the minor number goes up). Renaming or removing a column,
//! changing its type, unit or meaning, or changing how a partition is keyed is a new major
//! version, and a dataset of another major version is refused, never appended to.

use super::{c, Column, Table, Type, DEVIATION, MEASUREMENT, PARAMETER, STANDARD_ERROR, VERDICT};

/// `major.minor`, in every file (a column and the Parquet key-value metadata) and in
/// `_schema.json`.
pub const VERSION: &str = "2.0";
pub const MAJOR: &str = "2";

/// The layout, as `_schema.json` states it.
pub const LAYOUT: &str = "<table>/suite=<suite>/part-<segment>.parquet (Hive-style partitions by suite; a segment holds one campaign as added, or many after `dataset compact`)";

/// The partition column: in every table's path (`suite=…`), never inside the files
/// (Spark, DuckDB and Polars add it from the path).
pub const PARTITIONS: &[Column] = &[Column {
    name: "suite",
    ty: Type::Str,
    unit: "",
    meaning: "the suite (kv-restore, kv-ladder, kv-dram, storage, spdk-raid)",
}];

/// Every table's first column: which campaign a row is of (a segment file holds many).
const CAMPAIGN: &[Column] = &[c(
    "campaign",
    Type::Str,
    "",
    "the campaign's id: sha256 of its input's contents (hex)",
)];

const NAME_COLUMN: Column = c(
    "campaign_name",
    Type::Str,
    "",
    "the campaign's name (as in campaigns.name): campaigns are selected without a join",
);
const STARTED_COLUMN: Column = c(
    "started",
    Type::Timestamp,
    "",
    "when the campaign started, in UTC (as in campaigns.started): from its manifest, else from its earliest fio run's own timestamp and runtime; null when neither says",
);

const VERSION_COLUMN: Column = c(
    "schema_version",
    Type::Str,
    "",
    "the dataset schema version the file was written with (major.minor)",
);

/// The keys every table but `campaigns` ends with.
const KEYS: &[Column] = &[NAME_COLUMN, STARTED_COLUMN, VERSION_COLUMN];

pub const TABLES: &[Table] = &[
    Table {
        name: "campaigns",
        rows: "suite a campaign ran: what it is, when it started, how its verdicts came out",
        parts: &[
            CAMPAIGN,
            &[
                c("name", Type::Str, "", "the campaign's name: the input's file name, or --name; a campaign added again under the same name replaces it"),
                c("input_kind", Type::Str, "", "folder or bundle"),
                c("started", Type::Timestamp, "", "when the run started, in UTC: from a collector's manifest, else from its earliest fio run's own timestamp and runtime; null when neither says"),
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
            ], &[VERSION_COLUMN],
        ],
    },
    Table {
        name: "measurements",
        rows: "number a suite measured (what compare and --trend pool)",
        parts: &[CAMPAIGN, MEASUREMENT, KEYS, STANDARD_ERROR],
    },
    Table {
        name: "verdicts",
        rows: "pass criterion the procedure states, judged",
        parts: &[CAMPAIGN, VERDICT, KEYS],
    },
    Table {
        name: "deviations",
        rows: "way a run departs from the procedure",
        parts: &[CAMPAIGN, DEVIATION, KEYS],
    },
    Table {
        name: "setup",
        rows: "fact about the setup the files show (kind fact), and row of the procedure's reference-setup table beside what the files show (kind reference); a campaign's rows are in each of its suites' partitions",
        parts: &[
            CAMPAIGN,
            &[
                c("kind", Type::Str, "", "fact or reference"),
                c("id", Type::Str, "", "the fact's key (gpu-model, nvme-devices, ...) or the reference row's id (drives, gpu, ...)"),
                c("part", Type::Str, "", "the reference row's part (Drives, GPU); empty for a fact"),
                c("reference", Type::Str, "", "what the procedure's reference setup has; empty for a fact"),
                c("value", Type::Str, "", "what the files show (unknown when they do not)"),
                c("number", Type::F64, "", "the fact as a number, where it is one"),
                c("status", Type::Str, "", "match, differs, unknown for a reference row; empty for a fact"),
                c("predicts", Type::Str, "", "for a difference what it predicts, for unknown the file that would give it"),
                c("source", Type::Str, "", "the file (and line) it was read from"),
            ], KEYS,
        ],
    },
    Table {
        name: "parameters",
        rows: "parameter a run or a server ran with, as its files record it",
        parts: &[CAMPAIGN, PARAMETER, KEYS],
    },
];

pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

/// `_schema.json`: the version, the partitioning and every table.
pub fn json() -> String {
    let value = serde_json::json!({
        "schema_version": VERSION,
        "layout": LAYOUT,
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
