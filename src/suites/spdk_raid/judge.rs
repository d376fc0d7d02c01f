//! The article's expectations as criteria: reads near the raw drives, full-stripe writes
//! near theory, degraded arrays still serving I/O; and what raid5f cannot do.

use std::collections::BTreeMap;

use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, Phrase};
use crate::model::verdict::{Observation, Status, Verdict};
use crate::phrase;

use super::load::ArrayDir;
use super::reference::SpdkReference;
use super::theory::{drives_worth, Op};

mod classify;
mod degraded;
mod share;

pub use classify::{best, level, op_of, stripe_bytes, unsupported};

use classify::per_drive;
use degraded::degraded_verdict;
use share::share_verdict;

/// The theoretical maximum per (array folder, op): IOPS for random ops, GB/s for
/// full-stripe ones.
pub type Shares = BTreeMap<(String, Op), f64>;

pub struct Judged {
    pub verdicts: Vec<Verdict>,
    pub observations: Vec<Observation>,
    pub notes: Vec<String>,
    pub shares: Shares,
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
