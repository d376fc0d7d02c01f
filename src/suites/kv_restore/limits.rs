//! The restore floor of test 1: the KV bytes a restore moves over the slower of the
//! network link and the card. Inputs come from the files; what they do not give is named.

use crate::parse::ask::Attempt;
use crate::parse::vllm_log::ServerLog;
use crate::suites::kv_common::restore::Measured;

use crate::model::limit::Limit;
use crate::model::measurement::Unit;
use crate::model::phrase::{qty, Phrase, UnitOf};
use crate::phrase;
use crate::why::gb;
use crate::why::setup::Read;

/// What the kv-restore suite has loaded for the floor: the ADP transcript and its timed
/// restores, the ADP server's log, the link's bandwidth.
pub struct RestoreInputs<'a> {
    pub transcript: &'a (String, Vec<Attempt>),
    pub restore: &'a Measured,
    pub log: Option<&'a (String, &'a ServerLog)>,
    pub link: Option<Read>,
}

/// The floor for the ADP variant's restores.
pub fn restore_floor(i: RestoreInputs) -> Limit {
    let (file, attempts) = i.transcript;
    let m = i.restore;
    // The first ADP request is the cold write; the restores follow it.
    let tokens = attempts
        .iter()
        .skip(1)
        .filter(|a| a.failed.is_none())
        .filter_map(|a| a.cached)
        .filter(|&c| c > 0)
        .max();
    let mut files = vec![file.clone()];
    let measured = m.median.map_or(Phrase::dash(), |t| {
        phrase!("median restore {}", qty(t, 2, Unit::Seconds))
    });
    let mut missing = Vec::new();
    let per_token = i.log.and_then(|(rel, log)| {
        let (line, gib) = *log.kv_cache_memory_gib.first()?;
        let toks = log.kv_cache_tokens.filter(|t| *t > 0)? as f64;
        files.push(format!("{rel}:{line}"));
        Some((gib * 1024f64.powi(3) / toks, gib, toks))
    });
    if per_token.is_none() {
        missing.push("the vLLM startup lines `Available KV cache memory` (GPU workers log it; the CPU backend does not) and `GPU KV cache size` (logs/adp-vllm.log)");
    }
    if tokens.is_none() {
        missing.push("a restore with cached tokens in restore/adp.txt");
    }
    let link = i.link.and_then(|r| r.number.map(|g| (g, r.source)));
    if link.is_none() {
        missing.push("the link's bandwidth (system/ib_read_bw.txt)");
    }
    let mut limit = Limit {
        suite: "kv-restore".into(),
        subject: "restore time from the card (adp)".into(),
        measured,
        measured_value: m.median,
        bound: Phrase::default(),
        bound_value: None,
        unit: UnitOf::of(Unit::Seconds),
        formula: "floor = KV bytes restored / min(link bandwidth, card read bandwidth); KV bytes = cached tokens × KV cache memory per GPU / GPU KV cache tokens".into(),
        source: String::new(),
        deviates: String::new(),
        reading: String::new(),
        files,
    };
    let (Some((bpt, gib, toks)), Some(cached), Some((gbit, link_src))) = (per_token, tokens, link)
    else {
        limit.bound = phrase!(
            "unknown: needs {}",
            Phrase::join(missing.into_iter().map(Phrase::from), "; ")
        );
        return limit;
    };
    limit.files.push(link_src);
    let bytes = cached as f64 * bpt;
    let link_bps = gbit * 1e9 / 8.0;
    let floor = bytes / link_bps;
    limit.bound = phrase!(
        "link-bound floor {} (card's read bandwidth: unknown)",
        qty(floor, 2, Unit::Seconds)
    );
    limit.bound_value = Some(floor);
    limit.formula = phrase!(
        "{} cached tokens × {} GiB / {} tokens = {} (one GPU's share; where every rank's share crosses the link, multiply by the tensor-parallel size), over {} Gb/s = {} s; the card's read bandwidth is in no file, so the floor counts the link only and the true floor can be higher",
        crate::model::phrase::count(cached),
        crate::model::phrase::plain(gib),
        crate::model::phrase::fixed(toks, 0),
        crate::model::phrase::name(gb(bytes)),
        crate::model::phrase::fixed(gbit, 1),
        crate::model::phrase::fixed(floor, 2)
    )
    .to_string();
    limit.reading = floor_reading(m.median, floor);
    limit
}

/// What the median restore says against the link-bound floor.
fn floor_reading(median: Option<f64>, floor: f64) -> String {
    match median {
        Some(t) if t < floor * 0.95 => phrase!(
            "the median restore ({} s) is below the link-bound floor: the restore moved less than one GPU's share over the link (KV shared across ranks, or compressed), or the inputs are from different runs",
            crate::model::phrase::fixed(t, 2)
        )
        .to_string(),
        Some(t) if t <= floor * 1.5 => phrase!(
            "the median restore ({} s) is within 1.5× of the link-bound floor: the link is the ceiling; a faster restore needs a faster link",
            crate::model::phrase::fixed(t, 2)
        )
        .to_string(),
        Some(t) => phrase!(
            "the median restore ({} s) is {}× the link-bound floor: the link is not the ceiling; look at the card's SSDs, the gateway and the connector",
            crate::model::phrase::fixed(t, 2),
            crate::model::phrase::fixed(t / floor, 1)
        )
        .to_string(),
        None => "no restore was measured".into(),
    }
}
