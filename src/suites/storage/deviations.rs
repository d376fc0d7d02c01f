//! Each run of the compared arrays against the procedure's helper and headline runs: the
//! options in effect (from the fio JSON, not from the procedure), fio's own runtime, and
//! what every difference does to the comparison with the published numbers.

use crate::fio::params::{self, parse_seconds};
use crate::fio::signature::{parse_size, Signature};
use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count, fixed, name, qty, Phrase};
use crate::phrase;
use crate::suites::RanCommand;

use super::judge::{find_workload, workload_signature, Sides};
use super::load::RunGroup;
use super::reference::{Reference, Workload};
use super::steady::{self, Steady};

fn on_side(g: &RunGroup, sides: &Sides) -> bool {
    g.run.array.eq_ignore_ascii_case(&sides.baseline)
        || g.run.array.eq_ignore_ascii_case(&sides.candidate)
}

/// Every deviation of the runs in the two compared arrays.
pub fn deviations(
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
    steadies: &[Option<(Steady, String)>],
) -> Vec<Deviation> {
    let mut out = Vec::new();
    // Which headline verdicts each run feeds, found once.
    let mut matched: Vec<(&RunGroup, &Workload)> = Vec::new();
    for w in &reference.workload {
        for side in [&sides.baseline, &sides.candidate] {
            if let Some(g) = find_workload(groups, side, w).0 {
                matched.push((g, w));
            }
        }
    }
    let feeds = |g: &RunGroup| -> Vec<&Workload> {
        matched
            .iter()
            .filter(|(m, _)| std::ptr::eq(m.group, g.group))
            .map(|(_, w)| *w)
            .collect()
    };
    for (g, steady) in groups
        .iter()
        .zip(steadies)
        .filter(|(g, _)| on_side(g, sides))
    {
        let workloads = feeds(g);
        let base = |d: Deviation| {
            let mut d = d.subject(g.label.clone()).file(g.run.file.clone());
            for w in &workloads {
                d = d.verdict(format!("storage.{}", w.id));
            }
            d
        };
        out.extend(not_one_whole_run(g, reference).into_iter().map(base));
        let first = g
            .run
            .output
            .jobs
            .iter()
            .find(|j| j.jobname == g.group.jobname);
        let recorded = first.is_some_and(|j| params::recorded(g.run.output, j));
        if !recorded {
            out.push(base(
                Deviation::new("fio options", "recorded by the helper", "unknown")
                    .effect(
                        "the file records no `global options` and no job options: how the job ran (shape, runtime, flags) is unknown",
                        true,
                    )
                    .source(reference.procedure.source.clone()),
            ));
            continue;
        }
        for w in &workloads {
            out.extend(shape(g, w).into_iter().map(base));
        }
        if workloads.is_empty() {
            out.extend(name_mismatch(g).map(base));
        }
        let headline = !workloads.is_empty();
        let compared = headline || super::observe::beside_published(g);
        out.extend(runtime(g, reference, compared, steady.as_ref()).map(base));
        if headline {
            out.extend(not_steady(g, reference, steady.as_ref()).map(base));
        }
        if headline {
            out.extend(size(g, reference).map(base));
        }
        out.extend(helper_options(g, reference).into_iter().map(base));
        out.extend(device(g, sides, reference).map(base));
    }
    out
}

/// A run cut short, or several runs pasted into one file: not the procedure's one run.
fn not_one_whole_run(g: &RunGroup, reference: &Reference) -> Vec<Deviation> {
    let mut out = Vec::new();
    if let Some(line) = params::interrupted(g.run.output) {
        out.push(
            Deviation::new("run", "to its end", "interrupted")
                .effect(
                    format!("`{line}`: fio wrote the numbers of the part that ran; a cut-short run is not the procedure's run"),
                    true,
                )
                .source(reference.procedure.source.clone()),
        );
    }
    if let Some((line, why)) = g.run.output.separate_runs.first() {
        out.push(
            Deviation::new(
                "runs in the file",
                "one run",
                phrase!("{} separate runs", count(g.run.output.separate_runs.len() + 1)),
            )
            .effect(
                format!("the document at line {line} is not a status report of the last one ({why}): several runs were pasted into one file, and which one is the procedure's run is not known"),
                true,
            )
            .source(reference.procedure.source.clone()),
        );
    }
    out
}

/// rw, bs, jobs, depth and mix of `g` against the headline run `w` it is judged as.
fn shape(g: &RunGroup, w: &Workload) -> Vec<Deviation> {
    let want = workload_signature(w);
    let ran = &g.signature;
    let named = g.group.jobname == w.name || g.run.stem == w.name;
    let effect = if named {
        format!(
            "`{}` is named `{}` but ran {ran}: not the procedure's {}",
            g.run.file, w.name, w.title
        )
    } else {
        format!("another job shape: the published number is for {}", w.title)
    };
    let mut out = Vec::new();
    let mut push = |p: &str, proc_v: Phrase, ran_v: Phrase| {
        if proc_v != ran_v {
            out.push(
                Deviation::new(p, proc_v, ran_v)
                    .effect(effect.clone(), true)
                    .source(w.command.clone()),
            );
        }
    };
    push("rw", Phrase::text(&want.rw), Phrase::text(&ran.rw));
    let bs = |b: Option<u64>| b.map_or("unknown".into(), |b| phrase!("{}", phrase::size(b)));
    push("bs", bs(want.bs), bs(ran.bs));
    let n = |x: u64| phrase!("{}", count(x));
    push("numjobs", n(want.numjobs), n(ran.numjobs));
    push("iodepth (effective)", n(want.iodepth), n(ran.iodepth));
    if want.rwmixread.is_some() || ran.rwmixread.is_some() {
        let m = |x: Option<u64>| x.map_or(Phrase::dash(), n);
        push("rwmixread", m(want.rwmixread), m(ran.rwmixread));
    }
    out
}

/// A run named the procedure's way (`randwrite-8k-j8-d8`) whose options say otherwise.
fn name_mismatch(g: &RunGroup) -> Option<Deviation> {
    let said = signature_from_name(&g.run.stem)?;
    let ran = &g.signature;
    let same = said.rw == ran.rw
        && said.bs == ran.bs
        && said.numjobs == ran.numjobs
        && said.iodepth == ran.iodepth;
    (!same).then(|| {
        Deviation::new(
            "job name vs options",
            phrase!(
                "{} {}x{}",
                name(&said.rw),
                count(said.numjobs),
                count(said.iodepth)
            ),
            ran.phrase(),
        )
        .effect(
            format!(
                "`{}` says one shape in its name and ran another",
                g.run.file
            ),
            true,
        )
    })
}

/// `randwrite-8k-j8-d8` -> randwrite, 8k, 8 jobs, depth 8.
pub fn signature_from_name(stem: &str) -> Option<Signature> {
    let parts: Vec<&str> = stem.split('-').collect();
    let [rw, bs, j, d] = parts[..] else {
        return None;
    };
    let rw = rw.trim_end_matches(|c: char| c.is_ascii_digit());
    if !matches!(
        rw,
        "read" | "write" | "randread" | "randwrite" | "randrw" | "rw"
    ) {
        return None;
    }
    Some(Signature {
        rw: rw.to_string(),
        bs: Some(parse_size(bs)?),
        numjobs: j.strip_prefix('j')?.parse().ok()?,
        iodepth: d.strip_prefix('d')?.parse().ok()?,
        rwmixread: None,
    })
}

/// The configured runtime, and fio's own account of how long the job ran.
fn runtime(
    g: &RunGroup,
    reference: &Reference,
    headline: bool,
    steady: Option<&(Steady, String)>,
) -> Option<Deviation> {
    let p = &reference.procedure;
    let configured = params::get(&g.group.options, "runtime");
    let actual_ms = g.group.read.runtime_ms.max(g.group.write.runtime_ms);
    let actual_s = actual_ms as f64 / 1000.0;
    let short = actual_s < p.runtime_floor_s;
    // Where the job has a per-second series, a short run is judged by it: steady over
    // its window, the numbers stand; too few samples or not steady, they are not
    // comparable. Without a series, most SSDs do not reach steady state that fast.
    // A series longer than the job (idle seconds aside) is not this job's: it says
    // nothing about it.
    let steady = steady.filter(|(s, _)| s.active as f64 <= actual_s.ceil() + 2.0);
    let steady_enough = steady.is_some_and(|(s, _)| s.outcome == steady::Outcome::Reached);
    let changes = short && headline && !steady_enough;
    let evidence = steady.map(|(s, f)| (s.describe(&reference.steady_state), f.clone()));
    let effect = |why: &str| {
        if short && headline {
            let ran = format!(
                "{why}: fio ran {actual_s:.1} s, under the procedure's {} s",
                p.runtime_s
            );
            judged_by_series(&ran, evidence.as_ref(), steady_enough)
        } else if short {
            format!("{why}: fio ran {actual_s:.1} s")
        } else {
            format!("{why}; fio ran {actual_s:.1} s, as long as the procedure's runs")
        }
    };
    let differs = configured
        .and_then(parse_seconds)
        .is_none_or(|secs| (secs - p.runtime_s as f64).abs() > 1e-9);
    if differs {
        let ran = Phrase::text(configured.map_or("not set".to_string(), trim_s));
        let why = if configured.is_some() {
            "another --runtime"
        } else {
            "no --runtime: the run lasts until its --size is done"
        };
        let d = Deviation::new("runtime", phrase!("{}", count(p.runtime_s)), ran)
            .unit(Unit::Seconds)
            .effect(effect(why), changes)
            .source(p.size_source.clone());
        return Some(with_series(d, steady, short && headline));
    }
    (short && headline).then(|| {
        let d = Deviation::new(
            "runtime (fio's account)",
            phrase!("{}", count(p.runtime_s)),
            phrase!("{}", fixed(actual_s, 1)),
        )
        .unit(Unit::Seconds)
        .effect(
            judged_by_series(
                &format!("the job stopped after {actual_s:.1} s (its --size was reached?)"),
                evidence.as_ref(),
                steady_enough,
            ),
            changes,
        )
        .source(p.size_source.clone());
        with_series(d, steady, true)
    })
}

/// What a short run's series says of it: `ran` and the evidence.
fn judged_by_series(ran: &str, evidence: Option<&(String, String)>, steady: bool) -> String {
    match evidence {
        Some((seen, file)) if steady => {
            format!("{ran}, but `{file}` shows it {seen}: the numbers stand")
        }
        Some((seen, file)) => format!(
            "{ran}, and `{file}` shows {seen}: the numbers are not comparable to the published ones"
        ),
        None => format!(
            "{ran}; no steady state on most SSDs, so the numbers are not comparable to the published ones"
        ),
    }
}

/// Names the iostat series a runtime deviation was judged by.
fn with_series(d: Deviation, steady: Option<&(Steady, String)>, judged: bool) -> Deviation {
    match steady {
        // A series from fio's own logs names each job's log.
        Some((_, files)) if judged => files.split(';').fold(d, |d, f| d.evidence(f)),
        _ => d,
    }
}

/// A headline job of the procedure's length whose series is not steady: listed (the
/// procedure does not judge steady state; the published runs are 60 s after a
/// precondition too).
fn not_steady(
    g: &RunGroup,
    reference: &Reference,
    steady: Option<&(Steady, String)>,
) -> Option<Deviation> {
    let (s, file) = steady?;
    let actual_s = g.group.read.runtime_ms.max(g.group.write.runtime_ms) as f64 / 1000.0;
    if s.outcome != steady::Outcome::NotReached || actual_s < reference.procedure.runtime_floor_s {
        return None;
    }
    Some(
        Deviation::new(
            "steady state",
            "reached (60 s after a precondition)",
            phrase!(
                "not reached: range {}, line {}",
                qty(s.range.unwrap_or(f64::NAN) * 100.0, 0, Unit::Percent),
                qty(s.excursion.unwrap_or(f64::NAN) * 100.0, 0, Unit::Percent)
            ),
        )
        .effect(
            format!(
                "`{file}` shows the job {}: its number may still be moving; a longer precondition or runtime settles it",
                s.describe(&reference.steady_state)
            ),
            false,
        )
        .source(reference.steady_state.source.clone()),
    )
    .map(|d| file.split(';').fold(d, |d, f| d.evidence(f)))
}

fn trim_s(raw: &str) -> String {
    raw.trim().trim_end_matches('s').to_string()
}

fn size(g: &RunGroup, reference: &Reference) -> Option<Deviation> {
    let p = &reference.procedure;
    let ran = params::get(&g.group.options, "size");
    let same = match ran {
        Some(r) => r.trim() == p.size || parse_size(r) == parse_size(&p.size),
        None => false,
    };
    (!same).then(|| {
        Deviation::new(
            "size",
            Phrase::text(&p.size),
            Phrase::text(ran.unwrap_or("not set")),
        )
            .effect(
                "another working span: a smaller one touches fewer flash blocks (on a device smaller than 3.8 TB fio spans the whole device, as the procedure intends)",
                false,
            )
            .source(p.size_source.clone())
    })
}

fn helper_options(g: &RunGroup, reference: &Reference) -> Vec<Deviation> {
    let p = &reference.procedure;
    let qd1 = g.signature.numjobs == 1 && g.signature.iodepth == 1;
    let mut out = Vec::new();
    for o in &p.option {
        let ran = params::get(&g.group.options, &o.name).map(str::trim);
        let (want, source) = if o.name == "ioengine" && qd1 {
            (p.qd1_ioengine.as_str(), p.qd1_source.as_str())
        } else {
            (o.value.as_str(), o.source.as_str())
        };
        let same = match (want, ran) {
            ("not set", None) | ("not set", Some("0")) => true,
            (w, Some(r)) => w == r || (o.name == "ioengine" && qd1 && r == "libaio"),
            (_, None) => false,
        };
        if !same {
            out.push(
                Deviation::new(
                    o.name.clone(),
                    Phrase::text(want),
                    Phrase::text(ran.unwrap_or("not set")),
                )
                .effect(o.effect.clone(), o.changes)
                .source(source),
            );
        }
    }
    out
}

/// DEV: the baseline's is /dev/md126; either side must be one raw block device.
fn device(g: &RunGroup, sides: &Sides, reference: &Reference) -> Option<Deviation> {
    let p = &reference.procedure;
    let ran = params::get(&g.group.options, "filename");
    let Some(dev) = ran else {
        return Some(
            Deviation::new("filename (DEV)", "the array's block device", "not recorded")
                .effect("the file does not say which device was tested", false)
                .source(p.dev_source.clone()),
        );
    };
    let members: Vec<&str> = dev.split(':').filter(|s| !s.is_empty()).collect();
    let baseline = g.run.array.eq_ignore_ascii_case(&sides.baseline);
    let want = if baseline {
        p.baseline_dev.as_str()
    } else {
        "the ADP block device"
    };
    if members.len() > 1 {
        return Some(
            Deviation::new("filename (DEV)", Phrase::text(want), Phrase::text(dev))
                .effect(
                    format!(
                        "fio itself spread the job over {} devices: no RAID layer (and no card) sits under this run",
                        members.len()
                    ),
                    true,
                )
                .source(p.dev_source.clone()),
        );
    }
    if !dev.starts_with("/dev/") {
        return Some(
            Deviation::new("filename (DEV)", Phrase::text(want), Phrase::text(dev))
                .effect(
                    "a file, not a raw block device: a filesystem sits between fio and the drives",
                    true,
                )
                .source(p.dev_source.clone()),
        );
    }
    (baseline && dev != p.baseline_dev).then(|| {
        Deviation::new("filename (DEV)", Phrase::text(want), Phrase::text(dev))
            .effect(
                "another device path; the comparison holds if it is the RAID10 array",
                false,
            )
            .source(p.dev_source.clone())
    })
}

/// The fio command each run of the compared arrays ran, rebuilt from its JSON.
pub fn commands_ran(groups: &[RunGroup], sides: &Sides) -> Vec<RanCommand> {
    let mut out: Vec<RanCommand> = groups
        .iter()
        .filter(|g| on_side(g, sides))
        .map(|g| {
            let first = g
                .run
                .output
                .jobs
                .iter()
                .find(|j| j.jobname == g.group.jobname);
            let recorded = first.is_some_and(|j| params::recorded(g.run.output, j));
            RanCommand {
                subject: g.label.clone(),
                command: if recorded {
                    params::command_line(&g.group.jobname, &g.group.options)
                } else {
                    "unknown: the file records no fio options".into()
                },
                source: g.run.file.clone(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_shapes_from_the_procedures_job_names() {
        let s = signature_from_name("randrw-8k-j128-d8").expect("procedure name");
        assert_eq!(
            (s.rw.as_str(), s.bs, s.numjobs, s.iodepth),
            ("randrw", Some(8192), 128, 8)
        );
        assert!(signature_from_name("precondition").is_none());
        assert!(signature_from_name("my-own-job-name").is_none());
    }
}
