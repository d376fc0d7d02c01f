//! One campaign's rows, per suite and table, from the typed result model (the same
//! frames `--export` writes, without the partition columns), each checked against the
//! schema before it is written: a column the schema does not describe, or of another
//! type, is refused, not written.

use polars_core::prelude::{
    DataFrame, DataType, IntoColumn, IntoSeries, NamedFrom, Series, StringChunked,
};

use crate::analysis::Analysis;
use crate::frames::{self, FrameBuilder};
use crate::model::verdict::Status;
use crate::suites::SuiteReport;

use super::campaign::Identity;
use crate::schema::dataset as schema;

/// How a campaign's text is cleaned before it is written: secrets redacted (always), host
/// names and addresses pseudonymized (when asked).
pub trait Clean {
    fn clean(&mut self, text: &str) -> String;
}

fn counts(s: &SuiteReport) -> [i64; 5] {
    let mut c = [0i64; 5];
    for v in &s.verdicts {
        let i = match v.status {
            Status::Pass => 0,
            Status::Fail => 1,
            Status::NotMeasured => 2,
            Status::Inconclusive => 3,
            Status::NotComparable => 4,
        };
        c[i] += 1;
    }
    c
}

fn campaigns(
    a: &Analysis,
    s: &SuiteReport,
    id: &Identity,
    name: &str,
    pseudo: bool,
) -> anyhow::Result<DataFrame> {
    let c = counts(s);
    let i64s = |v: i64| vec![v];
    let df = FrameBuilder::new("campaigns")
        .str("name", [name])
        .str("input_kind", [id.kind.name()])
        .opt_timestamp("started", [started_micros(a.started.as_deref())])
        .str("tool", [a.tool.as_str()])
        .i64("analysis_schema", i64s(i64::from(a.schema_version)))
        .i64("files", i64s(i64::try_from(id.files).unwrap_or(i64::MAX)))
        .i64("bytes", i64s(i64::try_from(id.bytes).unwrap_or(i64::MAX)))
        .i64("pass", i64s(c[0]))
        .i64("fail", i64s(c[1]))
        .i64("not_measured", i64s(c[2]))
        .i64("inconclusive", i64s(c[3]))
        .i64("not_comparable", i64s(c[4]))
        .bool("pseudonymized", [pseudo])
        .build()?;
    Ok(df.df)
}

fn setup(a: &Analysis, s: &SuiteReport) -> anyhow::Result<DataFrame> {
    struct Row<'a> {
        kind: &'static str,
        id: &'a str,
        part: &'a str,
        reference: &'a str,
        value: &'a str,
        number: Option<f64>,
        status: &'static str,
        predicts: &'a str,
        source: &'a str,
    }
    let mut rows: Vec<Row> = a
        .setup
        .facts
        .iter()
        .map(|(k, r)| Row {
            kind: "fact",
            id: k,
            part: "",
            reference: "",
            value: &r.value,
            number: r.number,
            status: "",
            predicts: "",
            source: &r.source,
        })
        .collect();
    let table = crate::suites::SUITES
        .iter()
        .find(|x| x.name() == s.name)
        .and_then(|x| x.conformance(&a.setup));
    if let Some(t) = &table {
        rows.extend(t.rows.iter().map(|r| Row {
            kind: "reference",
            id: &r.id,
            part: &r.part,
            reference: &r.reference,
            value: &r.yours,
            number: None,
            status: r.status.label(),
            predicts: &r.predicts,
            source: &r.source,
        }));
    }
    let f = FrameBuilder::new("setup")
        .str("kind", rows.iter().map(|r| r.kind))
        .str("id", rows.iter().map(|r| r.id))
        .str("part", rows.iter().map(|r| r.part))
        .str("reference", rows.iter().map(|r| r.reference))
        .str("value", rows.iter().map(|r| r.value))
        .f64("number", rows.iter().map(|r| r.number))
        .str("status", rows.iter().map(|r| r.status))
        .str("predicts", rows.iter().map(|r| r.predicts))
        .str("source", rows.iter().map(|r| r.source))
        .build()?;
    Ok(f.df)
}

/// The model's frame for one suite, without its `suite` column.
fn of_suite(
    build: fn(&[SuiteReport]) -> anyhow::Result<frames::Frame>,
    s: &SuiteReport,
) -> anyhow::Result<DataFrame> {
    let f = build(std::slice::from_ref(s))?;
    Ok(f.df.drop("suite")?)
}

/// Every string cell through `clean`, but the campaign's id: a sha256 this tool computed,
/// not text from the files (and one a redactor could take for a token).
fn clean_strings(df: &mut DataFrame, clean: &mut dyn Clean) -> anyhow::Result<()> {
    let names: Vec<String> = df
        .columns()
        .iter()
        .filter(|c| c.dtype() == &DataType::String && c.name().as_str() != "campaign")
        .map(|c| c.name().to_string())
        .collect();
    for n in names {
        let col = df.column(&n)?.str()?.clone();
        let cleaned: StringChunked = col.iter().map(|v| v.map(|t| clean.clean(t))).collect();
        let s = cleaned.with_name(n.as_str().into()).into_series();
        df.replace(&n, s.into_column())?;
    }
    Ok(())
}

/// The campaign's id on every row (a segment holds many campaigns), its name and start
/// time on every row of the other tables (what queries select campaigns by, without a
/// join), then the schema version.
fn with_keys(
    mut df: DataFrame,
    table: &str,
    (id, name): (&str, &str),
    started: Option<&str>,
) -> anyhow::Result<DataFrame> {
    let n = df.height();
    df.with_column(Series::new("campaign".into(), vec![id; n]).into_column())?;
    if table != "campaigns" {
        df.with_column(Series::new("campaign_name".into(), vec![name; n]).into_column())?;
        let micros = Series::new("started".into(), vec![started_micros(started); n]);
        df.with_column(
            micros
                .cast(&crate::schema::Type::Timestamp.dtype())?
                .into_column(),
        )?;
    }
    let col = Series::new("schema_version".into(), vec![schema::VERSION; n]);
    df.with_column(col.into_column())?;
    // In the catalog's order (a column added within a major goes after the keys). Only
    // a reordering: a frame with other columns is left as it is, for the check to name.
    if let Some(t) = schema::table(table) {
        let want: Vec<&str> = t.columns().map(|c| c.name).collect();
        let mut have: Vec<&str> = df
            .get_column_names()
            .into_iter()
            .map(|c| c.as_str())
            .collect();
        let mut sorted = want.clone();
        sorted.sort_unstable();
        have.sort_unstable();
        if have == sorted {
            df = df.select(want)?;
        }
    }
    Ok(df)
}

/// A campaign's start as microseconds since the epoch (the analysis writes it in UTC,
/// RFC 3339).
fn started_micros(started: Option<&str>) -> Option<i64> {
    started.and_then(|t| crate::instant::instant(t).ok())
}

/// Every table of every suite of one campaign: (table, suite, frame).
pub fn build(
    a: &Analysis,
    id: &Identity,
    name: &str,
    pseudo: bool,
    clean: &mut dyn Clean,
) -> anyhow::Result<Vec<(&'static str, &'static str, DataFrame)>> {
    let mut out = Vec::new();
    for s in &a.suites {
        let frames: [(&'static str, DataFrame); 6] = [
            ("campaigns", campaigns(a, s, id, name, pseudo)?),
            (
                "measurements",
                of_suite(frames::measurements::measurements, s)?,
            ),
            ("verdicts", of_suite(frames::verdicts::verdicts, s)?),
            ("deviations", of_suite(frames::verdicts::deviations, s)?),
            ("setup", setup(a, s)?),
            ("parameters", of_suite(frames::measurements::parameters, s)?),
        ];
        for (table, df) in frames {
            let mut df = with_keys(df, table, (&id.id, name), a.started.as_deref())?;
            clean_strings(&mut df, clean)?;
            let described = schema::table(table)
                .ok_or_else(|| anyhow::anyhow!("`{table}` is not a table of the schema"))?;
            frames::describe::conforms(described, &df).map_err(anyhow::Error::msg)?;
            out.push((table, s.name, df));
        }
    }
    Ok(out)
}
