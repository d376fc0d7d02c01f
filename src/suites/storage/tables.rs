//! The procedure's table as its script prints it, the same table computed correctly, and
//! runs of the two arrays matched by their options.

use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, fixed, qty, Phrase};
use crate::phrase;
use crate::suites::{Preformatted, Table};

use super::frames::Pair;
use super::judge::{mb_s, Sides};
use super::load::{Loaded, RunGroup};
use super::script_table::{header, script_line, script_misreads, script_stops};

/// What the procedure's script prints for this folder, and where it goes wrong.
pub fn script_output(loaded: &Loaded) -> Preformatted {
    // Every `.json` of the array folders, as the script is given them: the fio results,
    // and those that are not readable fio output (the script stops on those too).
    enum File<'a> {
        Run(&'a super::load::Run<'a>),
        Unread(&'a str),
    }
    let mut files: Vec<(&str, File)> = loaded
        .runs
        .iter()
        .map(|r| (r.file.as_str(), File::Run(r)))
        .chain(
            loaded
                .no_result
                .iter()
                .filter(|n| n.evidence.ends_with(".json"))
                .map(|n| (n.evidence.as_str(), File::Unread(n.reason.as_str()))),
        )
        .collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    let mut lines = vec![header()];
    let mut notes = Vec::new();
    let total = files.len();
    // The script stops at the first file it cannot read: the rows above it are all it
    // prints. Later files are still explained (what the script would do with each).
    let mut stopped = false;
    for (i, (file, what)) in files.into_iter().enumerate() {
        let stops = match &what {
            File::Run(run) => script_stops(run.output),
            File::Unread(reason) => Some(format!(
                "not readable as fio output ({reason}): the script stops here"
            )),
        };
        if let Some(why) = stops {
            if stopped {
                notes.push(format!("`{file}`: {why}"));
                continue;
            }
            stopped = true;
            let after = total - i - 1;
            let printed = match lines.len() - 1 {
                0 => "only its header".to_string(),
                n => format!("its header and the {n} row(s) of the files sorted before this one"),
            };
            notes.push(format!(
                "`{file}`: {why}; above is all it prints ({printed}){}",
                if after > 0 {
                    format!(", none for this file or the {after} after it: reprobench reads them all (Results)")
                } else {
                    String::new()
                }
            ));
            continue;
        }
        let File::Run(run) = what else { continue };
        if !stopped {
            if let Some(line) = script_line(&run.array, run.output) {
                lines.push(line);
            }
        }
        let past = if stopped {
            " (past where the script stops)"
        } else {
            ""
        };
        for why in script_misreads(run.output) {
            notes.push(format!("`{file}`: {why}{past}"));
        }
    }
    Preformatted {
        title: "The procedure's table, as its script prints it".into(),
        text: lines.join("\n"),
        notes,
    }
}

/// The procedure's columns, one row per file and reporting group, computed from every
/// job of the group, with what needs saying about each row.
pub fn results_table(groups: &[RunGroup]) -> Table {
    let mut rows = Vec::new();
    // In the groups' order: path order, a job's numbered repeats after its first run.
    for g in groups {
        let mut cells = vec![
            Phrase::text(&g.label),
            Phrase::num(mb_s(g), 0),
            Phrase::num((g.group.read.iops + g.group.write.iops) / 1000.0, 1),
            p99_us(g.group.read.p99_ns),
            p99_us(g.group.write.p99_ns),
        ];
        // Without recorded options the shape is unknown: fio's defaults are a guess.
        cells.push(if g.group.recorded {
            g.signature.phrase()
        } else {
            "unknown (no options in the file)".into()
        });
        cells.push(Phrase::text(row_note(g)));
        rows.push(cells);
    }
    Table {
        title: "Results (every job of each group summed, as group_reporting would)".into(),
        columns: ["array/job", "MB/s", "kIOPS", "read p99 us", "write p99 us", "shape", "note"]
            .map(String::from)
            .to_vec(),
        rows,
        notes: vec![
            "MB/s is decimal (10^6 bytes), read + write, as in the procedure. p99 is completion latency (clat) unless marked `lat`.".into(),
        ],
    }
}

/// A p99 in ns as microseconds, whole (`-` for none or zero).
fn p99_us(ns: Option<f64>) -> Phrase {
    match ns {
        Some(v) if v != 0.0 => Phrase::num(v / 1000.0, 0),
        _ => Phrase::dash(),
    }
}

fn row_note(g: &RunGroup) -> String {
    let mut n = Vec::new();
    if g.group.error != 0 {
        n.push(format!("error {}", g.group.error));
    }
    if g.group.entries > 1 {
        n.push(format!("{} jobs summed", g.group.entries));
    }
    if g.group.jobnames.len() > 1 {
        n.push(format!(
            "job sections {} (shape of the first)",
            g.group.jobnames.join(", ")
        ));
    }
    for (dir, d) in [("read", &g.group.read), ("write", &g.group.write)] {
        if d.p99_ns.is_some() && d.p99_of == "lat" {
            n.push(format!("{dir} p99 is total latency"));
        }
        if d.p99_ns.is_some() && !d.p99_exact {
            n.push(format!("{dir} p99 is the largest job's (no json+ bins)"));
        }
    }
    let out = g.run.output;
    if let Some(line) = crate::fio::params::interrupted(out) {
        n.push(format!("interrupted (`{line}`): cut short"));
    }
    if !out.separate_runs.is_empty() {
        n.push(format!(
            "{} runs in one file: only the last (line {}) is shown",
            out.separate_runs.len() + 1,
            out.line
        ));
    } else if out.documents > 1 {
        n.push(format!("last of {} status reports", out.documents));
    }
    if let Some(cut) = &g.run.output.broken_tail {
        n.push(format!(
            "cut-off report after the last complete one ({cut})"
        ));
    }
    n.join("; ")
}

/// Runs present in both arrays with the same shape: the suite's sweep, side by side.
/// The matched runs.
pub fn matched_table(pairs: &[Pair], sides: &Sides) -> Option<Table> {
    let mut rows = Vec::new();
    for p in pairs {
        let us = |v: Option<f64>| p99_us(v.map(|u| u * 1000.0));
        rows.push(vec![
            Phrase::text(&p.shape.rw),
            p.shape
                .bs
                .map_or("?".into(), |b| phrase!("{}", phrase::size(b))),
            phrase!("{}x{}", count(p.shape.numjobs), count(p.shape.iodepth)),
            Phrase::count(p.queue_depth),
            pooled(p.baseline_mb_s, p.baseline_runs),
            pooled(p.candidate_mb_s, p.candidate_runs),
            p.ratio
                .map_or(Phrase::dash(), |r| phrase!("{}", qty(r, 2, Unit::Ratio))),
            us(p.baseline_p99_us),
            us(p.candidate_p99_us),
        ]);
    }
    if rows.is_empty() {
        return None;
    }
    let mut notes = vec!["p99 is of writes where the run wrote, else of reads."];
    if pairs
        .iter()
        .any(|p| p.baseline_runs > 1 || p.candidate_runs > 1)
    {
        notes.push("A job run more than once (NAME.json, NAME-run2.json, ...): MB/s is the geometric mean of its runs, as the verdicts pool them, and p99 the largest; each run has its own row in the results table.");
    }
    Some(Table {
        title: format!("Matched runs: {} vs {}", sides.candidate, sides.baseline),
        columns: vec![
            "rw".into(),
            "bs".into(),
            "jobs x depth".into(),
            "QD".into(),
            format!("{} MB/s", sides.baseline),
            format!("{} MB/s", sides.candidate),
            "ratio".into(),
            format!("{} p99 us", sides.baseline),
            format!("{} p99 us", sides.candidate),
        ],
        rows,
        notes: notes.into_iter().map(Into::into).collect(),
    })
}

/// MB/s, and how many runs it pools when more than one.
fn pooled(mb_s: f64, runs: usize) -> Phrase {
    if runs > 1 {
        phrase!("{} ({} runs)", fixed(mb_s, 0), count(runs as u64))
    } else {
        Phrase::num(mb_s, 0)
    }
}

/// Each job's steady state from its iostat series: the window, its mean, range and
/// fitted line, and what the SNIA rule says.
pub fn steady_table(
    groups: &[RunGroup],
    steadies: &[Option<(super::steady::Steady, String)>],
    rule: &super::steady::Rule,
) -> Option<Table> {
    use super::steady::Outcome;
    let pct = |x: Option<f64>| {
        x.map_or(Phrase::dash(), |v| {
            phrase!("{}", qty(v * 100.0, 0, Unit::Percent))
        })
    };
    let rows: Vec<Vec<Phrase>> = groups
        .iter()
        .zip(steadies)
        .filter_map(|(g, s)| s.as_ref().map(|(s, file)| (g, s, file)))
        .map(|(g, s, file)| {
            vec![
                Phrase::text(&g.label),
                Phrase::count(s.active),
                s.window.map_or(Phrase::dash(), |(a, b)| {
                    phrase!("{}-{}", count(a), count(b))
                }),
                s.mean.map_or(Phrase::dash(), |m| Phrase::num(m.0, 0)),
                pct(s.range),
                pct(s.excursion),
                match s.outcome {
                    Outcome::Reached => "steady".into(),
                    Outcome::NotReached => "not steady".into(),
                    Outcome::TooFew => "too few samples".into(),
                },
                Phrase::text(file),
            ]
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        title: "Steady state, from each job's iostat series".into(),
        columns: [
            "array/job",
            "active samples",
            "window",
            "mean MB/s",
            "range",
            "line",
            "steady state",
            "series",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: vec![phrase!(
            "The member drives' read + write MB/s (decimal; iostat's MiB/s converted) per iostat sample. Window: the last {}% of the job's active samples (idle ones before fio started and after it ended dropped), at least {}. Steady when the window's range is within {}% of its mean and the least-squares line's excursion over it (slope × length) within {}% ({}).",
            fixed(rule.window_share * 100.0, 0),
            count(rule.min_window),
            fixed(rule.max_range * 100.0, 0),
            fixed(rule.max_excursion * 100.0, 0),
            phrase::name(rule.source.as_str())
        )
        .to_string()],
    })
}
