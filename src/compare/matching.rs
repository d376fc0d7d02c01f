//! Both sides' measurements matched by their key: a judged row for each key on both
//! sides, the rest listed as unmatched, the rows in natural order, and the jobs or levels
//! measured on one side only.

use std::collections::BTreeMap;

use super::criteria::criteria;
use super::measure::Sample;
use super::pool::pool;
use super::{judge, render, setup_diff};
use super::{Campaign, Change, Comparison, Pooled, RankTestRow, Row, Summary, Unmatched};

type Key = (String, String, String);

fn key(s: &Sample) -> Key {
    (s.suite.clone(), s.subject.clone(), s.metric.clone())
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
        let mut j = judge::judge(bs[0].better, &bp, &np, threshold_pct);
        if let Some(words) = judge::nothing_moved_words(&bs[0].unit, &bp, &np) {
            j.why = format!("{}; {words}", j.why);
        }
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
