//! Tables like the article's, measured beside published, and the suite's charts.

use crate::fio::signature::parse_size;
use crate::model::chart::{Chart, Kind, Series};
use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, printed, qty, Phrase};
use crate::model::units::format_size;
use crate::phrase;
use crate::suites::Table;

use super::judge::{op_of, unsupported, Shares};
use super::load::{ArrayDir, Run};
use super::reference::{Row, SpdkReference};
use super::theory::Op;

/// The article's line for this run; degraded runs have none (the article has no numbers).
fn published<'a>(r: &'a SpdkReference, a: &ArrayDir, run: &Run) -> Option<&'a Row> {
    if run.degraded {
        return None;
    }
    r.row.iter().find(|p| {
        p.array.eq_ignore_ascii_case(&a.array)
            && p.drives == a.drives
            && p.rw == run.sig.rw
            && parse_size(&p.bs) == run.sig.bs
            && p.numjobs == run.sig.numjobs
            && p.iodepth == run.sig.iodepth
    })
}

/// IOPS as the article prints them: `14.3k`, `2821k` (no thousands separators).
fn k(x: f64) -> Phrase {
    phrase!(
        "{}k",
        printed(x / 1000.0, if x < 100_000.0 { 1 } else { 0 })
    )
}

/// A number as the article prints them: `3359`, `495.88`.
fn opt(x: Option<f64>, p: u8) -> Phrase {
    x.map_or(Phrase::dash(), |v| phrase!("{}", printed(v, p)))
}

/// Read/write pairs as the article prints mixed runs: `805k/345k`.
fn pair(r: Phrase, w: Phrase, mixed: bool) -> Phrase {
    if mixed {
        phrase!("{}/{}", r, w)
    } else {
        r
    }
}

pub fn tables(arrays: &[ArrayDir], r: &SpdkReference, shares: &Shares) -> Vec<Table> {
    let mut out = Vec::new();
    for a in arrays {
        let name = a.dir.rsplit('/').next().unwrap_or(&a.dir).to_string();
        let mut runs: Vec<&Run> = a.runs.iter().collect();
        runs.sort_by_key(|x| {
            (
                x.degraded,
                x.sig.rw.clone(),
                x.sig.bs,
                x.sig.numjobs,
                x.sig.iodepth,
            )
        });
        let rows = runs.iter().map(|run| row(run, a, r, shares)).collect();
        out.push(Table {
            title: format!("{name}: {} drives", a.drives),
            columns: [
                "run",
                "IOPS or GB/s",
                "avg lat us",
                "p99.9 lat us",
                "published",
                "published avg / p99.9 us",
                "share of theoretical",
                "status",
            ]
            .map(String::from)
            .to_vec(),
            rows,
            notes: vec![
                format!(
                    "full stripe of {name}: {}; GB/s are decimal; mixed runs show read/write",
                    super::judge::stripe_bytes(a, r).map_or("-".into(), format_size)
                ),
                "share of theoretical: given for the run each criterion judges (the best of its kind against the raw drives' best, as the article computes it); other runs have no raw-drive run of their shape to be a share of".into(),
            ],
        });
    }
    out
}

/// One run's row of its array's table.
fn row(run: &Run, a: &ArrayDir, r: &SpdkReference, shares: &Shares) -> Vec<Phrase> {
    let mixed = run.sig.rw == "randrw" || run.sig.rw == "rw";
    let seq = matches!(run.sig.rw.as_str(), "read" | "write");
    let p = published(r, a, run);
    let measured_main = if seq {
        phrase!("{}", qty(run.gbps(), 1, Unit::GigabytesPerSecond))
    } else {
        pair(
            k(run.read.iops.max(if run.sig.rw == "randwrite" {
                run.write.iops
            } else {
                0.0
            })),
            k(run.write.iops),
            mixed,
        )
    };
    let avg = if run.sig.rw == "randwrite" || run.sig.rw == "write" {
        opt(run.write.avg_us, 2)
    } else {
        pair(opt(run.read.avg_us, 2), opt(run.write.avg_us, 2), mixed)
    };
    let p999 = if run.sig.rw == "randwrite" || run.sig.rw == "write" {
        opt(run.write.p999_us, 0)
    } else {
        pair(opt(run.read.p999_us, 0), opt(run.write.p999_us, 0), mixed)
    };
    let pub_main = p.map_or(Phrase::dash(), |p| match (p.gbps, p.iops) {
        (Some(g), _) => phrase!("{}", qty(g, 1, Unit::GigabytesPerSecond)),
        (None, Some(i)) => pair(k(i), p.write_iops.map_or(Phrase::dash(), k), mixed),
        _ => Phrase::dash(),
    });
    let pub_lat = p.map_or(Phrase::dash(), |p| {
        let avg = pair(opt(p.avg_us, 2), opt(p.write_avg_us, 2), mixed);
        let p999 = pair(opt(p.p999_us, 0), opt(p.write_p999_us, 0), mixed);
        if avg.is("-") {
            Phrase::dash()
        } else {
            phrase!("{} / {}", avg, p999)
        }
    });
    let share = share_cell(run, a, r, shares);
    let status = status_cell(run, a, r);
    vec![
        phrase!(
            "{}{}{}",
            if run.recorded {
                run.sig.phrase()
            } else {
                phrase!(
                    "unknown shape ({})",
                    phrase::name(run.file.rsplit('/').next().unwrap_or(&run.file))
                )
            },
            if run.degraded { " (degraded)" } else { "" },
            if run.tool == "fio" { "" } else { " (bdevperf)" }
        ),
        measured_main,
        avg,
        p999,
        pub_main,
        pub_lat,
        share,
        phrase!(
            "{}{}{}",
            status.clone(),
            if status.is_empty() || run.notes.is_empty() {
                ""
            } else {
                "; "
            },
            phrase::name(run.notes.join("; "))
        ),
    ]
}

/// A run's share of theoretical, only for the run its criterion judged.
fn share_cell(run: &Run, a: &ArrayDir, r: &SpdkReference, shares: &Shares) -> Phrase {
    // A share only for the run its criterion judged (the array's best of
    // that kind, set against the raw drives' best): another run, a QD-1
    // run say, has no raw run of its shape to be a share of.
    op_of(run, a, r)
        .filter(|_| !run.degraded && run.clean())
        .filter(|op| super::judge::best(a, *op, r, false).is_some_and(|(_, f)| f == run.file))
        .and_then(|op| shares.get(&(a.dir.clone(), op)).map(|t| (op, *t)))
        .filter(|(_, t)| *t > 0.0)
        .map_or(Phrase::dash(), |(op, t)| {
            let v = match op {
                Op::RandomRead | Op::RandomWrite => run.iops(),
                Op::StripeRead | Op::StripeWrite => run.gbps(),
            };
            phrase!("{}", qty(v / t * 100.0, 0, Unit::Percent))
        })
}

/// Why a run is not counted, where it is not.
fn status_cell(run: &Run, a: &ArrayDir, r: &SpdkReference) -> Phrase {
    if unsupported(run, a, r) {
        Phrase::from("not supported without FTL")
    } else if run.interrupted.is_some() {
        Phrase::from("interrupted: not counted")
    } else if run.error != 0 {
        phrase!(
            "error {} ({} failed)",
            count(run.error),
            count(run.failed_ios)
        )
    } else if run.failed_ios > 0 {
        phrase!("{} failed I/Os", count(run.failed_ios))
    } else if !run.clean() {
        Phrase::from("no I/O")
    } else {
        Phrase::default()
    }
}

/// Random-read IOPS against jobs per drive count, and shares of theoretical.
pub fn charts(arrays: &[ArrayDir], r: &SpdkReference, shares: &Shares) -> Vec<Chart> {
    let mut counts: Vec<u32> = arrays.iter().map(|a| a.drives).collect();
    counts.sort_unstable();
    counts.dedup();
    let mut out: Vec<Chart> = counts
        .into_iter()
        .map(|n| randread_chart(arrays, n))
        .filter(Chart::has_data)
        .collect();
    out.extend(share_chart(arrays, r, shares));
    out
}

/// Random-read IOPS against jobs for the arrays of `n` drives.
fn randread_chart(arrays: &[ArrayDir], n: u32) -> Chart {
    let here: Vec<&ArrayDir> = arrays.iter().filter(|a| a.drives == n).collect();
    let mut jobs: Vec<u64> = here
        .iter()
        .flat_map(|a| {
            a.runs
                .iter()
                .filter(|r| r.sig.rw == "randread" && !r.degraded && r.sig.iodepth > 1)
        })
        .map(|r| r.sig.numjobs)
        .collect();
    jobs.sort_unstable();
    jobs.dedup();
    Chart {
        id: format!("spdk-randread-{n}"),
        title: format!("8k random read IOPS against jobs, {n} drives"),
        kind: Kind::Line,
        x_label: "jobs (QD32 each)".into(),
        y_label: "kIOPS".into(),
        categories: jobs.iter().map(|j| j.to_string()).collect(),
        series: here
            .iter()
            .map(|a| Series {
                name: a.array.clone(),
                values: jobs
                    .iter()
                    .map(|&j| {
                        a.runs
                            .iter()
                            .find(|r| {
                                r.sig.rw == "randread"
                                    && !r.degraded
                                    && r.sig.numjobs == j
                                    && r.sig.iodepth > 1
                                    && r.clean()
                            })
                            .map(|r| r.iops() / 1000.0)
                    })
                    .collect(),
                published: false,
                spread: Vec::new(),
            })
            .collect(),
        lines: Vec::new(),
    }
}

/// Each array's best run of each kind as a share of its theoretical maximum.
fn share_chart(arrays: &[ArrayDir], r: &SpdkReference, shares: &Shares) -> Option<Chart> {
    let ops = [
        Op::RandomRead,
        Op::StripeRead,
        Op::StripeWrite,
        Op::RandomWrite,
    ];
    let dirs: Vec<&ArrayDir> = arrays
        .iter()
        .filter(|a| {
            ops.iter()
                .any(|o| shares.contains_key(&(a.dir.clone(), *o)))
        })
        .collect();
    let share = Chart {
        id: "spdk-share-of-theoretical".into(),
        title: "Share of theoretical maximum".into(),
        kind: Kind::Bar,
        x_label: String::new(),
        y_label: "% of theoretical".into(),
        categories: dirs
            .iter()
            .map(|a| a.dir.rsplit('/').next().unwrap_or(&a.dir).to_string())
            .collect(),
        series: ops
            .iter()
            .map(|op| Series {
                name: op.label().into(),
                values: dirs
                    .iter()
                    .map(|a| {
                        let theory = shares.get(&(a.dir.clone(), *op)).copied()?;
                        let best = super::judge::best(a, *op, r, false)?.0;
                        (theory > 0.0).then(|| best / theory * 100.0)
                    })
                    .collect(),
                published: false,
                spread: Vec::new(),
            })
            .collect(),
        lines: vec![("90%".into(), 90.0)],
    };
    share.has_data().then_some(share)
}
