//! A result file that is another's copy is one run, not two: two files in one array
//! folder that fio wrote at the same second with every number of every group the same
//! (bytes, I/Os, runtime, bandwidth, IOPS, latencies, CPU) are the same run, copied. Real
//! repeats never agree to the last digit; counting a copy as a repeat would give a spread
//! of zero and an interval of no width, a certainty the files do not hold.

use crate::ingest::walk::Skipped;

use super::load::{Loaded, Run};

/// Whether `b` is a copy of `a`: same folder, same fio timestamp, the same groups with the
/// same numbers.
fn same_run(a: &Run, b: &Run) -> bool {
    a.array_dir == b.array_dir
        && a.output.timestamp == b.output.timestamp
        && a.groups.len() == b.groups.len()
        && a.groups.iter().zip(b.groups).all(|(x, y)| {
            x.read == y.read
                && x.write == y.write
                && x.sys_cpu.to_bits() == y.sys_cpu.to_bits()
                && x.usr_cpu.to_bits() == y.usr_cpu.to_bits()
        })
}

/// Which run of its job a file is, for choosing which of two copies stays: the file
/// without a repeat number is run 1 (`NAME.json` before `NAME-run2.json`, which sorts
/// first by name).
fn run_number(run: &Run) -> u32 {
    run.groups
        .first()
        .and_then(|g| super::load::repeat_number(&run.stem, &g.jobname))
        .unwrap_or(1)
}

/// Drops every run that is a copy of another in its folder, keeping the lowest-numbered
/// (each dropped one listed with the file it copies), and the iostat log beside a copy
/// with it (it belongs to no run). The runs kept stay in their order.
pub(super) fn drop_copies(loaded: &mut Loaded, skipped: &mut Vec<Skipped>) {
    let runs = &loaded.runs;
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_cached_key(|&i| {
        (
            runs[i].array_dir.as_str(),
            run_number(&runs[i]),
            runs[i].file.as_str(),
        )
    });
    // Runs kept, by what a copy must share with its original (folder, timestamp, bytes
    // moved): each run is held against its few look-alikes, not every run kept (a
    // folder holds thousands).
    type Key<'a> = (&'a str, Option<i64>, Vec<(u64, u64)>);
    let mut kept: std::collections::BTreeMap<Key, Vec<usize>> = Default::default();
    let mut copies: Vec<(usize, usize)> = Vec::new();
    for i in order {
        let run = &runs[i];
        let bytes: Vec<(u64, u64)> = run
            .groups
            .iter()
            .map(|g| (g.read.io_bytes, g.write.io_bytes))
            .collect();
        let moved = bytes.iter().any(|(r, w)| r + w > 0);
        let alike = kept
            .entry((run.array_dir.as_str(), run.output.timestamp, bytes))
            .or_default();
        match alike.iter().find(|&&k| moved && same_run(&runs[k], run)) {
            Some(&original) => copies.push((i, original)),
            None => alike.push(i),
        }
    }
    if copies.is_empty() {
        return;
    }
    for &(copy, original) in &copies {
        let (run, original) = (&loaded.runs[copy], &loaded.runs[original]);
        skipped.push(Skipped {
            file: run.file.clone(),
            line: None,
            reason: format!(
                "the same run as `{}` (the same fio timestamp and every number identical): a copy, counted once",
                original.file
            ),
        });
        let key = (run.array_dir.clone(), run.stem.clone());
        if let Some(io) = loaded.iostat.remove(&key) {
            skipped.push(Skipped {
                file: io.file,
                line: None,
                reason: format!("beside `{}`, a copy of another run: not read", run.file),
            });
        }
    }
    let dropped: std::collections::BTreeSet<usize> = copies.iter().map(|c| c.0).collect();
    let mut index = 0;
    loaded.runs.retain(|_| {
        index += 1;
        !dropped.contains(&(index - 1))
    });
}
