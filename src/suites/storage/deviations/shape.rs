//! What job ran: one whole run, its shape against the headline run it is judged as,
//! and its name against its options.

use crate::fio::params;
use crate::fio::signature::{parse_size, Signature};
use crate::model::deviation::Deviation;
use crate::model::phrase;
use crate::model::phrase::{count, name, Phrase};
use crate::phrase;

use crate::suites::storage::judge::workload_signature;
use crate::suites::storage::load::RunGroup;
use crate::suites::storage::reference::{Reference, Workload};

/// A run cut short, or several runs pasted into one file: not the procedure's one run.
pub(super) fn not_one_whole_run(g: &RunGroup, reference: &Reference) -> Vec<Deviation> {
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
pub(super) fn shape(g: &RunGroup, w: &Workload) -> Vec<Deviation> {
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
pub(super) fn name_mismatch(g: &RunGroup) -> Option<Deviation> {
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
