//! The storage suite's matched runs: every job shape run on both compared arrays
//! (matched on the whole shape; a job run more than once pooled over its runs, as the
//! verdicts pool them), with the ratio, and the `storage_pairs` frame made from them for
//! export.

use std::collections::BTreeSet;

use crate::fio::signature::Signature;
use crate::frames::{Frame, FrameBuilder};
use crate::schema::frames::INPUT;
use crate::schema::{c, Table, Type};

use super::judge::{mb_s, Sides};
use super::load::RunGroup;

/// The `storage_pairs` frame: its rows and columns, as `--export` checks and describes them.
pub static PAIRS: Table = Table {
    name: "storage_pairs",
    rows: "job shape run on both compared arrays (storage; joined with Polars)",
    parts: &[&[
        INPUT,
        c("rw", Type::Str, "", "readwrite"),
        c("bs_bytes", Type::F64, "B", "block size"),
        c("numjobs", Type::I64, "", "jobs"),
        c("iodepth", Type::I64, "", "depth per job"),
        c("queue_depth", Type::I64, "", "jobs x depth"),
        c(
            "rwmixread",
            Type::F64,
            "%",
            "read share of a mixed workload",
        ),
        c("baseline", Type::Str, "", "the baseline array"),
        c("candidate", Type::Str, "", "the candidate array"),
        c("baseline_file", Type::Str, "", "baseline result"),
        c("candidate_file", Type::Str, "", "candidate result"),
        c(
            "baseline_mb_s",
            Type::F64,
            "MB/s",
            "read + write, 10^6 bytes; a job run more than once: the geometric mean of its runs",
        ),
        c(
            "candidate_mb_s",
            Type::F64,
            "MB/s",
            "read + write, 10^6 bytes; a job run more than once: the geometric mean of its runs",
        ),
        c(
            "baseline_runs",
            Type::I64,
            "",
            "runs of the job in the baseline array (NAME.json, NAME-run2.json, ...)",
        ),
        c(
            "candidate_runs",
            Type::I64,
            "",
            "runs of the job in the candidate array",
        ),
        c("ratio", Type::F64, "x", "candidate over baseline"),
        c(
            "baseline_p99_us",
            Type::F64,
            "µs",
            "p99 of writes where the run wrote, else of reads; the largest of the runs",
        ),
        c(
            "candidate_p99_us",
            Type::F64,
            "µs",
            "p99 of writes where the run wrote, else of reads; the largest of the runs",
        ),
    ]],
};

/// One job shape run on both arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair<'a> {
    pub shape: &'a Signature,
    /// numjobs x iodepth.
    pub queue_depth: u64,
    pub baseline_file: &'a str,
    pub candidate_file: &'a str,
    /// MB/s, the geometric mean over the runs when the job ran more than once (as the
    /// verdicts pool them).
    pub baseline_mb_s: f64,
    pub candidate_mb_s: f64,
    /// How many runs of the job each side holds.
    pub baseline_runs: usize,
    pub candidate_runs: usize,
    /// Candidate over baseline, when the baseline moved data.
    pub ratio: Option<f64>,
    /// The largest p99 over the runs.
    pub baseline_p99_us: Option<f64>,
    pub candidate_p99_us: Option<f64>,
}

/// One side's groups, the first of each shape (as the table has always shown). A group
/// whose file records no options has no known shape and is matched with nothing.
fn side<'a, 'r>(groups: &'a [RunGroup<'r>], array: &str) -> Vec<&'a RunGroup<'r>> {
    let mut seen = BTreeSet::new();
    groups
        .iter()
        .filter(|g| g.run.array.eq_ignore_ascii_case(array) && g.group.recorded)
        .filter(|g| seen.insert(&g.signature))
        .collect()
}

/// p99 of writes where the run wrote, else of reads, in µs.
fn p99_us(g: &RunGroup) -> Option<f64> {
    g.group
        .write
        .p99_ns
        .or(g.group.read.p99_ns)
        .map(|ns| ns / 1000.0)
}

/// The runs of `first`'s job: the groups of the same folder, job (a repeat's job is the
/// one it repeats), group and shape
/// (`NAME.json`, `NAME-run2.json`, ...), `first` among them.
fn runs_of<'a, 'r>(groups: &'a [RunGroup<'r>], first: &'a RunGroup<'r>) -> Vec<&'a RunGroup<'r>> {
    groups
        .iter()
        .filter(|g| {
            g.run.array_dir == first.run.array_dir
                && g.job == first.job
                && g.group.groupid == first.group.groupid
                && g.signature == first.signature
                && g.group.recorded
        })
        .collect()
}

/// MB/s of one run, or the geometric mean of several (the verdicts' pooling); a run that
/// moved nothing makes it 0.
fn pooled_mb_s(runs: &[&RunGroup]) -> f64 {
    let v: Vec<f64> = runs.iter().map(|g| mb_s(g)).collect();
    match v.as_slice() {
        [one] => *one,
        _ => crate::stats::geometric_mean(&v).unwrap_or(0.0),
    }
}

/// The largest p99 of the runs that have one.
fn worst_p99_us(runs: &[&RunGroup]) -> Option<f64> {
    runs.iter().filter_map(|g| p99_us(g)).reduce(f64::max)
}

/// Baseline and candidate matched on the job shape, ordered as the procedure reads them
/// (rw, block size, queue depth, jobs, mix).
pub fn pairs<'a>(groups: &'a [RunGroup<'_>], sides: &Sides) -> Vec<Pair<'a>> {
    let cand = side(groups, &sides.candidate);
    let mut out: Vec<Pair> = side(groups, &sides.baseline)
        .into_iter()
        .filter_map(|b| {
            let c = cand.iter().find(|c| c.signature == b.signature)?;
            let (b_runs, c_runs) = (runs_of(groups, b), runs_of(groups, c));
            let (bm, cm) = (pooled_mb_s(&b_runs), pooled_mb_s(&c_runs));
            Some(Pair {
                shape: &b.signature,
                queue_depth: b.signature.numjobs.saturating_mul(b.signature.iodepth),
                baseline_file: &b.run.file,
                candidate_file: &c.run.file,
                baseline_mb_s: bm,
                candidate_mb_s: cm,
                baseline_runs: b_runs.len(),
                candidate_runs: c_runs.len(),
                ratio: (bm > 0.0).then(|| cm / bm),
                baseline_p99_us: worst_p99_us(&b_runs),
                candidate_p99_us: worst_p99_us(&c_runs),
            })
        })
        .collect();
    out.sort_by(|x, y| {
        let key = |p: &Pair<'a>| {
            (
                p.shape.rw.clone(),
                p.shape.bs,
                p.queue_depth,
                p.shape.numjobs,
                p.shape.rwmixread,
            )
        };
        key(x).cmp(&key(y))
    });
    out
}

/// `storage_pairs`: one row per matched shape.
pub fn frame(pairs: &[Pair], sides: &Sides) -> anyhow::Result<Frame> {
    let num = |v: Option<u64>| v.map(|n| n as f64);
    FrameBuilder::of(&PAIRS)
        .str("rw", pairs.iter().map(|p| p.shape.rw.as_str()))
        .f64("bs_bytes", pairs.iter().map(|p| num(p.shape.bs)))
        .count("numjobs", pairs.iter().map(|p| p.shape.numjobs))
        .count("iodepth", pairs.iter().map(|p| p.shape.iodepth))
        .count("queue_depth", pairs.iter().map(|p| p.queue_depth))
        .f64("rwmixread", pairs.iter().map(|p| num(p.shape.rwmixread)))
        .str("baseline", pairs.iter().map(|_| sides.baseline.as_str()))
        .str("candidate", pairs.iter().map(|_| sides.candidate.as_str()))
        .str("baseline_file", pairs.iter().map(|p| p.baseline_file))
        .str("candidate_file", pairs.iter().map(|p| p.candidate_file))
        .f64("baseline_mb_s", pairs.iter().map(|p| Some(p.baseline_mb_s)))
        .f64(
            "candidate_mb_s",
            pairs.iter().map(|p| Some(p.candidate_mb_s)),
        )
        .count(
            "baseline_runs",
            pairs.iter().map(|p| p.baseline_runs as u64),
        )
        .count(
            "candidate_runs",
            pairs.iter().map(|p| p.candidate_runs as u64),
        )
        .f64("ratio", pairs.iter().map(|p| p.ratio))
        .f64("baseline_p99_us", pairs.iter().map(|p| p.baseline_p99_us))
        .f64("candidate_p99_us", pairs.iter().map(|p| p.candidate_p99_us))
        .build()
}
