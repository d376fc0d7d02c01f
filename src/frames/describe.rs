//! The frames against the tables that document them: `schema.md`, and
//! the check that a frame is what its entry says.

use polars_core::prelude::{DataFrame, DataType};

use super::Frame;
use crate::schema::Table;

/// `schema.md`: each exported frame, its rows and its columns with units.
pub fn markdown(frames: &[Frame]) -> String {
    let mut s = String::from(
        "# Frames\n\nEvery frame is written as `<name>.parquet` and `<name>.csv`. Empty cells are missing values.\n",
    );
    for f in frames {
        s.push_str(&format!("\n## {}\n\n", f.name));
        let d = f.table;
        if let Some(d) = d {
            s.push_str(&format!(
                "One row per {}; {} rows here.\n\n",
                d.rows,
                f.df.height()
            ));
        }
        s.push_str("| column | type | unit | meaning |\n|---|---|---|---|\n");
        for c in f.df.columns() {
            let (unit, meaning) = d
                .and_then(|d| d.column(c.name().as_str()))
                .map_or(("", "(not described)"), |c| (c.unit, c.meaning));
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.name(),
                c.dtype(),
                unit,
                meaning
            ));
        }
    }
    s
}

/// The export's `schema.json`: for every frame, its CSV and Parquet files and each
/// column's type as SQL (`VARCHAR`, `DOUBLE`, `BIGINT`, `BOOLEAN`: DuckDB's `read_csv(...,
/// columns = {...})`, Spark's `schema`) and as pandas names it (`string`, `float64`,
/// `Int64`, `boolean`: `read_csv(..., dtype = {...})`), so a CSV reads back with the types
/// of its Parquet instead of whatever a reader guesses from the cells (an all-empty column,
/// a column of number-like names). The frames' own types, which the catalog checked.
pub fn schema_json(frames: &[Frame]) -> serde_json::Value {
    let frames: Vec<serde_json::Value> = frames
        .iter()
        .map(|f| {
            let columns: Vec<serde_json::Value> =
                f.df.columns()
                    .iter()
                    .map(|c| {
                        let (sql, pandas) = match c.dtype() {
                            DataType::Float64 | DataType::Float32 => ("DOUBLE", "float64"),
                            DataType::Int64 | DataType::Int32 => ("BIGINT", "Int64"),
                            DataType::Boolean => ("BOOLEAN", "boolean"),
                            DataType::Datetime(..) => ("TIMESTAMP", "datetime64[us]"),
                            _ => ("VARCHAR", "string"),
                        };
                        serde_json::json!({"name": c.name().as_str(), "sql": sql, "pandas": pandas})
                    })
                    .collect();
            serde_json::json!({
                "name": f.name,
                "csv": format!("{}.csv", f.name),
                "parquet": format!("{}.parquet", f.name),
                "rows": f.df.height(),
                "columns": columns,
            })
        })
        .collect();
    serde_json::json!({
        "about": "the types of every export frame's columns: read a CSV with them to get its Parquet's types (docs/compare-and-datasets.md)",
        "frames": frames,
    })
}

/// Whether a frame is what the schema says its table holds: the same columns in order,
/// each of its type.
pub fn conforms(t: &Table, df: &DataFrame) -> Result<(), String> {
    let table = t.name;
    let got: Vec<(String, DataType)> = df
        .columns()
        .iter()
        .map(|c| (c.name().to_string(), c.dtype().clone()))
        .collect();
    let want: Vec<(&str, DataType)> = t.columns().map(|c| (c.name, c.ty.dtype())).collect();
    if got.len() != want.len() || got.iter().zip(&want).any(|(g, w)| g.0 != w.0 || g.1 != w.1) {
        return Err(format!(
            "the `{table}` rows do not match the schema: written {:?}, described {:?}",
            got, want
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Type;
    use polars_core::prelude::{IntoColumn, NamedFrom, Series};

    fn frame_of(columns: Vec<polars_core::prelude::Column>) -> DataFrame {
        let h = columns.first().map_or(0, |c| c.len());
        DataFrame::new(h, columns).expect("frame")
    }

    #[test]
    fn a_frame_is_refused_when_a_column_is_unsigned_missing_or_out_of_order() {
        let entry = crate::schema::frames::doc("parameters").expect("parameters entry");
        let names: Vec<&str> = entry.columns().map(|c| c.name).collect();
        let good: Vec<_> = entry
            .columns()
            .map(|c| match c.ty {
                Type::Str => Series::new(c.name.into(), ["x"]).into_column(),
                Type::F64 => Series::new(c.name.into(), [1.0f64]).into_column(),
                Type::I64 => Series::new(c.name.into(), [1i64]).into_column(),
                Type::Bool => Series::new(c.name.into(), [true]).into_column(),
                Type::Timestamp => Series::new(c.name.into(), [1i64])
                    .cast(&c.ty.dtype())
                    .expect("a timestamp")
                    .into_column(),
            })
            .collect();
        assert_eq!(conforms(entry, &frame_of(good.clone())), Ok(()));
        // The number column as an unsigned integer: Spark and Trino read no unsigned types.
        let mut unsigned = good.clone();
        let at = names
            .iter()
            .position(|n| *n == "number")
            .expect("number column");
        unsigned[at] = Series::new("number".into(), [1u64]).into_column();
        assert!(conforms(entry, &frame_of(unsigned)).is_err());
        let mut short = good.clone();
        short.pop();
        assert!(conforms(entry, &frame_of(short)).is_err());
        let mut swapped = good;
        swapped.swap(0, 1);
        assert!(conforms(entry, &frame_of(swapped)).is_err());
    }
}
