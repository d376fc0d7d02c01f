//! What each SPDK run and array actually was, against the article's job files and setup:
//! member bdevs (NVMe drives, not RAM), strip size, engine and runtime. Differences that
//! change a share of the theoretical maximum make those shares not comparable.

use crate::fio::params::{self, parse_seconds};
use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, fixed, Phrase};
use crate::phrase;
use crate::suites::RanCommand;

use super::judge::{level, op_of};
use super::load::{ArrayDir, Run};
use super::reference::SpdkReference;
use super::theory::Op;

fn name(a: &ArrayDir) -> String {
    a.dir.rsplit('/').next().unwrap_or(&a.dir).to_string()
}

/// The share verdict of `a` for `op`.
pub fn share_id(a: &ArrayDir, op: Op) -> String {
    format!("spdk-raid.{}.{}", name(a), op.label().replace(' ', "-"))
}

const SHARED_OPS: [Op; 3] = [Op::RandomRead, Op::StripeRead, Op::StripeWrite];

/// The verdicts a deviation of `a` (for `op`, or every op) feeds: its own shares, and
/// for the raw baseline every array's.
fn fed(arrays: &[ArrayDir], a: &ArrayDir, op: Option<Op>) -> Vec<String> {
    let ops: Vec<Op> = op.map_or(SHARED_OPS.to_vec(), |o| vec![o]);
    let targets: Vec<&ArrayDir> = if level(a) == Some("raw") {
        // A raw baseline feeds the arrays of its drive count, or those without their own.
        let has_raw = |n: u32| {
            arrays
                .iter()
                .any(|x| level(x) == Some("raw") && x.drives == n)
        };
        arrays
            .iter()
            .filter(|x| level(x) != Some("raw"))
            .filter(|x| x.drives == a.drives || !has_raw(x.drives))
            .collect()
    } else {
        vec![a]
    };
    targets
        .iter()
        .flat_map(|t| ops.iter().map(|o| share_id(t, *o)))
        .collect()
}

pub fn deviations(arrays: &[ArrayDir], r: &SpdkReference) -> Vec<Deviation> {
    let mut out = Vec::new();
    for a in arrays {
        out.extend(config_deviations(arrays, a, r));
        for run in &a.runs {
            out.extend(run_deviations(arrays, a, run, r));
        }
    }
    out
}

/// `d`, feeding the verdicts of array `a` that `op` is judged in (all of them with None).
fn with_ids(arrays: &[ArrayDir], a: &ArrayDir, mut d: Deviation, op: Option<Op>) -> Deviation {
    for id in fed(arrays, a, op) {
        d = d.verdict(id);
    }
    d
}

/// What an array's SPDK config says that the article's setup does not: member bdevs that
/// are not NVMe drives, another strip size.
fn config_deviations(arrays: &[ArrayDir], a: &ArrayDir, r: &SpdkReference) -> Vec<Deviation> {
    let mut out = Vec::new();
    let Some(c) = &a.config else {
        return out;
    };
    if c.members != "nvme" {
        out.push(with_ids(
            arrays,
            a,
            Deviation::new(
                "member bdevs",
                "NVMe drives",
                phrase!("{} bdevs", phrase::name(c.members)),
            )
            .subject(name(a))
            .file(c.file.clone())
            .effect(
                "RAM (malloc) or unknown bdevs are not drives: a share of the theoretical maximum built on them says nothing about NVMe drives",
                true,
            )
            .source("the article: 8 and 16 Western Digital SN840 NVMe drives"),
            None,
        ));
    }
    if let Some(k) = c.strip_kb.filter(|k| *k != r.strip_kb()) {
        out.push(
            Deviation::new(
                "strip size",
                phrase!("{}", count(r.strip_kb())),
                phrase!("{}", count(k)),
            )
            .unit(Unit::Kibibytes)
            .subject(name(a))
            .file(c.file.clone())
            .effect(
                "another full stripe: the article's 448k/960k runs are not full stripes here",
                false,
            )
            .source("the article: 64 KiB strips"),
        );
    }
    out
}

/// How one run deviates from the article's job: interrupted, no options recorded, another
/// engine, full-stripe clones not spread, another or too short a runtime.
fn run_deviations(
    arrays: &[ArrayDir],
    a: &ArrayDir,
    run: &Run,
    r: &SpdkReference,
) -> Vec<Deviation> {
    let p = &r.procedure;
    let mut out = Vec::new();
    // Only clean, healthy runs of a judged kind feed a share.
    let op = op_of(run, a, r).filter(|_| run.clean() && !run.degraded);
    let with_op = |d: Deviation| match op {
        Some(o) => with_ids(arrays, a, d, Some(o)),
        None => d,
    };
    let subject = format!(
        "{}/{}",
        name(a),
        run.file.rsplit('/').next().unwrap_or(&run.file)
    );
    if let Some(line) = &run.interrupted {
        let op = op_of(run, a, r).filter(|_| !run.failed() && !run.degraded);
        let d = Deviation::new("run", "to its end", "interrupted")
            .subject(subject.clone())
            .file(run.file.clone())
            .effect(
                format!("`{line}`: the numbers are of the part that ran; the run is not counted"),
                false,
            )
            .source(p.source.clone());
        out.push(match op {
            Some(o) => with_ids(arrays, a, d, Some(o)),
            None => d,
        });
    }
    if !run.recorded {
        out.push(with_op(
            Deviation::new("fio options", "the article's job file", "unknown")
                .subject(subject.clone())
                .file(run.file.clone())
                .effect(
                    "the file records no options: engine and runtime unknown",
                    false,
                )
                .source(p.source.clone()),
        ));
        return out;
    }
    let engine = params::get(&run.options, "ioengine").unwrap_or("not set");
    if engine != p.ioengine && engine != "bdevperf" {
        out.push(with_op(
            Deviation::new("ioengine", Phrase::text(&p.ioengine), Phrase::text(engine))
                .subject(subject.clone())
                .file(run.file.clone())
                .effect(
                    "not through SPDK's bdev layer: the kernel's block stack is measured too",
                    true,
                )
                .source(p.source.clone()),
        ));
    }
    if let Some(d) = spread_deviation(run, a, r, &subject) {
        out.push(with_op(d));
    }
    match runtime_deviation(run, r, subject, op.is_some()) {
        Some((d, true)) => out.push(with_op(d)),
        Some((d, false)) => out.push(d),
        None => {}
    }
    out
}

/// A full-stripe fio run whose clones are not spread over the device as the article's
/// (`offset_increment=15%`).
fn spread_deviation(
    run: &Run,
    a: &ArrayDir,
    r: &SpdkReference,
    subject: &str,
) -> Option<Deviation> {
    // The article's full-stripe jobs spread their clones over the device; without
    // it every clone streams the same offsets.
    let stripe = matches!(op_of(run, a, r), Some(Op::StripeRead | Op::StripeWrite));
    let offset = params::get(&run.options, "offset_increment");
    if !(stripe && run.tool == "fio" && run.sig.numjobs > 1 && offset != Some("15%")) {
        return None;
    }
    Some(
        Deviation::new(
            "offset_increment",
            "15%",
            Phrase::text(offset.unwrap_or("not set")),
        )
        .subject(subject.to_string())
        .file(run.file.clone())
        .effect(
            format!(
                "{} jobs {}: the share is not the article's measurement",
                run.sig.numjobs,
                if offset.is_none() {
                    "all stream the same offsets (the device's first part, overlapping)"
                } else {
                    "are spread over the device otherwise"
                }
            ),
            true,
        )
        .source("the article's full stripe IO fio config file: offset_increment=15%"),
    )
}

/// A run shorter than the article's (when it feeds a share: it then changes the
/// comparison, and says it feeds the verdicts: `true`), or configured with another
/// runtime (a note).
fn runtime_deviation(
    run: &Run,
    r: &SpdkReference,
    subject: String,
    judged: bool,
) -> Option<(Deviation, bool)> {
    let p = &r.procedure;
    let want = if matches!(run.sig.rw.as_str(), "read" | "write") {
        p.stripe_runtime_s
    } else {
        p.small_runtime_s
    };
    let actual = run.runtime_ms as f64 / 1000.0;
    let configured = params::get(&run.options, "runtime");
    let short = actual < p.runtime_floor_share * want as f64;
    let differs = configured
        .and_then(parse_seconds)
        .is_none_or(|c| (c - want as f64).abs() > 1e-9);
    if short && judged {
        Some((
            Deviation::new(
                "runtime (the tool's account)",
                phrase!("{}", count(want)),
                phrase!("{}", fixed(actual, 1)),
            )
            .unit(Unit::Seconds)
            .subject(subject)
            .file(run.file.clone())
            .effect(
                "shorter than the article's runs: drives may not reach steady state (writes especially), so the share is not comparable",
                true,
            )
            .source(p.source.clone()),
            true,
        ))
    } else if differs {
        Some((
            Deviation::new(
                "runtime",
                phrase!("{}", count(want)),
                Phrase::text(configured.unwrap_or("not set")),
            )
            .unit(Unit::Seconds)
            .subject(subject)
            .file(run.file.clone())
            .effect(
                phrase!("another runtime; the run lasted {} s", fixed(actual, 1)).to_string(),
                false,
            )
            .source(p.source.clone()),
            false,
        ))
    } else {
        None
    }
}

/// The fio command each run ran, rebuilt from its JSON; bdevperf runs as their job.
pub fn commands_ran(arrays: &[ArrayDir]) -> Vec<RanCommand> {
    arrays
        .iter()
        .flat_map(|a| a.runs.iter())
        .map(|run| RanCommand {
            subject: run.file.clone(),
            command: match (run.tool, run.recorded) {
                ("bdevperf", _) => format!(
                    "bdevperf -w {} -q {} -o {} (from its perform_tests JSON)",
                    run.sig.rw,
                    run.sig.iodepth,
                    run.sig.bs.unwrap_or(0)
                ),
                (_, true) => params::command_line(
                    run.file
                        .rsplit('/')
                        .next()
                        .and_then(|f| f.strip_suffix(".json"))
                        .unwrap_or("job"),
                    &run.options,
                ),
                _ => "unknown: the file records no fio options".into(),
            },
            source: run.file.clone(),
        })
        .collect()
}
