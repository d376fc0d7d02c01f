//! How LMCache's levels and the restores' prompt deviate from the procedure.

use super::*;

/// How LMCache's levels and the restores' prompt deviate from the procedure, and whether
/// the variants' GPU KV caches differ (every generation-rate verdict compares them).
pub(super) fn dram_deviations(
    catalog: &Catalog,
    skipped: &mut Vec<Skipped>,
    levels: &[kv_common::ladder::Level],
    all: &[(String, (String, Vec<Attempt>))],
    reference: &KvReference,
    verdicts: &[Verdict],
) -> Vec<crate::model::deviation::Deviation> {
    let mut devs = kv_common::deviations::ladder(levels, &[ADP, LMCACHE], &reference.ladder, |n| {
        vec![format!("kv-dram.L{n}-gen")]
    });
    // The prompt of the restores against the published comparison's (GLM-5.3).
    let logs = kv_common::server_logs(catalog, skipped);
    let model = kv_common::model_name(catalog, &logs)
        .and_then(|(m, _)| reference.model(&m).cloned())
        .or_else(|| reference.model(&reference.restore.default_model).cloned());
    let timed: Vec<(&str, &str, &[Attempt])> = all
        .iter()
        .map(|(n, (f, a))| (n.as_str(), f.as_str(), a.as_slice()))
        .collect();
    devs.extend(kv_common::deviations::prompt(
        &timed,
        model.as_ref(),
        reference,
        &[],
        &["kv-dram.restores-hit"],
    ));
    let comparing: Vec<String> = verdicts
        .iter()
        .map(|v| v.id.clone())
        .filter(|id| id.ends_with("-gen"))
        .collect();
    devs.extend(kv_common::deviations::kv_cache_sizes(
        &logs,
        [ADP, LMCACHE],
        &comparing,
    ));
    devs
}
