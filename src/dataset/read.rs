//! A dataset read back as campaigns for compare and `--trend`: `DATASET` (every
//! campaign) or `DATASET:SELECTOR`, where the selector is a comma-separated list of
//! campaign names, id prefixes (8 hex digits or more), `since=TIME` and `until=TIME`.
//! A time is an instant: a date (`2026-07-18`, midnight UTC) or a date and time with its
//! offset (`2026-07-18T12:00:00Z`, `2026-07-18T14:00:00+02:00`); anything else is
//! refused, a time without an offset too (whose clock it is on is not said). Bounds are
//! compared with each campaign's start time as instants, whatever offset each was
//! written with; a campaign without one is left out by a time bound. Campaigns the
//! selector names come in its order; the others in start-time order, those without one
//! after, by name. The dataset's folder is the first prefix of the input before a `:`
//! that is a dataset, so a selector may hold `:` (times do).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use polars_core::prelude::DataFrame;

use crate::compare::campaign::{Campaign, Judged};
use crate::compare::measure::{Better, Sample};
use crate::model::measurement::{ParamValue, Parameter, Scope, Unit};
use crate::why::setup::{Read, Setup};

use super::{Entry, Index};

/// Whether `path` is a dataset folder.
pub fn is_dataset(path: &Path) -> bool {
    path.join("_schema.json").is_file()
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    pub names_or_ids: Vec<String>,
    pub since: Option<String>,
    pub until: Option<String>,
}

/// A dataset input: its folder and selector; None when `input` names no dataset.
pub fn parse(input: &Path) -> Option<(PathBuf, Selector)> {
    if is_dataset(input) {
        return Some((input.to_path_buf(), Selector::default()));
    }
    let s = input.to_str()?;
    let (root, sel) = s
        .match_indices(':')
        .map(|(i, _)| (&s[..i], &s[i + 1..]))
        .find(|(root, _)| is_dataset(Path::new(root)))?;
    let root = PathBuf::from(root);
    let mut out = Selector::default();
    for term in sel.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if let Some(t) = term.strip_prefix("since=") {
            out.since = Some(t.to_string());
        } else if let Some(t) = term.strip_prefix("until=") {
            out.until = Some(t.to_string());
        } else {
            out.names_or_ids.push(term.to_string());
        }
    }
    Some((root, out))
}

pub use crate::instant::instant;

/// A selector's time bounds as instants, or why one is not an instant.
fn bounds(sel: &Selector) -> anyhow::Result<(Option<i64>, Option<i64>)> {
    let read = |name: &str, v: &Option<String>| -> anyhow::Result<Option<i64>> {
        v.as_deref()
            .map(|t| instant(t).map_err(|why| anyhow::anyhow!("{name}={t}: {why}")))
            .transpose()
    };
    Ok((read("since", &sel.since)?, read("until", &sel.until)?))
}

fn wanted(id: &str, e: &Entry, sel: &Selector, (since, until): (Option<i64>, Option<i64>)) -> bool {
    let named = sel.names_or_ids.is_empty()
        || sel
            .names_or_ids
            .iter()
            .any(|t| e.name == *t || (t.len() >= 8 && id.starts_with(t.as_str())));
    let started = e.started.as_deref().and_then(|t| instant(t).ok());
    let after = since.is_none_or(|s| started.is_some_and(|t| t >= s));
    let before = until.is_none_or(|u| started.is_some_and(|t| t < u));
    named && after && before
}

/// The selected campaigns' ids and entries, in start-time order.
pub fn select(root: &Path, sel: &Selector) -> anyhow::Result<Vec<(String, Entry)>> {
    select_in(root, settled_index(root)?, sel)
}

/// The index of a dataset of this version, read once an interrupted change is finished
/// (or undone).
fn settled_index(root: &Path) -> anyhow::Result<Index> {
    if root.join(".pending").exists() {
        drop(super::commit::Locked::open(root)?);
    }
    super::check_schema(root)?;
    Index::read(root)
}

/// The campaigns of `index` that `sel` selects, in the order [`select`] gives.
fn select_in(root: &Path, index: Index, sel: &Selector) -> anyhow::Result<Vec<(String, Entry)>> {
    let bounds = bounds(sel)?;
    let mut out: Vec<(String, Entry)> = index
        .campaigns
        .into_iter()
        .filter(|(id, e)| wanted(id, e, sel, bounds))
        .collect();
    // Campaigns the selector names come in its order; the rest by start time.
    let term = |id: &str, e: &Entry| {
        sel.names_or_ids
            .iter()
            .position(|t| e.name == *t || (t.len() >= 8 && id.starts_with(t.as_str())))
    };
    out.sort_by(|a, b| {
        term(&a.0, &a.1)
            .cmp(&term(&b.0, &b.1))
            .then_with(|| match (&a.1.started, &b.1.started) {
                (Some(x), Some(y)) => match (instant(x), instant(y)) {
                    (Ok(x), Ok(y)) => x.cmp(&y),
                    _ => x.cmp(y),
                },
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then(a.1.name.cmp(&b.1.name))
    });
    if out.is_empty() {
        anyhow::bail!(
            "the dataset `{}` holds no campaign that matches `{}`",
            root.display(),
            describe(sel)
        );
    }
    Ok(out)
}

fn describe(sel: &Selector) -> String {
    let mut t = sel.names_or_ids.clone();
    if let Some(s) = &sel.since {
        t.push(format!("since={s}"));
    }
    if let Some(u) = &sel.until {
        t.push(format!("until={u}"));
    }
    if t.is_empty() {
        "(every campaign)".into()
    } else {
        t.join(",")
    }
}

/// A segment's files, read whole and checked against the digest the index keeps (only
/// bytes `dataset` wrote reach the Parquet reader), each table and suite read once.
struct Segment {
    frames: BTreeMap<String, DataFrame>,
}

impl Segment {
    fn read(root: &Path, index: &Index, seg: &str) -> anyhow::Result<Segment> {
        let mut frames = BTreeMap::new();
        for (rel, b) in super::segment::read(root, index, seg)? {
            let df = super::segment::parquet(&b, &root.join(&rel))?;
            frames.insert(rel, df);
        }
        Ok(Segment { frames })
    }

    /// One campaign's rows of one table and suite.
    fn frame(
        &self,
        root: &Path,
        seg: &str,
        table: &str,
        suite: &str,
        id: &str,
    ) -> anyhow::Result<DataFrame> {
        let rel = super::segment::file(table, suite, seg);
        let df = self
            .frames
            .get(&rel)
            .with_context(|| format!("`{}` was not read", root.join(&rel).display()))?;
        super::segment::rows_of(df, id)
    }
}

/// One column as text cells (null as None); an error names the file's table.
fn strs(df: &DataFrame, name: &str) -> anyhow::Result<Vec<Option<String>>> {
    Ok(df
        .column(name)?
        .str()?
        .iter()
        .map(|v| v.map(str::to_string))
        .collect())
}

fn f64s(df: &DataFrame, name: &str) -> anyhow::Result<Vec<Option<f64>>> {
    Ok(df.column(name)?.f64()?.iter().collect())
}

fn text(v: &Option<String>) -> String {
    v.clone().unwrap_or_default()
}

/// One campaign of the dataset as compare and trend read it, from its segment.
fn load(root: &Path, id: &str, e: &Entry, seg: &Segment) -> anyhow::Result<Campaign> {
    let input = format!("{}:{}", root.display(), e.name);
    let mut c = Campaign {
        input: input.clone(),
        started: e.started.clone(),
        samples: Vec::new(),
        verdicts: Vec::new(),
        setup: Setup::default(),
        parameters: Vec::new(),
    };
    // The suites in the registry's order, as an analysis lists them.
    let mut suites: Vec<&String> = e.suites.iter().collect();
    let pos = |s: &str| {
        crate::suites::SUITES
            .iter()
            .position(|x| x.name() == s)
            .unwrap_or(usize::MAX)
    };
    suites.sort_by_key(|s| pos(s));
    let frame = |table: &str, suite: &str| seg.frame(root, &e.segment, table, suite, id);
    for suite in suites {
        let at = |t: &str| super::segment::file(t, suite, &e.segment);
        // One row per suite a campaign ran: none, and the index names a segment that
        // does not hold the campaign.
        let rows = frame("campaigns", suite)?.height();
        if rows != 1 {
            anyhow::bail!(
                "campaign `{}` ({}) has {rows} rows in `{}`, not one: the index does not match the files; add the campaign again, or restore `_index.json`",
                e.name,
                id.get(..12).unwrap_or(id),
                root.join(at("campaigns")).display()
            );
        }
        let m = frame("measurements", suite)?;
        c.samples
            .extend(samples(&m, suite, &input, &at("measurements"))?);
        let v = frame("verdicts", suite)?;
        c.verdicts.extend(verdicts(&v, &at("verdicts"))?);
        let s = frame("setup", suite)?;
        setup_facts(&s, &mut c.setup)?;
        let p = frame("parameters", suite)?;
        c.parameters.extend(parameters(&p)?);
    }
    Ok(c)
}

/// A campaign's measurements of one suite (`at`: the table's place, for errors).
fn samples(m: &DataFrame, suite: &str, input: &str, at: &str) -> anyhow::Result<Vec<Sample>> {
    let (subject, metric, unit, better, files, source) = (
        strs(m, "subject")?,
        strs(m, "metric")?,
        strs(m, "unit")?,
        strs(m, "better")?,
        strs(m, "files")?,
        strs(m, "noise_source")?,
    );
    let (value, noise) = (f64s(m, "value")?, f64s(m, "noise")?);
    // Added in schema 1.1: a campaign written by 1.0 has none.
    let standard_error = match m.column("standard_error") {
        Ok(_) => f64s(m, "standard_error")?,
        Err(_) => vec![None; m.height()],
    };
    let mut out = Vec::with_capacity(m.height());
    for i in 0..m.height() {
        let Some(v) = value[i] else {
            anyhow::bail!("`{at}`: row {} has no value", i + 1);
        };
        out.push(Sample {
            suite: suite.to_string(),
            subject: text(&subject[i]),
            metric: text(&metric[i]),
            unit: text(&unit[i]),
            better: if better[i].as_deref() == Some("lower") {
                Better::Lower
            } else {
                Better::Higher
            },
            value: v,
            noise: noise[i].map(|n| (n, text(&source[i]))),
            standard_error: standard_error[i],
            input: input.to_string(),
            file: text(&files[i]).split(';').next().unwrap_or("").to_string(),
        });
    }
    Ok(out)
}

/// A campaign's verdicts of one suite.
fn verdicts(v: &DataFrame, at: &str) -> anyhow::Result<Vec<Judged>> {
    let (vid, crit, vunit, status) = (
        strs(v, "id")?,
        strs(v, "criterion")?,
        strs(v, "unit")?,
        strs(v, "status")?,
    );
    let measured = f64s(v, "measured_value")?;
    let mut out = Vec::with_capacity(v.height());
    for i in 0..v.height() {
        let st = status[i]
            .as_deref()
            .and_then(crate::model::verdict::Status::from_name)
            .with_context(|| format!("`{at}`: row {} has no known status", i + 1))?;
        out.push(Judged {
            id: text(&vid[i]),
            criterion: text(&crit[i]),
            unit: text(&vunit[i]),
            measured_value: measured[i],
            status: st.label().to_string(),
        });
    }
    Ok(out)
}

/// A campaign's setup facts of one suite (the reference rows beside them are not read).
fn setup_facts(s: &DataFrame, setup: &mut Setup) -> anyhow::Result<()> {
    let (kind, sid, value, source) = (
        strs(s, "kind")?,
        strs(s, "id")?,
        strs(s, "value")?,
        strs(s, "source")?,
    );
    let number = f64s(s, "number")?;
    for i in 0..s.height() {
        if kind[i].as_deref() == Some("fact") {
            setup.insert(
                &text(&sid[i]),
                Read {
                    value: text(&value[i]),
                    number: number[i],
                    source: text(&source[i]),
                },
            );
        }
    }
    Ok(())
}

/// A campaign's parameters of one suite.
fn parameters(p: &DataFrame) -> anyhow::Result<Vec<Parameter>> {
    let (psub, pname, ptext, punit, pscope, pfile) = (
        strs(p, "subject")?,
        strs(p, "name")?,
        strs(p, "text")?,
        strs(p, "unit")?,
        strs(p, "scope")?,
        strs(p, "file")?,
    );
    let pnum = f64s(p, "number")?;
    Ok((0..p.height())
        .map(|i| Parameter {
            subject: text(&psub[i]),
            name: text(&pname[i]),
            value: match pnum[i] {
                Some(n) => ParamValue::Number(n),
                None => ParamValue::Text(text(&ptext[i])),
            },
            unit: punit[i].as_deref().and_then(Unit::from_symbol),
            scope: if pscope[i].as_deref() == Some("server") {
                Scope::Server
            } else {
                Scope::Run
            },
            file: text(&pfile[i]),
        })
        .collect())
}

/// Every campaign a dataset input selects (each segment read once).
pub fn campaigns(root: &Path, sel: &Selector) -> anyhow::Result<Vec<Campaign>> {
    // One reading of the index for the selection and the segments it names.
    let index = settled_index(root)?;
    let selected = select_in(root, index.clone(), sel)?;
    let mut segments: BTreeMap<String, Segment> = BTreeMap::new();
    let mut out = Vec::with_capacity(selected.len());
    for (id, e) in &selected {
        if !segments.contains_key(&e.segment) {
            segments.insert(e.segment.clone(), Segment::read(root, &index, &e.segment)?);
        }
        out.push(load(root, id, e, &segments[&e.segment])?);
    }
    Ok(out)
}
