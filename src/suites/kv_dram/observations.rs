//! Test 3's restores against the published times, and LMCache's own log lines.

use super::*;

/// The transcript of `variant`'s `kind` restores (`warm`, `restart`), by its name.
pub(super) fn transcript(
    transcripts: &BTreeMap<String, (String, Vec<Attempt>)>,
    variant: &str,
    kind: &str,
) -> Option<(String, Vec<Attempt>)> {
    transcripts
        .iter()
        .find(|(stem, _)| {
            let s = stem.to_ascii_lowercase();
            s.contains(variant) && s.contains(kind)
        })
        .map(|(_, v)| v.clone())
}

/// The warm and after-restart restores of both variants against the published times, as
/// observations (and their warm-up notes) in `report`; the chart's values, one row per
/// kind: connector alone, LMCache, and their published times.
pub(super) fn restore_observations(
    transcripts: &BTreeMap<String, (String, Vec<Attempt>)>,
    d: &crate::suites::kv_common::reference::DramRef,
    report: &mut SuiteReport,
) -> Vec<[Option<f64>; 4]> {
    let get = |variant: &str, kind: &str| transcript(transcripts, variant, kind);
    let mut chart_values: Vec<[Option<f64>; 4]> = Vec::new();
    for (kind, adp_pub, lm_pub, what) in [
        (
            "warm",
            d.warm_adp_s,
            d.warm_lmcache_s,
            "Restore on a running engine after reset_prefix_cache",
        ),
        (
            "restart",
            d.restart_adp_s,
            d.restart_lmcache_s,
            "Restore after a vLLM restart",
        ),
    ] {
        let m = |v: &str| get(v, kind).map(|(f, a)| measured(&f, &a, 1, TIMED_RUNS));
        let (a, l) = (m(ADP), m(LMCACHE));
        chart_values.push([
            a.as_ref().and_then(|x| x.median),
            l.as_ref().and_then(|x| x.median),
            Some(adp_pub),
            Some(lm_pub),
        ]);
        if a.is_none() && l.is_none() {
            continue;
        }
        let f = |x: &Option<crate::suites::kv_common::restore::Measured>| {
            x.as_ref()
                .and_then(|m| m.median)
                .map_or(Phrase::dash(), |s| phrase!("{}", qty(s, 2, Unit::Seconds)))
        };
        report.observations.push(Observation {
            id: format!("kv-dram.{kind}"),
            what: what.into(),
            measured: phrase!("connector alone {} · LMCache {}", f(&a), f(&l)),
            published: phrase!(
                "connector alone {} · LMCache {}",
                qty(adp_pub, 2, Unit::Seconds),
                qty(lm_pub, 2, Unit::Seconds)
            ),
            files: [&a, &l]
                .iter()
                .filter_map(|x| x.as_ref().map(|m| m.file.clone()))
                .collect(),
            note: d.source.clone(),
        });
        for x in [a, l].into_iter().flatten() {
            report.notes.extend(x.warmup_note);
        }
    }
    chart_values
}

/// LMCache's own lines in its vLLM log: what it retrieved and how fast.
pub(super) fn lmcache_observation(catalog: &Catalog) -> Option<Observation> {
    let logs = kv_common::server_logs(catalog, &mut Vec::new());
    let (file, log) = logs.by_variant.get(LMCACHE)?;
    if log.lmcache_retrievals.is_empty() && log.lmcache_hits.is_empty() {
        return None;
    }
    let got: u64 = log.lmcache_retrievals.iter().map(|r| r.0).sum();
    let need: u64 = log.lmcache_retrievals.iter().map(|r| r.1).sum();
    let ms: Vec<f64> = log
        .lmcache_retrievals
        .iter()
        .map(|r| r.2)
        .filter(|m| m.is_finite())
        .collect();
    Some(Observation {
        id: "kv-dram.lmcache-retrievals".into(),
        what: "LMCache retrievals logged by the lmcache variant".into(),
        measured: phrase!(
            "{} retrievals, {} of {} required tokens retrieved, median {} ms; {} adapter hit lines",
            count_of(log.lmcache_retrievals.len()),
            count_of(got),
            count_of(need),
            crate::suites::kv_common::stats::median(&ms)
                .map_or(Phrase::dash(), |m| phrase!("{}", fixed(m, 0))),
            count_of(log.lmcache_hits.len())
        ),
        published: Phrase::dash(),
        files: vec![file.clone()],
        note: String::new(),
    })
}
