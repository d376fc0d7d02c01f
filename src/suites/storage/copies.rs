//! A result file that is another's copy is one run, not two: two files with the same fio
//! timestamp and the same groups (job names, options and every number: bytes, I/Os,
//! runtime, bandwidth, IOPS, latencies, CPU) are the same run, copied, whether beside it
//! (a repeat that is not one) or in another array's folder (a run of the other array). Real repeats never agree to the last digit; counting a copy as a repeat would
//! give a spread of zero and an interval of no width, a certainty the files do not hold.

use std::collections::{BTreeMap, BTreeSet};

use crate::ingest::walk::Skipped;

use super::load::{Loaded, Run};

/// Whether `b` is a copy of `a`: the same fio timestamp (or none in both), the same
/// groups: job name, options and numbers.
fn same_run(a: &Run, b: &Run) -> bool {
    a.output.timestamp == b.output.timestamp
        && a.groups.len() == b.groups.len()
        && a.groups.iter().zip(b.groups).all(|(x, y)| {
            x.jobname == y.jobname
                && x.options == y.options
                && x.read == y.read
                && x.write == y.write
                && x.sys_cpu.to_bits() == y.sys_cpu.to_bits()
                && x.usr_cpu.to_bits() == y.usr_cpu.to_bits()
        })
}

/// What the two files were found to share, as the skipped file's reason says it.
fn what_matched(run: &Run) -> &'static str {
    match run.output.timestamp {
        Some(t) if t > 0 => "the same fio timestamp, job, options and every number",
        _ => "no fio timestamp in either, and the same job, options and every number",
    }
}

/// Drops every run that is a copy of another, keeping the lowest-numbered (`NAME.json`
/// before `NAME-run2.json`, as the verdicts number them; then in path order), each dropped one
/// listed with the file it copies, and the iostat and bandwidth logs beside a copy with
/// it (they belong to no run read). The runs kept stay in their order. Runs that moved
/// no data are never copies of anything: they are not results.
pub(super) fn drop_copies(loaded: &mut Loaded, skipped: &mut Vec<Skipped>) {
    let numbers = loaded.run_numbers();
    let runs = &loaded.runs;
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&i| (numbers[i], runs[i].file.as_str()));
    // Runs kept, by what a copy must share with its original (timestamp, bytes moved):
    // each run is held against its few look-alikes, not every run kept (an input holds
    // thousands).
    type Key = (Option<i64>, Vec<(u64, u64)>);
    let mut kept: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    let mut copies: Vec<(usize, usize)> = Vec::new();
    for i in order {
        let run = &runs[i];
        let bytes: Vec<(u64, u64)> = run
            .groups
            .iter()
            .map(|g| (g.read.io_bytes, g.write.io_bytes))
            .collect();
        if !bytes.iter().any(|(r, w)| r + w > 0) {
            continue;
        }
        let alike = kept.entry((run.output.timestamp, bytes)).or_default();
        match alike.iter().find(|&&k| same_run(&runs[k], run)) {
            Some(&original) => copies.push((i, original)),
            None => alike.push(i),
        }
    }
    for &(copy, original) in &copies {
        let (run, original) = (&loaded.runs[copy], &loaded.runs[original]);
        skipped.push(Skipped {
            file: run.file.clone(),
            line: None,
            reason: format!(
                "the same run as `{}` ({}): a copy, counted once",
                original.file,
                what_matched(run)
            ),
        });
        let key = (run.array_dir.clone(), run.stem.clone());
        let beside = format!("beside `{}`, a copy of another run: not read", run.file);
        if let Some(io) = loaded.iostat.remove(&key) {
            skipped.push(Skipped {
                file: io.file,
                line: None,
                reason: beside.clone(),
            });
        }
        for (file, _) in loaded.bw_logs.remove(&key).unwrap_or_default() {
            skipped.push(Skipped {
                file,
                line: None,
                reason: beside.clone(),
            });
        }
    }
    let dropped: BTreeSet<usize> = copies.iter().map(|c| c.0).collect();
    let mut index = 0;
    loaded.runs.retain(|_| {
        index += 1;
        !dropped.contains(&(index - 1))
    });
}
