//! The storage suite's derived frame: every job shape run on both compared arrays, the
//! two sides matched by an inner join on the shape (Polars), with the ratio.

use std::collections::BTreeSet;

use polars_core::prelude::{Column, DataFrame, PolarsResult};
use polars_ops::prelude::DataFrameJoinOps;

use crate::frames::{Frame, FrameBuilder};

use super::judge::{mb_s, Sides};
use super::load::RunGroup;

const SHAPE: [&str; 5] = ["rw", "bs_bytes", "numjobs", "iodepth", "rwmixread"];

/// One side's groups, the first of each shape (as the table has always shown).
fn side(groups: &[RunGroup], array: &str, prefix: &str) -> anyhow::Result<DataFrame> {
    let mut seen = BTreeSet::new();
    let rows: Vec<&RunGroup> = groups
        .iter()
        .filter(|g| g.run.array.eq_ignore_ascii_case(array))
        .filter(|g| seen.insert(g.signature.clone()))
        .collect();
    let p99 = |g: &RunGroup| {
        g.group
            .write
            .p99_ns
            .or(g.group.read.p99_ns)
            .map(|ns| ns / 1000.0)
    };
    Ok(FrameBuilder::new(prefix)
        .str("rw", rows.iter().map(|g| g.signature.rw.as_str()))
        // Joins do not match missing keys: an unknown size or mix is 0 / -1 here.
        .i64(
            "bs_bytes",
            rows.iter().map(|g| g.signature.bs.map_or(0, |b| b as i64)),
        )
        .u64("numjobs", rows.iter().map(|g| g.signature.numjobs))
        .u64("iodepth", rows.iter().map(|g| g.signature.iodepth))
        .i64(
            "rwmixread",
            rows.iter()
                .map(|g| g.signature.rwmixread.map_or(-1, |m| m as i64)),
        )
        .str(
            &format!("{prefix}_file"),
            rows.iter().map(|g| g.run.file.as_str()),
        )
        .f64(
            &format!("{prefix}_mb_s"),
            rows.iter().map(|g| Some(mb_s(g))),
        )
        .f64(&format!("{prefix}_p99_us"), rows.iter().map(|g| p99(g)))
        .build()?
        .df)
}

/// `storage_pairs`: baseline and candidate joined on the job shape, ordered as the
/// procedure reads them (rw, block size, queue depth, jobs).
pub fn pairs(groups: &[RunGroup], sides: &Sides) -> anyhow::Result<Frame> {
    let base = side(groups, &sides.baseline, "baseline")?;
    let cand = side(groups, &sides.candidate, "candidate")?;
    // An empty side matches nothing: no join (Polars' join of an empty frame allocates
    // its all-null columns, 8 MiB zeroed once per process).
    let mut df = if base.height() == 0 || cand.height() == 0 {
        base.head(Some(0))
            .hstack(cand.drop_many(SHAPE).head(Some(0)).columns())?
    } else {
        base.inner_join(&cand, SHAPE, SHAPE)?
    };
    let (ratio, qd): (Vec<Option<f64>>, Vec<u64>) = {
        let b = df.column("baseline_mb_s")?.f64()?;
        let c = df.column("candidate_mb_s")?.f64()?;
        let j = df.column("numjobs")?.u64()?;
        let d = df.column("iodepth")?.u64()?;
        (0..df.height())
            .map(|i| {
                let r = match (b.get(i), c.get(i)) {
                    (Some(b), Some(c)) if b > 0.0 => Some(c / b),
                    _ => None,
                };
                let q = j.get(i).unwrap_or(0).saturating_mul(d.get(i).unwrap_or(0));
                (r, q)
            })
            .unzip()
    };
    df.with_column(Column::new("ratio".into(), ratio))?;
    df.with_column(Column::new("queue_depth".into(), qd))?;
    df = sorted(&df)?;
    let n = df.height();
    df.with_column(Column::new(
        "baseline".into(),
        vec![sides.baseline.as_str(); n],
    ))?;
    df.with_column(Column::new(
        "candidate".into(),
        vec![sides.candidate.as_str(); n],
    ))?;
    // The join keys back to missing values where they were unknown.
    let bs: Vec<Option<f64>> = {
        let c = df.column("bs_bytes")?.i64()?;
        (0..n)
            .map(|i| c.get(i).filter(|b| *b > 0).map(|b| b as f64))
            .collect()
    };
    let mix: Vec<Option<f64>> = {
        let c = df.column("rwmixread")?.i64()?;
        (0..n)
            .map(|i| c.get(i).filter(|m| *m >= 0).map(|m| m as f64))
            .collect()
    };
    df.with_column(Column::new("bs_bytes".into(), bs))?;
    df.with_column(Column::new("rwmixread".into(), mix))?;
    let df = df.select([
        "rw",
        "bs_bytes",
        "numjobs",
        "iodepth",
        "queue_depth",
        "rwmixread",
        "baseline",
        "candidate",
        "baseline_file",
        "candidate_file",
        "baseline_mb_s",
        "candidate_mb_s",
        "ratio",
        "baseline_p99_us",
        "candidate_p99_us",
    ])?;
    Ok(Frame {
        name: "storage_pairs".into(),
        df,
    })
}

fn sorted(df: &DataFrame) -> PolarsResult<DataFrame> {
    df.sort(
        ["rw", "bs_bytes", "queue_depth", "numjobs", "rwmixread"],
        Default::default(),
    )
}
