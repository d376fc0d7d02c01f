//! Records become Polars frames here, and frames leave as Parquet and CSV: one frame per
//! record kind from the catalog (`records`), the suites' derived frames, and the verdicts
//! (`verdicts`). Every frame carries the table that documents its columns (units
//! included): `crate::schema::frames` for these, the suite's folder for a suite's own; the
//! export writes them as `schema.md` beside the frames.

pub mod describe;
pub mod measurements;
pub mod records;
pub mod verdicts;

use std::fs::File;
use std::path::Path;

use anyhow::Context;
use polars_core::prelude::{Column, DataFrame, IntoColumn, NamedFrom, Series};
use polars_io::prelude::{CsvWriter, KeyValueMetadata, ParquetWriter};
use polars_io::SerWriter;

use crate::schema::Table;

/// A named frame, e.g. `fio_groups`, with the table that documents it (what `--export`
/// checks it against and describes in `schema.md`).
#[derive(Debug, Clone)]
pub struct Frame {
    pub name: String,
    pub df: DataFrame,
    pub table: Option<&'static Table>,
}

/// Builds a frame column by column; every column must have the same height.
pub struct FrameBuilder {
    name: String,
    table: Option<&'static Table>,
    height: Option<usize>,
    columns: Vec<Column>,
}

impl FrameBuilder {
    /// A frame named `name`, documented by the table of that name in
    /// [`crate::schema::frames::FRAMES`] when there is one.
    pub fn new(name: &str) -> Self {
        FrameBuilder {
            name: name.to_string(),
            table: crate::schema::frames::doc(name),
            height: None,
            columns: Vec::new(),
        }
    }

    /// A frame documented by `table`: a suite's own frame, described in its folder.
    pub fn of(table: &'static Table) -> Self {
        FrameBuilder {
            table: Some(table),
            ..FrameBuilder::new(table.name)
        }
    }

    fn push(mut self, col: Column) -> Self {
        self.height.get_or_insert(col.len());
        self.columns.push(col);
        self
    }

    pub fn str<S: AsRef<str>>(self, name: &str, values: impl IntoIterator<Item = S>) -> Self {
        let v: Vec<String> = values.into_iter().map(|s| s.as_ref().to_string()).collect();
        self.push(Column::new(name.into(), v))
    }

    /// Text that may be missing (null, not empty).
    pub fn opt_str<'a>(
        self,
        name: &str,
        values: impl IntoIterator<Item = Option<&'a str>>,
    ) -> Self {
        let v: Vec<Option<&str>> = values.into_iter().collect();
        self.push(Column::new(name.into(), v))
    }

    pub fn f64(self, name: &str, values: impl IntoIterator<Item = Option<f64>>) -> Self {
        let v: Vec<Option<f64>> = values.into_iter().collect();
        self.push(Column::new(name.into(), v))
    }

    /// A count or a size, stored signed (Spark and Trino read no unsigned types); a count
    /// beyond `i64::MAX` (never seen) is stored as `i64::MAX`.
    pub fn count(self, name: &str, values: impl IntoIterator<Item = u64>) -> Self {
        let v: Vec<i64> = values
            .into_iter()
            .map(|x| i64::try_from(x).unwrap_or(i64::MAX))
            .collect();
        self.push(Column::new(name.into(), v))
    }

    pub fn i64(self, name: &str, values: impl IntoIterator<Item = i64>) -> Self {
        let v: Vec<i64> = values.into_iter().collect();
        self.push(Column::new(name.into(), v))
    }

    /// Instants (microseconds since the epoch, UTC) that may be missing, as a timestamp
    /// column ([`crate::schema::Type::Timestamp`]).
    pub fn opt_timestamp(self, name: &str, values: impl IntoIterator<Item = Option<i64>>) -> Self {
        let v: Vec<Option<i64>> = values.into_iter().collect();
        let col = Column::new(name.into(), v);
        match col.cast(&crate::schema::Type::Timestamp.dtype()) {
            Ok(c) => self.push(c),
            Err(_) => self.push(col),
        }
    }

    pub fn bool(self, name: &str, values: impl IntoIterator<Item = bool>) -> Self {
        let v: Vec<bool> = values.into_iter().collect();
        self.push(Column::new(name.into(), v))
    }

    pub fn build(self) -> anyhow::Result<Frame> {
        let df = DataFrame::new(self.height.unwrap_or(0), self.columns)
            .with_context(|| format!("failed to build the `{}` frame", self.name))?;
        Ok(Frame {
            name: self.name,
            df,
            table: self.table,
        })
    }
}

/// The frames of several inputs joined by name, each row keyed by its `input` first.
pub fn join_inputs(inputs: &[(String, Vec<Frame>)]) -> anyhow::Result<Vec<Frame>> {
    let mut by_name: Vec<Frame> = Vec::new();
    for (input, frames) in inputs {
        for f in frames {
            let mut df = f.df.clone();
            let col = Series::new("input".into(), vec![input.as_str(); df.height()]).into_column();
            df.insert_column(0, col)
                .with_context(|| format!("failed to key the `{}` frame by input", f.name))?;
            match by_name.iter_mut().find(|x| x.name == f.name) {
                Some(x) => {
                    x.df.vstack_mut(&df).with_context(|| {
                        format!("the `{}` frames of two inputs do not share columns", f.name)
                    })?;
                }
                None => by_name.push(Frame {
                    name: f.name.clone(),
                    df,
                    table: f.table,
                }),
            }
        }
    }
    for f in &mut by_name {
        f.df.rechunk_mut();
    }
    Ok(by_name)
}

/// Writes `<dir>/<name>.parquet` and `<dir>/<name>.csv` for each frame, `schema.md`
/// describing their columns and `schema.json` giving their types to CSV readers; returns
/// the paths.
pub fn export(frames: &mut [Frame], dir: &Path) -> anyhow::Result<Vec<String>> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("failed to create export folder `{}`", dir.display()))?;
    // Nothing is written unless every frame is what the catalog says it is.
    for frame in frames.iter() {
        let entry = frame.table.ok_or_else(|| {
            anyhow::anyhow!("the `{}` frame has no entry in the catalog", frame.name)
        })?;
        describe::conforms(entry, &frame.df).map_err(anyhow::Error::msg)?;
    }
    let mut written = Vec::new();
    for frame in frames.iter_mut() {
        let parquet = dir.join(format!("{}.parquet", frame.name));
        let file = File::create(&parquet)
            .with_context(|| format!("failed to create `{}`", parquet.display()))?;
        ParquetWriter::new(file)
            .with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![
                arrow_schema_for_every_reader(&frame.df),
            ])))
            .finish(&mut frame.df)
            .with_context(|| format!("failed to write `{}`", parquet.display()))?;
        let csv = dir.join(format!("{}.csv", frame.name));
        let mut file =
            File::create(&csv).with_context(|| format!("failed to create `{}`", csv.display()))?;
        CsvWriter::new(&mut file)
            .finish(&mut frame.df)
            .with_context(|| format!("failed to write `{}`", csv.display()))?;
        written.push(parquet.display().to_string());
        written.push(csv.display().to_string());
    }
    let md = dir.join("schema.md");
    std::fs::write(&md, describe::markdown(frames))
        .with_context(|| format!("failed to write `{}`", md.display()))?;
    written.push(md.display().to_string());
    let json = dir.join("schema.json");
    let text = serde_json::to_string_pretty(&describe::schema_json(frames))
        .context("cannot write the export's schema")?;
    std::fs::write(&json, text + "\n")
        .with_context(|| format!("failed to write `{}`", json.display()))?;
    written.push(json.display().to_string());
    Ok(written)
}

/// The Arrow schema a Parquet file carries for Arrow readers (its `ARROW:schema` key),
/// written with the types every Arrow reader knows: strings as `large_utf8`, not the
/// `utf8_view` Polars holds them in, which pyarrow before 15 cannot read at all
/// (`Unrecognized type: 24`: not one column of the file opens). The data pages are the
/// same either way (Parquet's BYTE_ARRAY strings).
pub fn arrow_schema_for_every_reader(df: &DataFrame) -> (String, String) {
    use polars_core::prelude::{CompatLevel, SchemaExt};
    let arrow = df.schema().to_arrow(CompatLevel::oldest());
    let kv = polars_parquet::write::schema_to_metadata_key(&arrow);
    (kv.key, kv.value.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_exports_a_frame() {
        // A frame the catalog describes is written; one it does not is refused, and
        // nothing is written.
        let entry = crate::schema::frames::doc("parameters").expect("entry");
        let mut b = FrameBuilder::new("parameters");
        for c in entry.columns() {
            b = match c.ty {
                crate::schema::Type::Str => b.str(c.name, ["x", "y"]),
                crate::schema::Type::F64 => b.f64(c.name, [Some(1.5), None]),
                crate::schema::Type::I64 => b.count(c.name, [1, 2]),
                crate::schema::Type::Bool => b.bool(c.name, [true, false]),
                crate::schema::Type::Timestamp => b.opt_timestamp(c.name, [Some(0), None]),
            };
        }
        let mut frames = vec![b.build().expect("frame")];
        assert_eq!(frames[0].df.height(), 2);
        let dir = tempfile::tempdir().expect("tempdir");
        let written = export(&mut frames, dir.path()).expect("export");
        assert_eq!(written.len(), 4, "parquet, csv, schema.md, schema.json");
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("schema.json")).expect("schema.json"),
        )
        .expect("json");
        let cols = &schema["frames"][0]["columns"];
        assert_eq!(
            cols[0],
            serde_json::json!({"name": "input", "sql": "VARCHAR", "pandas": "string"})
        );
        let csv = std::fs::read_to_string(dir.path().join("parameters.csv")).expect("csv");
        assert!(csv.starts_with("input,suite,subject,"), "{csv}");
        assert!(csv.contains(",1.5,"), "{csv}");
        let parquet = std::fs::read(dir.path().join("parameters.parquet")).expect("parquet");
        assert_eq!(&parquet[..4], b"PAR1");
        let mut unknown = vec![FrameBuilder::new("t")
            .str("a", ["x", "y"])
            .build()
            .expect("frame")];
        let other = tempfile::tempdir().expect("tempdir");
        let err = export(&mut unknown, other.path()).expect_err("not in the catalog");
        assert!(err.to_string().contains("no entry in the catalog"), "{err}");
        assert_eq!(
            std::fs::read_dir(other.path()).map(|d| d.count()).ok(),
            Some(0)
        );
    }

    #[test]
    fn refuses_columns_of_different_heights() {
        let r = FrameBuilder::new("t")
            .str("a", ["x"])
            .count("b", [1, 2])
            .build();
        assert!(r.is_err());
    }
}
