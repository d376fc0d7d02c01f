//! The article's expectations as criteria: reads near the raw drives, full-stripe writes
//! near theory, degraded arrays still serving I/O; and what raid5f cannot do.

use std::collections::BTreeMap;

use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, printed, qty, Phrase, UnitOf};
use crate::model::verdict::{Observation, Status, Verdict};
use crate::phrase;

use super::load::{ArrayDir, RaidState, Run};
use super::reference::SpdkReference;
use super::theory::{drives_worth, level_of, Op};

/// The theoretical maximum per (array folder, op): IOPS for random ops, GB/s for
/// full-stripe ones.
pub type Shares = BTreeMap<(String, Op), f64>;

pub struct Judged {
    pub verdicts: Vec<Verdict>,
    pub observations: Vec<Observation>,
    pub notes: Vec<String>,
    pub shares: Shares,
}

/// The RAID level of an array folder: its config, its raid state, else its name.
pub fn level(a: &ArrayDir) -> Option<&'static str> {
    a.config
        .as_ref()
        .and_then(|c| c.raid_level.as_deref())
        .and_then(level_of)
        .or_else(|| a.state.as_ref().and_then(|s| level_of(&s.raid_level)))
        .or_else(|| match a.array.to_ascii_lowercase().as_str() {
            "raw" => Some("raw"),
            "raid5f" => Some("raid5f"),
            "xinnor" => Some("raid5"),
            other => level_of(other),
        })
}

/// Strip size in KiB: the config's, the raid state's, else the article's.
fn strip_kb(a: &ArrayDir, r: &SpdkReference) -> u32 {
    a.config
        .as_ref()
        .and_then(|c| c.strip_kb)
        .or_else(|| a.state.as_ref().and_then(|s| s.strip_size_kb))
        .unwrap_or_else(|| r.strip_kb())
}

/// Bytes a full-stripe I/O spans on this array, for parity and striped levels.
pub fn stripe_bytes(a: &ArrayDir, r: &SpdkReference) -> Option<u64> {
    let data = match level(a)? {
        "raid5" | "raid5f" => a.drives.checked_sub(1)?,
        "raid6" => a.drives.checked_sub(2)?,
        "raid0" => a.drives,
        "raid10" => a.drives / 2,
        _ => return None,
    };
    // A zero strip or no data drives (`strip_size_kb: 0`, a one-drive raid5f) has no
    // stripe to be a multiple of.
    Some(data as u64 * strip_kb(a, r) as u64 * 1024).filter(|s| *s > 0)
}

/// Which op a run is, if it is one the criteria use; full-stripe ops only when bs spans
/// whole stripes.
pub fn op_of(run: &Run, a: &ArrayDir, r: &SpdkReference) -> Option<Op> {
    let stripe = stripe_bytes(a, r);
    let whole = |bs: Option<u64>| match (stripe, bs) {
        (Some(s), Some(b)) => b % s == 0,
        (None, _) => true,
        _ => false,
    };
    match run.sig.rw.as_str() {
        "randread" => Some(Op::RandomRead),
        "randwrite" => Some(Op::RandomWrite),
        "read" if whole(run.sig.bs) => Some(Op::StripeRead),
        "write" if whole(run.sig.bs) => Some(Op::StripeWrite),
        _ => None,
    }
}

/// raid5f refuses sub-stripe writes: such runs fail by design, not by accident.
pub fn unsupported(run: &Run, a: &ArrayDir, r: &SpdkReference) -> bool {
    let writes = matches!(run.sig.rw.as_str(), "write" | "randwrite" | "randrw" | "rw");
    let sub_stripe = match (stripe_bytes(a, r), run.sig.bs) {
        (Some(s), Some(b)) => b % s != 0,
        _ => false,
    };
    level(a) == Some("raid5f") && writes && sub_stripe && run.failed()
}

/// The best result of `op` on `a`: IOPS for random ops, GB/s for full-stripe ones.
pub fn best(a: &ArrayDir, op: Op, r: &SpdkReference, degraded: bool) -> Option<(f64, String)> {
    a.runs
        .iter()
        .filter(|run| run.degraded == degraded && run.clean() && op_of(run, a, r) == Some(op))
        .map(|run| {
            let v = match op {
                Op::RandomRead | Op::RandomWrite => run.iops(),
                Op::StripeRead | Op::StripeWrite => run.gbps(),
            };
            (v, run.file.clone())
        })
        .max_by(|x, y| x.0.total_cmp(&y.0))
}

/// The raw drives' result per drive for `op`: from raw at the same count, else any raw.
fn per_drive(
    arrays: &[ArrayDir],
    n: u32,
    op: Op,
    r: &SpdkReference,
) -> Option<(f64, String, bool)> {
    let mut raws: Vec<&ArrayDir> = arrays.iter().filter(|a| level(a) == Some("raw")).collect();
    raws.sort_by_key(|a| (a.drives != n, a.drives));
    raws.into_iter()
        .find_map(|a| best(a, op, r, false).map(|(v, f)| (v / a.drives as f64, f, a.drives == n)))
}

pub fn judge(arrays: &[ArrayDir], r: &SpdkReference) -> Judged {
    let mut out = Judged {
        verdicts: Vec::new(),
        observations: Vec::new(),
        notes: Vec::new(),
        shares: Shares::new(),
    };
    if !arrays.iter().any(|a| level(a) == Some("raw")) {
        out.notes.push(
            "no raw-drive baseline (spdk/raw-<drives>/): shares of theoretical are not measured"
                .into(),
        );
    }
    for a in arrays {
        let name = a.dir.rsplit('/').next().unwrap_or(&a.dir).to_string();
        let lvl = level(a);
        consistency(a, &name, &mut out);
        runs_not_counted(a, &name, r, &mut out);
        if lvl == Some("raw") || lvl.is_none() {
            if lvl.is_none() {
                out.notes.push(format!("{name}: RAID level unknown (no config, no raid state, unknown name): no theoretical maximum"));
            }
            continue;
        }
        let lvl = lvl.unwrap_or("raw");
        for (op, share, what) in [
            (
                Op::RandomRead,
                r.criteria.random_read_share,
                "random reads reach 90% of the raw drives",
            ),
            (
                Op::StripeRead,
                r.criteria.stripe_read_share,
                "full-stripe reads reach 90% of the raw drives",
            ),
            (
                Op::StripeWrite,
                r.criteria.stripe_write_share,
                "full-stripe writes reach 90% of theoretical",
            ),
        ] {
            out.verdicts.push(share_verdict(
                arrays,
                a,
                &name,
                lvl,
                op,
                share,
                what,
                r,
                &mut out.shares,
            ));
        }
        // Random writes have no pass mark; their share of theory is shown when the raw
        // drives were measured writing at random.
        if let (true, Some(pd)) = (
            best(a, Op::RandomWrite, r, false).is_some(),
            per_drive(arrays, a.drives, Op::RandomWrite, r),
        ) {
            if let Some(t) = drives_worth(lvl, Op::RandomWrite, a.drives) {
                out.shares
                    .insert((a.dir.clone(), Op::RandomWrite), pd.0 * t);
            }
        }
        out.verdicts.push(degraded_verdict(a, &name, r));
    }
    out.notes.extend(judged_on_points(&out.verdicts));
    out
}

/// An array's runs that no criterion counts, said: writes raid5f refuses without FTL (an
/// observation each), sequential runs that are not a whole stripe (a note each).
fn runs_not_counted(a: &ArrayDir, name: &str, r: &SpdkReference, out: &mut Judged) {
    for run in a.runs.iter().filter(|run| unsupported(run, a, r)) {
        out.observations.push(Observation {
            id: format!("spdk-raid.{name}.sub-stripe"),
            what: format!("{name}: {} ({})", run.sig, run.file),
            measured: "refused by raid5f: not supported without FTL".into(),
            published: "raid5f needs FTL for random and sub-stripe writes".into(),
            files: vec![run.file.clone()],
            note: format!(
                "fio error {} with nothing written: raid5f has no read-modify-write",
                run.error
            ),
        });
    }
    for run in a.runs.iter().filter(|run| {
        matches!(run.sig.rw.as_str(), "read" | "write")
            && op_of(run, a, r).is_none()
            && stripe_bytes(a, r).is_some()
    }) {
        out.notes.push(format!(
            "`{}`: bs={} is not a whole stripe ({} bytes) of {name}: not counted as a full-stripe run",
            run.file,
            run.sig.bs.map_or("?".into(), crate::model::units::format_size),
            stripe_bytes(a, r).unwrap_or(0)
        ));
    }
}

/// Shares judged on their point, said once for all of them.
fn judged_on_points(verdicts: &[Verdict]) -> Option<String> {
    let shares: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| v.unit.unit == Some(Unit::Percent) && v.measured_value.is_some())
        .collect();
    let points = shares
        .iter()
        .filter(|v| v.interval.is_none() && matches!(v.status, Status::Pass | Status::Fail))
        .count();
    (points > 0).then(|| {
        format!(
            "{points} of the {} measured shares are judged on their point, with no interval: the array's and the raw drives' best runs do not both give fio's bandwidth samples (bw_dev and bw_samples, at least 2, with some spread) to give one from within the runs",
            shares.len()
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn share_verdict(
    arrays: &[ArrayDir],
    a: &ArrayDir,
    name: &str,
    lvl: &str,
    op: Op,
    min: f64,
    what: &str,
    r: &SpdkReference,
    shares: &mut Shares,
) -> Verdict {
    let mut v = Verdict {
        ..Verdict::new(
            format!("spdk-raid.{name}.{}", op.label().replace(' ', "-")),
            format!("{name} ({lvl}, {} drives): {what}", a.drives),
            phrase!(">= {}", qty(min * 100.0, 0, Unit::Percent)),
            "90-95% of theoretical (Xinnor's design goal)",
        )
    }
    .with_numbers(
        None,
        Some(min * 100.0),
        None,
        UnitOf::new(Unit::Percent, "of theoretical"),
    );
    let Some((value, file)) = best(a, op, r, false) else {
        v.note = format!("no clean {} run in {}", op.label(), a.dir);
        return v;
    };
    v.files.push(file);
    let Some((pd, raw_file, same_n)) = per_drive(arrays, a.drives, op, r) else {
        v.note = format!("no raw-drive {} run to compare with", op.label());
        return v;
    };
    v.files.push(raw_file);
    let Some(worth) = drives_worth(lvl, op, a.drives) else {
        v.note = format!("no theoretical maximum for {lvl}");
        return v;
    };
    let theory = pd * worth;
    if !(theory > 0.0 && theory.is_finite()) {
        v.note = format!(
            "the raw drives' {} result is zero: no theoretical maximum",
            op.label()
        );
        return v;
    }
    let share = value / theory;
    v.set_measured(Some(share * 100.0));
    shares.insert((a.dir.clone(), op), theory);
    let unit = |x: f64| match op {
        Op::RandomRead | Op::RandomWrite => phrase!("{}k IOPS", printed(x / 1000.0, 0)),
        _ => phrase!("{}", qty(x, 1, Unit::GigabytesPerSecond)),
    };
    v.measured = phrase!(
        "{} ({} of {})",
        qty(share * 100.0, 1, Unit::Percent),
        unit(value),
        unit(theory)
    );
    if !same_n {
        v.note = format!(
            "the raw baseline has another drive count; scaled per drive to {}",
            a.drives
        );
    }
    v.status = share_status(&mut v, arrays, share, min);
    v
}

/// A share's status: more than the drives can give means the baseline does not measure
/// the drives the way the array was measured (inconclusive, said why); else by its
/// interval from within the runs.
fn share_status(v: &mut Verdict, arrays: &[ArrayDir], share: f64, min: f64) -> Status {
    const IMPLAUSIBLE: f64 = 1.10;
    if share > IMPLAUSIBLE {
        v.note = format!(
            "{:.0}% of the theoretical maximum is more than the drives can give: the raw baseline ({}) ran another shape or was held back, so the share says nothing{}",
            share * 100.0,
            v.files.last().cloned().unwrap_or_default(),
            if v.note.is_empty() { String::new() } else { format!("; {}", v.note) }
        );
        Status::Inconclusive
    } else {
        within_run(v, arrays, share, min)
    }
}

/// The status of a share from one run a side: by its 95% interval from within the runs
/// where both files give their throughput's standard error (fio's bandwidth samples),
/// else by the point, said so. The article runs each job once; repeats are optional.
fn within_run(v: &mut Verdict, arrays: &[ArrayDir], share: f64, min: f64) -> Status {
    let rel_se = |file: &String| {
        arrays
            .iter()
            .flat_map(|a| a.runs.iter())
            .find(|run| run.file == *file)
            .and_then(|run| run.rel_se())
    };
    let se: Option<f64> = v
        .files
        .iter()
        .map(rel_se)
        .collect::<Option<Vec<f64>>>()
        .map(|ses| ses.iter().map(|x| x * x).sum::<f64>().sqrt());
    let mut say = |words: String| {
        v.note = if v.note.is_empty() {
            words
        } else {
            format!("{}; {words}", v.note)
        };
    };
    // Without an interval the point judges (the suite says so once, for every such share).
    let point = if share >= min {
        Status::Pass
    } else {
        Status::Fail
    };
    let Some(se) = se.filter(|se| *se > 0.0) else {
        return point;
    };
    // A normal interval on the logarithm of the share: the two runs' relative standard
    // errors add as independent.
    let z = 1.959963984540054;
    let (low, high) = (share * (-z * se).exp(), share * (z * se).exp());
    if !(low.is_finite() && high.is_finite() && low > 0.0) {
        // Samples so spread that the interval is unbounded: no interval to judge by.
        return point;
    }
    v.interval = Some(crate::model::verdict::Interval {
        low: low * 100.0,
        high: high * 100.0,
        level: 0.95,
        method: WITHIN_RUN.to_string(),
        runs: vec![1, 1],
    });
    if low >= min {
        Status::Pass
    } else if high < min {
        Status::Fail
    } else {
        say(format!(
            "its 95% interval from within one run a side ({:.1}% to {:.1}%) straddles {:.0}%: the files cannot tell which side it is on; repeated runs of the array and the raw drives would give an interval over the runs (how many cannot be told from one run a side, whose spread between runs is unseen)",
            low * 100.0,
            high * 100.0,
            min * 100.0
        ));
        Status::Inconclusive
    }
}

/// How a share's interval from within one run a side is had.
const WITHIN_RUN: &str = "within one run a side: each run's relative standard error from fio's bandwidth samples (bw_dev / sqrt(bw_samples), taken as independent), added in quadrature, normal interval on the log of the share (weaker than repeated runs; the runs are each side's best of its sweep, a choice the interval does not account for)";

fn degraded_verdict(a: &ArrayDir, name: &str, r: &SpdkReference) -> Verdict {
    let mut v = Verdict::new(
        format!("spdk-raid.{name}.degraded"),
        format!(
            "{name}: with one member removed, every job completes with no error and moves data"
        ),
        "all degraded jobs clean",
        r.degraded
            .get(&a.array.to_ascii_lowercase())
            .map_or(Phrase::dash(), Phrase::text),
    )
    .with_numbers(
        None,
        Some(0.0),
        None,
        UnitOf::count("degraded jobs not clean"),
    );
    let runs: Vec<&Run> = a
        .runs
        .iter()
        .filter(|x| x.degraded && !unsupported(x, a, r))
        .collect();
    if runs.is_empty() {
        v.note = format!("no runs in {}/degraded/", a.dir);
        return v;
    }
    v.files = runs.iter().map(|x| x.file.clone()).collect();
    v.files
        .extend(a.degraded_state.iter().map(|s| s.file.clone()));
    let bad: Vec<String> = runs
        .iter()
        .filter(|x| !x.clean())
        .map(|x| format!("`{}`: {}", x.file, not_clean(x)))
        .collect();
    let state = a.degraded_state.as_ref();
    v.set_measured(Some(bad.len() as f64));
    v.measured = phrase!(
        "{} of {} jobs clean{}",
        count(runs.len() - bad.len()),
        count(runs.len()),
        state
            .map(|s| phrase!("; array {}", phrase::name(s.label())))
            .unwrap_or_default()
    );
    (v.status, v.note) = degraded_status(a, state, &bad);
    v
}

/// Why a run is not clean: cut short, an error, failed I/Os, or no I/O at all.
fn not_clean(x: &Run) -> String {
    if let Some(line) = &x.interrupted {
        format!("cut short (`{line}`)")
    } else if x.error != 0 {
        format!("error {} ({} bytes moved)", x.error, x.io_bytes)
    } else if x.failed_ios > 0 {
        format!("{} failed I/Os", x.failed_ios)
    } else {
        "no I/O".to_string()
    }
}

/// The degraded criterion's status and note, from the array's state after the member was
/// removed and the runs that were not clean.
fn degraded_status(a: &ArrayDir, state: Option<&RaidState>, bad: &[String]) -> (Status, String) {
    let survives = level(a).map(survivable);
    let missing = state.map(|s| s.members.saturating_sub(s.operational));
    match (state, missing, survives) {
        // The array the runs hit could not have served them: never a pass.
        (Some(s), Some(m), Some(k)) if s.state != "online" || m > k => (
            Status::Fail,
            format!(
                "`{}`: the array is {} with {m} member(s) missing; {} survives {k}: it is down, not degraded{}",
                s.file,
                s.state,
                level(a).unwrap_or("this level"),
                if bad.is_empty() { String::new() } else { format!("; {}", bad.join("; ")) }
            ),
        ),
        _ if !bad.is_empty() => (Status::Fail, bad.join("; ")),
        (Some(s), Some(0), _) => (
            Status::NotComparable,
            format!(
                "`{}` shows all {} members operational: the runs in degraded/ did not run degraded",
                s.file, s.members
            ),
        ),
        (Some(_), _, _) => (Status::Pass, String::new()),
        (None, _, _) => (
            Status::Inconclusive,
            format!(
                "every job is clean, but no `{}/degraded/bdev_raid_get_bdevs.json` shows that a member was removed",
                a.dir
            ),
        ),
    }
}

/// How many members a level can lose and still serve I/O.
fn survivable(level: &str) -> u64 {
    match level {
        "raid5" | "raid5f" | "raid10" => 1,
        "raid6" => 2,
        _ => 0,
    }
}

/// The config and raid state must describe the array the folder name says.
fn consistency(a: &ArrayDir, name: &str, out: &mut Judged) {
    let mut problems = Vec::new();
    if let Some(c) = &a.config {
        if c.drives != a.drives as usize {
            problems.push(phrase!(
                "`{}` builds {} drives, the folder says {}",
                phrase::name(&c.file),
                count(c.drives),
                count(a.drives)
            ));
        }
    }
    if let Some(s) = &a.state {
        if s.members != a.drives as u64 {
            problems.push(phrase!(
                "`{}` lists {} members, the folder says {}",
                phrase::name(&s.file),
                count(s.members),
                count(a.drives)
            ));
        }
    }
    if !problems.is_empty() {
        out.verdicts.push(Verdict {
            status: Status::Fail,
            measured: Phrase::join(problems, "; "),
            files: a
                .config
                .iter()
                .map(|c| c.file.clone())
                .chain(a.state.iter().map(|s| s.file.clone()))
                .collect(),
            note: "results may come from another array than the config describes".into(),
            ..Verdict::new(
                format!("spdk-raid.{name}.drive-count"),
                format!("{name}: the config and array state match the results' drive count"),
                "equal",
                Phrase::dash(),
            )
        });
    }
}
