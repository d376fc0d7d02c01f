//! What the headline runs show beside their ratio: host CPU on random reads and the
//! random writes' latency and drive write wait.

use crate::model::measurement::Unit;
use crate::model::phrase::{fixed, qty, Phrase};
use crate::model::verdict::Observation;
use crate::phrase;
use crate::suites::storage::drives::{cpu_system, mean_w_await};
use crate::suites::storage::judge::{find_workload, Sides};
use crate::suites::storage::load::{Loaded, RunGroup};
use crate::suites::storage::reference::Reference;

use super::member_drives::members;
use super::pairs::{pair, published_pair};

fn headline<'a>(
    groups: &'a [RunGroup<'a>],
    reference: &Reference,
    id: &str,
    array: &str,
) -> Option<&'a RunGroup<'a>> {
    let w = reference.workload.iter().find(|w| w.id == id)?;
    find_workload(groups, array, w)
        .0
        .filter(|g| g.group.error == 0)
}

pub(super) fn random_read_cpu(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Option<Observation> {
    let b = headline(groups, reference, "randread-8k-qd1024", &sides.baseline);
    let c = headline(groups, reference, "randread-8k-qd1024", &sides.candidate);
    if b.is_none() && c.is_none() {
        return None;
    }
    // Host %system (iostat) per 100k IOPS: comparable across arrays at different IOPS.
    let per_iops = |g: Option<&RunGroup>| -> Option<(f64, f64)> {
        let g = g?;
        let iops = g.group.read.iops + g.group.write.iops;
        let sys = cpu_system(loaded.iostat_for(g.run)?.log)?;
        (iops > 0.0).then(|| (sys, sys / (iops / 1e5)))
    };
    let fio_sys = |g: Option<&RunGroup>| {
        g.map(|g| phrase!("fio sys {}", qty(g.group.sys_cpu, 1, Unit::Percent)))
    };
    let (pb, pc) = (per_iops(b), per_iops(c));
    let text = |p: Option<(f64, f64)>, g: Option<&RunGroup>| {
        let mut parts: Vec<Phrase> = Vec::new();
        if let Some((sys, per)) = p {
            parts.push(phrase!(
                "host %system {} ({} per 100k IOPS)",
                fixed(sys, 1),
                fixed(per, 2)
            ));
        }
        parts.extend(fio_sys(g));
        (!parts.is_empty()).then(|| Phrase::join(parts, ", "))
    };
    let mut measured = pair(sides, text(pb, b), text(pc, c));
    if let (Some((_, x)), Some((_, y))) = (pb, pc) {
        if x > 0.0 {
            measured = phrase!("{} · ratio {}", measured, qty(y / x, 2, Unit::Ratio));
        }
    }
    let obs = reference.observation("random_read_sys_cpu_ratio");
    let mut files: Vec<String> = [b, c]
        .iter()
        .flatten()
        .map(|g| g.run.file.clone())
        .collect();
    for g in [b, c].into_iter().flatten() {
        if let Some(f) = loaded.iostat_for(g.run) {
            files.push(f.file.clone());
        }
    }
    Some(Observation {
        id: "storage.randread-system-cpu".into(),
        what: "Host system CPU on random reads (8 KB, QD 1024) at matching IOPS".into(),
        measured,
        published: obs.and_then(|o| o.value).map_or(Phrase::dash(), |v| {
            phrase!("about {}", qty(v, 1, Unit::Ratio))
        }),
        files,
        note: obs.map(|o| o.source.clone()).unwrap_or_default(),
    })
}

pub(super) fn random_write_wait(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Option<Observation> {
    let b = headline(groups, reference, "randwrite-8k-qd64", &sides.baseline);
    let c = headline(groups, reference, "randwrite-8k-qd64", &sides.candidate);
    if b.is_none() && c.is_none() {
        return None;
    }
    let text = |g: Option<&RunGroup>| -> Option<Phrase> {
        let g = g?;
        let mut parts = Vec::new();
        if let Some(ns) = g.group.write.mean_lat_ns {
            parts.push(phrase!("fio mean {} us", fixed(ns / 1000.0, 0)));
        }
        if let Some(w) = loaded
            .iostat_for(g.run)
            .and_then(|f| mean_w_await(&members(loaded, g, f).ok()?.0))
        {
            parts.push(phrase!("drive w_await {}", qty(w, 2, Unit::Milliseconds)));
        }
        (!parts.is_empty()).then(|| Phrase::join(parts, ", "))
    };
    let (published, source) = published_pair(reference, "randwrite_mean_latency_us");
    Some(Observation {
        id: "storage.randwrite-wait".into(),
        what: "Random write 8 KB QD 64: latency and drive write wait (RAID10 waits longer)".into(),
        measured: pair(sides, text(b), text(c)),
        published: phrase!("mean latency {}", published),
        files: [b, c]
            .iter()
            .flatten()
            .flat_map(|g| {
                // The run, its iostat log and whatever named the array's members.
                let mut f = vec![g.run.file.clone()];
                if let Some(io) = loaded.iostat_for(g.run) {
                    f.push(io.file.clone());
                    if let Ok((_, m)) = members(loaded, g, io) {
                        f.extend(m.files);
                    }
                }
                f
            })
            .collect::<std::collections::BTreeSet<String>>()
            .into_iter()
            .collect(),
        note: source,
    })
}
