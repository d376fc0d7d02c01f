//! The storage procedure's reference-setup table (in `reports/storage.toml`) checked
//! against what the files show.

use std::sync::OnceLock;

use super::reference::STORAGE_TOML as TOML;
use crate::why::conformance::{
    contains, row_with, unknown, Conform, Conformance, ConformanceRow, ReferenceSetup, Row,
};
use crate::why::setup::{Read, Setup};

/// The table beside what `setup` shows; none when the TOML's table does not parse (the
/// suites' tests parse it).
pub fn conformance(setup: &Setup) -> Option<Conformance> {
    static TABLE: OnceLock<Option<ReferenceSetup>> = OnceLock::new();
    TABLE
        .get_or_init(|| ReferenceSetup::parse(TOML).ok())
        .as_ref()
        .map(|t| t.judge(setup, check))
}

/// One row checked against the files; none for a row this suite has no check for (its
/// test checks every row of the TOML has one).
fn check(row: &Row, s: &Setup) -> Option<ConformanceRow> {
    let get = |k: &str| s.get(k);
    Some(match row.id.as_str() {
        "server" => get("server").map_or_else(
            || unknown(row),
            |r| row_with(row, r, contains(r, "R750"), None),
        ),
        "os" => get("os").map_or_else(
            || unknown(row),
            |r| row_with(row, r, contains(r, "ubuntu") && contains(r, "24.04"), None),
        ),
        "cpu" => get("cpu").map_or_else(
            || unknown(row),
            |r| {
                row_with(
                    row,
                    r,
                    contains(r, "6346") && r.value.starts_with("2 ×"),
                    None,
                )
            },
        ),
        "memory" => get("memory").map_or_else(
            || unknown(row),
            // 512 GB installed shows as about 500 GiB in `free -g`.
            |r| {
                row_with(
                    row,
                    r,
                    r.number.is_some_and(|g| (440.0..=530.0).contains(&g)),
                    None,
                )
            },
        ),
        "drives" => drives(row, s),
        "fio-io" => fio_io(row, s),
        _ => return None,
    })
}

fn drives(row: &Row, s: &Setup) -> ConformanceRow {
    if let Some(r) = s.get("drives") {
        let ok = r.number == Some(4.0)
            && (contains(r, "PM9A3") || contains(r, "MZQL23T8"))
            && !r.value.contains(", ");
        return row_with(row, r, ok, None);
    }
    if let Some(f) = s.get("fio-filename") {
        let members: Vec<&str> = f.value.split(':').filter(|m| !m.is_empty()).collect();
        let loops = members.iter().all(|m| m.starts_with("/dev/loop"));
        let value = if loops {
            format!("{} loop device(s): {}", members.len(), f.value)
        } else {
            format!("fio's filename {} (models not recorded)", f.value)
        };
        let read = Read {
            value,
            number: Some(members.len() as f64),
            source: f.source.clone(),
        };
        if loops {
            return row_with(row, &read, false, None);
        }
        let mut r = row_with(row, &read, false, None);
        r.status = Conform::Unknown;
        r.predicts = format!(
            "the drives' models are not in the results: {} would give them",
            row.would_give
        );
        return r;
    }
    unknown(row)
}

fn fio_io(row: &Row, s: &Setup) -> ConformanceRow {
    let (direct, file, compress) = (
        s.get("fio-direct"),
        s.get("fio-filename"),
        s.get("fio-compress"),
    );
    if direct.is_none() && file.is_none() && compress.is_none() {
        return unknown(row);
    }
    let mut parts = Vec::new();
    let mut ok = true;
    let mut unknown_parts = Vec::new();
    match direct {
        Some(d) => {
            parts.push(format!("direct={}", d.value));
            ok &= d.value == "1" || d.value == "true";
        }
        None => unknown_parts.push("direct"),
    }
    match file {
        Some(f) => {
            let raw = f.value.split(':').all(|m| m.starts_with("/dev/"));
            parts.push(if raw {
                format!("raw block device ({})", f.value)
            } else {
                format!("files ({})", f.value)
            });
            ok &= raw;
        }
        None => unknown_parts.push("filename"),
    }
    match compress {
        Some(c) => {
            parts.push(format!("{}% compressible", c.value));
            ok &= c.number == Some(67.0);
        }
        None => unknown_parts.push("buffer_compress_percentage"),
    }
    if !unknown_parts.is_empty() {
        parts.push(format!("{} not recorded", unknown_parts.join(", ")));
    }
    let source = [direct, file, compress]
        .iter()
        .flatten()
        .map(|r| r.source.clone())
        .next()
        .unwrap_or_default();
    let read = Read {
        value: format!("fio, {}", parts.join(", ")),
        number: None,
        source,
    };
    let mut r = row_with(row, &read, ok, None);
    if ok && !unknown_parts.is_empty() {
        r.status = Conform::Unknown;
        r.predicts = format!("{} not in the results", unknown_parts.join(", "));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_table_has_a_check() {
        let table = ReferenceSetup::parse(TOML).expect("the reference_setup table parses");
        assert!(!table.rows.is_empty());
        for row in &table.rows {
            assert!(
                check(row, &Setup::default()).is_some(),
                "no check for row `{}`",
                row.id
            );
        }
    }
}
