//! Comparing two runs (or two pools of runs): what differs between the setups, the
//! criteria of each side, and every measurement matched by its key with base, new, delta
//! and a noise-aware verdict. Also the trend of each criterion's number across inputs.

pub mod campaign;
pub mod judge;
pub mod measure;
pub mod render;
pub mod setup_diff;
pub mod trend;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::stats::{geometric_mean, median};
pub use campaign::Campaign;
use measure::{Better, Sample};

/// A side's pooled value for one key.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pooled {
    /// The geometric mean of the runs' values (their median where one is not positive).
    pub value: f64,
    /// Each run's value, in the order the inputs were given.
    pub values: Vec<f64>,
    pub runs: usize,
    /// Relative noise, and where it comes from.
    pub noise: Option<f64>,
    pub noise_from: String,
    /// The one run's standard error within its run, relative, where its files give one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
    pub files: Vec<String>,
}

pub use judge::Change;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub suite: String,
    pub subject: String,
    pub metric: String,
    pub unit: String,
    pub better: Better,
    pub base: Pooled,
    pub new: Pooled,
    pub delta: f64,
    /// None when the base is 0.
    pub delta_pct: Option<f64>,
    /// The larger side's noise, in percent, when either side gives one.
    pub noise_pct: Option<f64>,
    /// The 95% confidence interval of the change, in percent of the base, when the files
    /// give one (see [`judge`]).
    pub interval_pct: Option<[f64; 2]>,
    /// How the interval was computed, or why there is none.
    pub method: String,
    pub change: Change,
    /// Why the change counts or does not.
    pub why: String,
    /// Mann-Whitney's U test over the runs (both sides with two or more runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_test: Option<RankTestRow>,
}

/// Mann-Whitney's U test of a row, as `--format json` carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankTestRow {
    pub name: &'static str,
    /// U of the base runs against the new ones.
    pub u: f64,
    pub p: f64,
    /// The smallest p these numbers of runs can give: under 0.05 or the test cannot decide.
    pub smallest_p: f64,
    pub base_runs: usize,
    pub new_runs: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    pub side: String,
    pub suite: String,
    pub subject: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub files: Vec<String>,
}

/// One criterion's status on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriterionPair {
    pub id: String,
    pub criterion: String,
    pub base: String,
    pub new: String,
    pub changed: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub better: usize,
    pub worse: usize,
    pub no_change: usize,
    pub inconclusive: usize,
    pub unmatched: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub tool: String,
    pub base: Vec<String>,
    pub new: Vec<String>,
    pub threshold_pct: f64,
    pub setup: Vec<setup_diff::SetupDiff>,
    pub criteria: Vec<CriterionPair>,
    pub rows: Vec<Row>,
    pub unmatched: Vec<Unmatched>,
    pub summary: Summary,
    /// Plots for the Markdown and PDF reports.
    #[serde(skip)]
    pub charts: Vec<crate::model::chart::Chart>,
}

impl Comparison {
    /// 1 when any metric is worse beyond the threshold and the noise, else 0.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.summary.worse > 0)
    }

    pub fn summary_line(&self) -> String {
        format!(
            "{} better, {} worse, {} no change, {} inconclusive, {} unmatched (threshold {}%, judged on 95% intervals where the files give one)",
            self.summary.better,
            self.summary.worse,
            self.summary.no_change,
            self.summary.inconclusive,
            self.summary.unmatched,
            self.threshold_pct
        )
    }
}

type Key = (String, String, String);

fn key(s: &Sample) -> Key {
    (s.suite.clone(), s.subject.clone(), s.metric.clone())
}

pub use crate::model::measurement::range_over;

/// Pools one side's samples of a key: the geometric mean of the runs (the centre of the
/// interval on the log ratio the change is judged by, and how `analyze` pools repeats),
/// the median where a run's value is not positive (no logarithm); the noise is the spread
/// between runs when there are several, else the one run's own (fio's stddev, the spread
/// of repeated requests), else none.
fn pool(samples: &[&Sample]) -> Pooled {
    let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
    // Samples hold finite values only (the frames' reader drops the rest).
    let value = geometric_mean(&values)
        .or_else(|| median(&values))
        .unwrap_or(0.0);
    let mut files: Vec<String> = samples
        .iter()
        .map(|s| format!("{}: {}", s.input, s.file))
        .collect();
    files.dedup();
    let (noise, noise_from) = if samples.len() >= 2 {
        (
            Some(range_over(&values, value)),
            format!("spread between {} runs", samples.len()),
        )
    } else {
        match &samples[0].noise {
            Some((n, from)) => (Some(*n), from.clone()),
            None => (
                None,
                "one run: no noise estimate, the threshold alone decides".into(),
            ),
        }
    };
    Pooled {
        value,
        values,
        runs: samples.len(),
        noise,
        noise_from,
        standard_error: match samples {
            [one] => one.standard_error,
            _ => None,
        },
        files,
    }
}

/// A sort key that orders the numbers inside a name as numbers (`2 clients` before `16`).
fn natural(s: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for ch in s.chars() {
        if ch.is_ascii_digit() {
            digits.push(ch);
        } else {
            if !digits.is_empty() {
                out.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u64::MAX),
                ));
                digits.clear();
            }
            text.push(ch);
        }
    }
    out.push((text, digits.parse().unwrap_or(0)));
    out
}

/// A measurement present on one side only.
fn one_side(side: &str, k: &Key, samples: &[Sample]) -> Unmatched {
    let p = pool(&samples.iter().collect::<Vec<_>>());
    Unmatched {
        side: side.into(),
        suite: k.0.clone(),
        subject: k.1.clone(),
        metric: k.2.clone(),
        value: p.value,
        unit: samples[0].unit.clone(),
        files: p.files,
    }
}

/// One matched measurement's row: its key, the first sample's unit and direction, both
/// sides pooled, and the judgement.
fn row(k: &Key, first: &Sample, (base, new): (Pooled, Pooled), j: judge::Judged) -> Row {
    Row {
        suite: k.0.clone(),
        subject: k.1.clone(),
        metric: k.2.clone(),
        unit: first.unit.clone(),
        better: first.better,
        base,
        new,
        delta: j.delta,
        delta_pct: j.delta_pct,
        noise_pct: j.noise_pct,
        interval_pct: j.interval_pct,
        method: j.method,
        change: j.change,
        why: j.why,
        rank_test: j.rank.map(|r| RankTestRow {
            name: "Mann-Whitney U, exact, two-sided",
            u: r.u,
            p: r.p,
            smallest_p: r.smallest_p,
            base_runs: r.n_x,
            new_runs: r.n_y,
        }),
    }
}

/// Compares the pooled analyses of two sides, from their suites' typed measurements.
pub fn compare(base: &[Campaign], new: &[Campaign], threshold_pct: f64) -> Comparison {
    let gather = |side: &[Campaign]| -> BTreeMap<Key, Vec<Sample>> {
        let mut m: BTreeMap<Key, Vec<Sample>> = BTreeMap::new();
        for a in side {
            for s in &a.samples {
                m.entry(key(s)).or_default().push(s.clone());
            }
        }
        m
    };
    let (b, n) = (gather(base), gather(new));
    let mut rows = Vec::new();
    let mut unmatched = Vec::new();
    let mut summary = Summary::default();
    for (k, bs) in &b {
        let Some(ns) = n.get(k) else {
            unmatched.push(one_side("base only", k, bs));
            continue;
        };
        let (bp, np) = (
            pool(&bs.iter().collect::<Vec<_>>()),
            pool(&ns.iter().collect::<Vec<_>>()),
        );
        let j = judge::judge(bs[0].better, &bp, &np, threshold_pct);
        match j.change {
            Change::Better => summary.better += 1,
            Change::Worse => summary.worse += 1,
            Change::NoChange => summary.no_change += 1,
            Change::Inconclusive => summary.inconclusive += 1,
        }
        rows.push(row(k, &bs[0], (bp, np), j));
    }
    for (k, ns) in &n {
        if !b.contains_key(k) {
            unmatched.push(one_side("new only", k, ns));
        }
    }
    summary.unmatched = unmatched.len();
    rows.sort_by(|a, b| {
        (a.suite.as_str(), natural(&a.subject), a.metric.as_str()).cmp(&(
            b.suite.as_str(),
            natural(&b.subject),
            b.metric.as_str(),
        ))
    });
    let charts = render::charts(&rows, crate::suites::SUITES);
    let mut setup = setup_diff::diff(base, new);
    setup.extend(shapes_diff(&b, &n));
    Comparison {
        tool: format!("reprobench {}", env!("CARGO_PKG_VERSION")),
        base: base.iter().map(|a| a.input.clone()).collect(),
        new: new.iter().map(|a| a.input.clone()).collect(),
        threshold_pct,
        setup,
        criteria: criteria(base, new),
        rows,
        unmatched,
        summary,
        charts,
    }
}

/// The jobs or levels measured on one side only, per suite, as a setup difference.
fn shapes_diff(
    b: &BTreeMap<Key, Vec<Sample>>,
    n: &BTreeMap<Key, Vec<Sample>>,
) -> Vec<setup_diff::SetupDiff> {
    let subjects =
        |m: &BTreeMap<Key, Vec<Sample>>, suite: &str| -> std::collections::BTreeSet<String> {
            m.keys()
                .filter(|k| k.0 == suite)
                .map(|k| k.1.clone())
                .collect()
        };
    let mut suites: Vec<&String> = b.keys().chain(n.keys()).map(|k| &k.0).collect();
    suites.sort();
    suites.dedup();
    let mut out = Vec::new();
    for suite in suites {
        let (bs, ns) = (subjects(b, suite), subjects(n, suite));
        if bs == ns {
            continue;
        }
        let only_b = bs.difference(&ns).count();
        let only_n = ns.difference(&bs).count();
        out.push(setup_diff::SetupDiff {
            what: format!("{suite}: jobs or levels measured"),
            base: format!("{} ({only_b} on this side only)", bs.len()),
            new: format!("{} ({only_n} on this side only)", ns.len()),
            moves_numbers: false,
            why: "the ones on one side only are listed under Unmatched, not compared".into(),
            sources: Vec::new(),
        });
    }
    out
}

/// Each criterion's status on both sides (a pooled side shows each input's status),
/// changed ones first.
fn criteria(base: &[Campaign], new: &[Campaign]) -> Vec<CriterionPair> {
    let statuses = |side: &[Campaign]| -> BTreeMap<String, (String, Vec<String>)> {
        let mut m: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
        for a in side {
            for v in &a.verdicts {
                let e = m
                    .entry(v.id.clone())
                    .or_insert_with(|| (v.criterion.clone(), Vec::new()));
                e.1.push(v.status.clone());
            }
        }
        m
    };
    let (b, n) = (statuses(base), statuses(new));
    let mut ids: Vec<&String> = b.keys().chain(n.keys()).collect();
    ids.sort();
    ids.dedup();
    let show = |v: Option<&(String, Vec<String>)>| -> String {
        match v {
            None => "-".into(),
            Some((_, s)) => {
                let mut s = s.clone();
                s.dedup();
                s.join(" / ")
            }
        }
    };
    let mut out: Vec<CriterionPair> = ids
        .into_iter()
        .map(|id| {
            let (bs, ns) = (show(b.get(id)), show(n.get(id)));
            CriterionPair {
                id: id.clone(),
                criterion: b
                    .get(id)
                    .or(n.get(id))
                    .map(|x| x.0.clone())
                    .unwrap_or_default(),
                changed: bs != ns,
                base: bs,
                new: ns,
            }
        })
        .collect();
    out.sort_by_key(|c| !c.changed);
    out
}
