//! Latencies both arrays report beside the published pair: QD 1 random read and the
//! mixed 70/30 QD 256 p99 write.

use crate::model::phrase::fixed;
use crate::model::verdict::Observation;
use crate::phrase;
use crate::suites::storage::judge::Sides;
use crate::suites::storage::load::RunGroup;
use crate::suites::storage::reference::Reference;

use super::pairs::{pair, published_pair};

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

pub(super) fn qd1_read_latency(
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

pub(super) fn mixed_qd256_write_p99(
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
