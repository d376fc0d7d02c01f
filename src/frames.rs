//! Records become Polars frames here, and frames leave as Parquet and CSV.

use std::fs::File;
use std::path::Path;

use anyhow::Context;
use polars::prelude::{Column, CsvWriter, DataFrame, ParquetWriter, SerWriter};

/// A named frame, e.g. `storage_runs`.
#[derive(Debug, Clone)]
pub struct Frame {
    pub name: String,
    pub df: DataFrame,
}

/// Builds a frame column by column; every column must have the same height.
pub struct FrameBuilder {
    name: String,
    height: Option<usize>,
    columns: Vec<Column>,
}

impl FrameBuilder {
    pub fn new(name: &str) -> Self {
        FrameBuilder {
            name: name.to_string(),
            height: None,
            columns: Vec::new(),
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

    pub fn f64(self, name: &str, values: impl IntoIterator<Item = Option<f64>>) -> Self {
        let v: Vec<Option<f64>> = values.into_iter().collect();
        self.push(Column::new(name.into(), v))
    }

    pub fn u64(self, name: &str, values: impl IntoIterator<Item = u64>) -> Self {
        let v: Vec<u64> = values.into_iter().collect();
        self.push(Column::new(name.into(), v))
    }

    pub fn i64(self, name: &str, values: impl IntoIterator<Item = i64>) -> Self {
        let v: Vec<i64> = values.into_iter().collect();
        self.push(Column::new(name.into(), v))
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
        })
    }
}

/// Writes `<dir>/<name>.parquet` and `<dir>/<name>.csv` for each frame; returns the paths.
pub fn export(frames: &mut [Frame], dir: &Path) -> anyhow::Result<Vec<String>> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("failed to create export folder `{}`", dir.display()))?;
    let mut written = Vec::new();
    for frame in frames.iter_mut() {
        let parquet = dir.join(format!("{}.parquet", frame.name));
        let file = File::create(&parquet)
            .with_context(|| format!("failed to create `{}`", parquet.display()))?;
        ParquetWriter::new(file)
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
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_exports_a_frame() {
        let mut frames = vec![FrameBuilder::new("t")
            .str("a", ["x", "y"])
            .f64("b", [Some(1.5), None])
            .build()
            .expect("frame")];
        assert_eq!(frames[0].df.height(), 2);
        let dir = tempfile::tempdir().expect("tempdir");
        let written = export(&mut frames, dir.path()).expect("export");
        assert_eq!(written.len(), 2);
        let csv = std::fs::read_to_string(dir.path().join("t.csv")).expect("csv");
        assert_eq!(csv, "a,b\nx,1.5\ny,\n");
        let parquet = std::fs::read(dir.path().join("t.parquet")).expect("parquet");
        assert_eq!(&parquet[..4], b"PAR1");
    }

    #[test]
    fn refuses_columns_of_different_heights() {
        let r = FrameBuilder::new("t")
            .str("a", ["x"])
            .u64("b", [1, 2])
            .build();
        assert!(r.is_err());
    }
}
