//! Test 2's analysis: the ladder's levels across runs, judged level by level, with the
//! regime each level ran in and what deviates from the procedure.

use super::*;

pub(super) fn analyze(
    suite: &KvLadder,
    catalog: &Catalog,
    opts: &Options,
    skipped: &mut Vec<Skipped>,
    frames: &mut Vec<crate::frames::Frame>,
) -> SuiteReport {
    let mut report = SuiteReport::for_suite(suite);
    let Some(reference) = KvReference::load_or_note(&mut report) else {
        return report;
    };
    let r = &reference.ladder;
    let sla = opts.sla_gen_tok_s.unwrap_or(r.sla_gen_tok_s);
    let max_spread = opts.max_spread.unwrap_or(r.max_spread);
    let levels = kv_common::levels(catalog, skipped);
    report.measurements = kv_common::measurements::ladder(&levels, INFO.name);
    let logs = kv_common::server_logs(catalog, skipped);
    report.parameters = kv_common::measurements::server_parameters(&logs);
    report.files_read = levels.iter().flat_map(|l| l.files.clone()).collect();
    report.notes.extend(kv_common::names::notes(
        catalog,
        &kv_common::names::versions(&logs),
    ));
    report
        .files_read
        .extend(logs.by_variant.get(ADP).map(|(f, _)| f.clone()));

    let agg = Aggregate::of(&levels);
    if opts.frames {
        let (built, problems) = agg.frames();
        frames.extend(built);
        report.notes.extend(problems);
    }
    for (variant, runs) in agg.runs_per_variant() {
        if (variant == ADP || variant == PLAIN) && runs < r.min_runs {
            report.notes.push(format!(
                "`{variant}` has {runs} run(s); the procedure asks for at least {} per variant, alternating on a freshly started server",
                r.min_runs
            ));
        }
    }
    for &n in &r.small_levels {
        report
            .verdicts
            .push(parity_verdict(&agg, n, r.small_min_ratio, max_spread));
    }
    for &n in &r.large_levels {
        report.verdicts.push(advantage_verdict(&agg, n, max_spread));
    }
    // Parity judges both variants' rates; the advantage their TTFT and card hits too.
    for v in report.verdicts.iter_mut() {
        let metrics: &[&str] = if v.id.ends_with("-parity") {
            &["output throughput", "generation rate"]
        } else {
            &[
                "output throughput",
                "generation rate",
                "TTFT p50",
                "card hit rate",
            ]
        };
        v.judging(&report.measurements, metrics);
    }
    report.verdicts.push(failures_verdict(&levels));
    report.verdicts.push(turned_off_verdict(&logs));
    let regimes = regime::regimes(&agg, &logs);
    report.verdicts.push(regime::engaged_verdict(&regimes, r));
    let devs = deviations(&levels, &regimes, &logs, r, &report.verdicts);
    crate::model::deviation::apply(&mut report.verdicts, &devs);
    report.deviations = crate::model::deviation::merge(devs);
    report.commands_ran = kv_common::deviations::commands_ran(&levels, &[ADP, PLAIN]);
    report
        .observations
        .extend(fill_observation(&agg, r.fill_level));
    report.observations.push(sla_observation(&agg, sla));
    report.observations.extend(engine_observation(&logs));
    tables_and_charts(&mut report, &levels, &agg, &regimes, r, sla, max_spread);
    report.facts = kv_common::facts(&logs, kv_common::model_name(catalog, &logs).as_ref());
    report
}

/// Test 2's tables (the procedure script's, the runs', the medians', the regimes') and
/// charts.
fn tables_and_charts(
    report: &mut SuiteReport,
    levels: &[Level],
    agg: &Aggregate,
    regimes: &[regime::LevelRegime],
    r: &crate::suites::kv_common::reference::LadderRef,
    sla: f64,
    max_spread: f64,
) {
    report.preformatted.push(script_table(levels));
    report.tables.push(runs_table(levels));
    report.tables.push(median_table(agg, max_spread));
    report.tables.extend(regime::table(regimes, r));
    report.qualifiers = regime::qualifiers(regimes, r);
    report.charts = charts(agg, sla);
    report.charts.extend(timeline::charts(levels));
}

/// What test 2's levels and regimes deviate from the procedure, with the GPU KV cache's
/// condition on every verdict that compares the variants (`verdicts`).
fn deviations(
    levels: &[Level],
    regimes: &[regime::LevelRegime],
    logs: &kv_common::ServerLogs,
    r: &crate::suites::kv_common::reference::LadderRef,
    verdicts: &[Verdict],
) -> Vec<crate::model::deviation::Deviation> {
    let mut devs = kv_common::deviations::ladder(levels, &[ADP, PLAIN], r, |n| {
        vec![
            format!("kv-ladder.L{n}-parity"),
            format!("kv-ladder.L{n}-advantage"),
        ]
    });
    devs.extend(regime::deviations(regimes, r));
    // Every verdict that compares the variants: the procedure's condition on the
    // GPU KV cache applies to all of them, not to test 1's criterion alone.
    let comparing: Vec<String> = verdicts
        .iter()
        .map(|v| v.id.clone())
        .filter(|id| {
            id.ends_with("-parity") || id.ends_with("-advantage") || id.ends_with(".engaged")
        })
        .collect();
    devs.extend(kv_common::deviations::kv_cache_sizes(
        logs,
        [ADP, PLAIN],
        &comparing,
    ));
    devs
}
