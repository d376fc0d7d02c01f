//! What the procedure asks to look at without a pass mark: QD 1 read latency, host CPU
//! on random reads, write wait and balance across drives, usable capacity.

use crate::model::measurement::Unit;
use crate::model::phrase::{bandwidth, count, fixed, name, plain, qty, Phrase};
use crate::model::verdict::Observation;
use crate::phrase;

use super::drives::{balance, cpu_system, drive_means, mean_w_await, DriveMean};
use super::judge::{find_workload, Sides};
use super::load::IostatFile;
use super::load::{Loaded, RunGroup};
use super::reference::Reference;

pub fn observations(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Vec<Observation> {
    let mut out = Vec::new();
    out.extend(qd1_read_latency(groups, sides, reference));
    out.extend(random_read_cpu(loaded, groups, sides, reference));
    out.extend(mixed_qd256_write_p99(groups, sides, reference));
    out.extend(random_write_wait(loaded, groups, sides, reference));
    out.extend(drive_balance(loaded, groups, sides, reference));
    out.push(usable_capacity(loaded, groups, sides, reference));
    out
}

fn pair(sides: &Sides, b: Option<Phrase>, c: Option<Phrase>) -> Phrase {
    phrase!(
        "{}: {} · {}: {}",
        name(&sides.baseline),
        b.unwrap_or_else(Phrase::dash),
        name(&sides.candidate),
        c.unwrap_or_else(Phrase::dash)
    )
}

/// The published pair in microseconds (the procedure writes `us`).
fn published_pair(reference: &Reference, key: &str) -> (Phrase, String) {
    let v = |x: Option<f64>| x.map_or(Phrase::dash(), |v| phrase!("{}", plain(v)));
    match reference.observation(key) {
        Some(o) => (
            phrase!(
                "{}: {} us · {}: {} us",
                name(&reference.arrays.baseline),
                v(o.baseline),
                name(&reference.arrays.candidate),
                v(o.candidate)
            ),
            o.source.clone(),
        ),
        None => (Phrase::dash(), String::new()),
    }
}

fn pick<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    f: impl Fn(&RunGroup) -> bool,
) -> Option<&'a RunGroup<'a>> {
    groups
        .iter()
        .find(|g| g.run.array.eq_ignore_ascii_case(array) && g.group.error == 0 && f(g))
}

/// A latency both arrays report for a run picked by `is`, beside the published pair.
struct LatencyPair {
    id: &'static str,
    what: &'static str,
    reference_key: &'static str,
    is: fn(&RunGroup) -> bool,
    value_ns: fn(&RunGroup) -> Option<f64>,
}

fn latency_pair(
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
    spec: LatencyPair,
) -> Option<Observation> {
    let b = pick(groups, &sides.baseline, spec.is);
    let c = pick(groups, &sides.candidate, spec.is);
    if b.is_none() && c.is_none() {
        return None;
    }
    let us = |g: Option<&RunGroup>| {
        g.and_then(spec.value_ns)
            .map(|ns| phrase!("{} us", fixed(ns / 1000.0, 0)))
    };
    let (published, source) = published_pair(reference, spec.reference_key);
    Some(Observation {
        id: spec.id.into(),
        what: spec.what.into(),
        measured: pair(sides, us(b), us(c)),
        published,
        files: [b, c]
            .iter()
            .flatten()
            .map(|g| g.run.file.clone())
            .collect(),
        note: source,
    })
}

fn is_qd1_read(g: &RunGroup) -> bool {
    g.signature.queue_depth() == 1 && g.signature.rw == "randread" && g.group.read.total_ios > 0
}

fn is_mixed_qd256(g: &RunGroup) -> bool {
    g.signature.rw == "randrw" && g.signature.queue_depth() == 256 && g.group.write.total_ios > 0
}

/// Whether a run feeds an observation set beside a published number: its deviations
/// change that comparison as a headline run's change a verdict.
pub fn beside_published(g: &RunGroup) -> bool {
    is_qd1_read(g) || is_mixed_qd256(g)
}

fn qd1_read_latency(
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Option<Observation> {
    latency_pair(
        groups,
        sides,
        reference,
        LatencyPair {
            id: "storage.qd1-read-latency",
            what: "Queue depth 1 random read, mean latency (RAID10 can be faster: expected)",
            reference_key: "qd1_read_latency_us",
            is: is_qd1_read,
            value_ns: |g| g.group.read.mean_lat_ns,
        },
    )
}

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

fn random_read_cpu(
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

fn mixed_qd256_write_p99(
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Option<Observation> {
    latency_pair(
        groups,
        sides,
        reference,
        LatencyPair {
            id: "storage.mixed-qd256-write-p99",
            what: "Mixed 70/30 8 KB at queue depth 256, p99 write latency",
            reference_key: "mixed_qd256_write_p99_us",
            is: is_mixed_qd256,
            value_ns: |g| g.group.write.p99_ns,
        },
    )
}

fn random_write_wait(
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

fn drive_balance(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Vec<Observation> {
    let mut out = Vec::new();
    for array in [&sides.baseline, &sides.candidate] {
        let mut worst: Option<(f64, String, usize, Phrase)> = None;
        let mut files = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        let mut unknown: Option<String> = None;
        for w in &reference.workload {
            let Some(g) = find_workload(groups, array, w).0 else {
                continue;
            };
            let Some(f) = loaded.iostat_for(g.run) else {
                continue;
            };
            files.push(f.file.clone());
            let (drives, m) = match members(loaded, g, f) {
                Ok(x) => x,
                Err(why) => {
                    unknown.get_or_insert(why);
                    continue;
                }
            };
            for file in &m.files {
                if !files.contains(file) {
                    files.push(file.clone());
                }
            }
            if !sources.contains(&m.source) {
                sources.push(m.source.clone());
            }
            if let Some(b) = balance(&drives) {
                if worst.as_ref().is_none_or(|(x, ..)| b < *x) {
                    let names = Phrase::join(
                        drives
                            .iter()
                            .map(|d| phrase!("{} {}", name(&d.device), bandwidth(d.mib_s.into()))),
                        ", ",
                    );
                    worst = Some((b, w.name.clone(), drives.len(), names));
                }
            }
        }
        if files.is_empty() {
            continue;
        }
        let measured = match (&worst, &unknown) {
            (Some((b, job, n, names)), _) => phrase!(
                "{} drives; least balanced job `{}`: slowest/fastest {} ({})",
                count(*n),
                name(job),
                fixed(*b, 2),
                names.clone()
            ),
            (None, Some(why)) => phrase!("unknown: {}", name(why)),
            (None, None) => "fewer than two member drives in the iostat logs".into(),
        };
        let note = if sources.is_empty() {
            "members come from fio's filename, the collector's manifest, /proc/mdstat or fio's disk_util; never from which devices were busy".to_string()
        } else {
            format!("members: {}", sources.join("; "))
        };
        out.push(Observation {
            id: format!("storage.drive-balance.{array}"),
            what: format!("{array}: load balanced across the array's drives (iostat)"),
            measured,
            published: "balanced across all four drives".into(),
            files,
            note,
        });
    }
    out
}

/// The procedure's capacity arithmetic. Only the member count is read from the files;
/// the capacities are derived from it and the reference drive size, never measured.
fn usable_capacity(
    loaded: &Loaded,
    groups: &[RunGroup],
    sides: &Sides,
    reference: &Reference,
) -> Observation {
    let mut files = Vec::new();
    let counted = groups
        .iter()
        .filter(|g| g.run.array.eq_ignore_ascii_case(&sides.baseline))
        .filter_map(|g| {
            let f = loaded.iostat_for(g.run)?;
            let (_, m) = members(loaded, g, f).ok()?;
            // The member list's own file (not the run: how long it ran does not change
            // how many drives the array has).
            let source = m.files.iter().find(|x| **x != g.run.file).cloned();
            Some((m.drives.len(), source.unwrap_or_else(|| f.file.clone())))
        })
        .filter(|(n, _)| *n >= 2)
        .max_by_key(|(n, _)| *n);
    if let Some((_, f)) = &counted {
        files.push(f.clone());
    }
    let tb = reference.arrays.drive_tb;
    let derive = |n: f64| {
        phrase!(
            "derived, not measured: {} drives of {} TB (the reference's size; the files do not give drive sizes): RAID10 {} TB (50%), RAID5 {} TB ({}%) before compression",
            fixed(n, 0),
            plain(tb),
            fixed(n * tb * 0.5, 1),
            fixed(n * tb * (n - 1.0) / n, 1),
            fixed(100.0 * (n - 1.0) / n, 0)
        )
        .to_string()
    };
    let (measured, note) = match &counted {
        Some((n, _)) => (
            phrase!("{} member drives in the RAID10 array", count(*n)),
            derive(*n as f64),
        ),
        None => (
            Phrase::dash(),
            format!(
                "the files do not say which drives the RAID10 array had; the procedure's arithmetic for its {} drives: {}",
                reference.arrays.drives,
                derive(reference.arrays.drives as f64)
            ),
        ),
    };
    Observation {
        id: "storage.usable-capacity".into(),
        what: "Usable capacity before compression (the procedure's arithmetic)".into(),
        measured,
        published: "RAID10 7.7 TB (50%), ADP RAID5 11.5 TB (75%) of 15.4 TB; 15.4 TB exposed with compression".into(),
        files,
        note,
    }
}

/// The member drives of the array a run was on (from the evidence), with their figures
/// in its iostat log.
fn members(
    loaded: &Loaded,
    g: &RunGroup,
    f: &IostatFile,
) -> Result<(Vec<DriveMean>, super::members::Members), String> {
    let m = super::members::of(loaded, g)?;
    Ok((drive_means(f.log, &m.drives), m))
}
