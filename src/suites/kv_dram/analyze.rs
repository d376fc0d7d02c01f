//! Test 3's analysis: the generation rates under load, the restores served from cache,
//! and what deviates from the procedure.

use super::*;

pub(super) fn analyze(
    suite: &KvDram,
    catalog: &Catalog,
    opts: &Options,
    skipped: &mut Vec<Skipped>,
) -> SuiteReport {
    let mut report = SuiteReport::for_suite(suite);
    let Some(reference) = KvReference::load_or_note(&mut report) else {
        return report;
    };
    let d = &reference.dram;
    let transcripts = kv_common::transcripts(catalog, "dram", skipped);
    report.measurements = kv_common::measurements::restores(&transcripts, INFO.name);
    // The ladder files were already checked (and skipped) by kv-ladder when present.
    let levels = kv_common::levels(catalog, skipped);
    let agg = Aggregate::of(&levels);
    report.files_read = transcripts.values().map(|(f, _)| f.clone()).collect();
    report.files_read.extend(
        levels
            .iter()
            .filter(|l| l.variant == LMCACHE)
            .flat_map(|l| l.files.clone()),
    );
    let get = |variant: &str, kind: &str| transcript(&transcripts, variant, kind);
    let max_spread = opts.max_spread.unwrap_or(reference.ladder.max_spread);
    // The levels' rates are the ladder suite's measurements (it measures every level).
    let rates = kv_common::measurements::ladder(&levels, crate::suites::kv_ladder::NAME);
    for &n in &d.levels {
        let mut v = gen_verdict(&agg, n, d.max_gen_gap, max_spread);
        v.judging(&rates, &["generation rate"]);
        report.verdicts.push(v);
    }
    let all: Vec<(String, (String, Vec<Attempt>))> = [ADP, LMCACHE]
        .iter()
        .flat_map(|v| ["warm", "restart"].map(|k| (format!("{v} {k}"), get(v, k))))
        .filter_map(|(n, x)| x.map(|x| (n, x)))
        .collect();
    restores_hit(catalog, skipped, &all, &reference, &mut report);
    let devs = dram_deviations(
        catalog,
        skipped,
        &levels,
        &all,
        &reference,
        &report.verdicts,
    );
    crate::model::deviation::apply(&mut report.verdicts, &devs);
    let all_devs = devs.clone();
    // The connector's own levels are kv-ladder's to list; here, what LMCache ran and
    // the restores' prompt.
    report.deviations = crate::model::deviation::merge(devs)
        .into_iter()
        .filter(|d| {
            d.subjects
                .iter()
                .any(|s| s.starts_with(LMCACHE) || s.ends_with("requests"))
        })
        .collect();
    let chart_values = restore_observations(&transcripts, d, &mut report);
    crate::model::deviation::annotate(&mut report.observations, &all_devs);
    report.observations.extend(lmcache_observation(catalog));
    report.charts.extend(chart(&chart_values));
    report.tables.push(attempts_table(&all));
    report
}

/// Every restore served from cache, with where the hits came from where the snapshots
/// around the asks tell.
fn restores_hit(
    catalog: &Catalog,
    skipped: &mut Vec<Skipped>,
    all: &[(String, (String, Vec<Attempt>))],
    reference: &KvReference,
    report: &mut SuiteReport,
) {
    let mut hits = hits_verdict(all, reference.restore.min_cached_share);
    let checked: Vec<_> = all
        .iter()
        .flat_map(|(_, (f, a))| kv_common::hit_source::check(catalog, f, a, skipped))
        .collect();
    kv_common::hit_source::apply(
        &mut hits,
        &checked,
        "the connector (LMCache's DRAM tier or the card)",
    );
    report
        .files_read
        .extend(kv_common::hit_source::snapshots_in(catalog, "dram"));
    report.verdicts.push(hits);
}
