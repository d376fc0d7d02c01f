//! Test 2, the multi-turn agent load ladder: plain vLLM vs the connector at 1 to 32
//! clients, with the procedure script's table, per-run and median results, and criteria.

use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Kind as FileKind};
use crate::model::chart::{Chart, Kind, Series, Spread};
use crate::model::measurement::Unit;
use crate::model::phrase::{count, fixed, name, qty, Phrase, UnitOf};
use crate::model::verdict::{Observation, Status, Verdict};
use crate::phrase;
use crate::suites::kv_common::aggregate::{
    failing_runs, fed_by, left_out, too_spread, Aggregate, GEN, GPU_HIT, OUTPUT, RATES,
    RATES_AND_TTFT, TTFT,
};
use crate::suites::kv_common::ladder::{self, Level};
use crate::suites::kv_common::reference::KvReference;
use crate::suites::kv_common::stats::median;
use crate::suites::kv_common::{self, ADP, PLAIN};
use crate::suites::{Options, Preformatted, Suite, SuiteInfo, SuiteReport, Table};
mod observations;
mod regime;
mod tables;
mod timeline;
mod verdicts;
use observations::*;
use tables::*;
use verdicts::*;

pub struct KvLadder;

/// The suite's name, in verdict ids and on the command line.
pub const NAME: &str = "kv-ladder";

const INFO: SuiteInfo = SuiteInfo {
    name: NAME,
    title: "KV cache test 2: multi-turn agent load ladder",
    procedure: "Reproducing the benchmarks, \"AI Key-Value Caching\", test 2",
    reads: &[
        "results/<variant>-<run>-L<clients>.json      the multi-turn client's --stats-json-output",
        "results/<variant>-<run>-L<clients>.log       its console log (num_failures, runtime_sec)",
        "results/<variant>-<run>-L<clients>.pre.prom  /metrics before and after the level",
        "results/<variant>-<run>-L<clients>.post.prom",
        "logs/adp-vllm.log                            the ADP vLLM log (External KV cache turned off?)",
        "variants: adp and gpu-only (lmcache belongs to kv-dram)",
    ],
    reproduce: &[
        "cd ~/bench/adp && docker compose up -d && ready && cd ~/bench/load && ladder adp 1",
        "cd ~/bench/adp && docker compose down",
        "cd ~/bench/gpu-only && docker compose up -d && ready && cd ~/bench/load && ladder gpu-only 1",
        "cd ~/bench/gpu-only && docker compose down; repeat both for run 2",
        "in ladder(), `2>&1 | tee` keeps the clients' failure counts in the .log",
    ],
};

impl Suite for KvLadder {
    fn info(&self) -> &'static SuiteInfo {
        &INFO
    }

    fn check_next(&self) -> &'static [crate::why::next_steps::Rule] {
        static RULES: std::sync::OnceLock<Vec<crate::why::next_steps::Rule>> =
            std::sync::OnceLock::new();
        crate::suites::rules_in(
            &RULES,
            crate::suites::kv_common::reference::KV_TOML,
            INFO.name,
        )
    }

    fn unread_hint(&self, i: &crate::ingest::Item) -> Option<String> {
        use crate::ingest::Kind;
        let named_for_an_ask = kv_common::hit_source::is_ask_snapshot(&i.rel);
        (matches!(i.kind, Kind::ClientRecords | Kind::ClientLog | Kind::Prometheus)
            && !named_for_an_ask)
            .then(|| {
            format!(
                "{} named `{}`: the {} suite reads `results/<variant>-<run>-L<clients>.json` with `.log`, `.pre.prom` and `.post.prom`",
                i.kind.label(),
                i.file_name(),
                INFO.name
            )
        })
    }

    fn checklist(
        &self,
        folder: &crate::ingest::walk::Folder,
        environment: &[crate::suites::Fact],
        _report: &SuiteReport,
    ) -> Vec<crate::checklist::Item> {
        crate::suites::kv_common::checklist::checklist(folder, environment)
    }

    fn compare_charts(&self) -> &'static [crate::suites::CompareChart] {
        &[crate::suites::CompareChart::Curves {
            metric: "output throughput",
            id: "compare-ladder-{series}",
            title: "Ladder output throughput (tok/s) by clients, {series}: base and new",
            x_label: "clients",
        }]
    }

    fn conformance(
        &self,
        setup: &crate::why::setup::Setup,
    ) -> Option<crate::why::conformance::Conformance> {
        crate::suites::kv_common::conformance::conformance(setup)
    }

    fn detect(&self, catalog: &Catalog) -> bool {
        catalog.items.iter().any(|i| {
            layout::ladder_file(&i.rel).is_some()
                && matches!(
                    i.kind,
                    FileKind::ClientRecords | FileKind::ClientLog | FileKind::Prometheus
                )
        })
    }

    fn analyze(
        &self,
        catalog: &Catalog,
        opts: &Options,
        skipped: &mut Vec<Skipped>,
        frames: &mut Vec<crate::frames::Frame>,
    ) -> SuiteReport {
        let mut report = SuiteReport::for_suite(self);
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
        let mut devs = kv_common::deviations::ladder(&levels, &[ADP, PLAIN], r, |n| {
            vec![
                format!("kv-ladder.L{n}-parity"),
                format!("kv-ladder.L{n}-advantage"),
            ]
        });
        devs.extend(regime::deviations(&regimes, r));
        // Every verdict that compares the variants: the procedure's condition on the
        // GPU KV cache applies to all of them, not to test 1's criterion alone.
        let comparing: Vec<String> = report
            .verdicts
            .iter()
            .map(|v| v.id.clone())
            .filter(|id| {
                id.ends_with("-parity") || id.ends_with("-advantage") || id.ends_with(".engaged")
            })
            .collect();
        devs.extend(kv_common::deviations::kv_cache_sizes(
            &logs,
            [ADP, PLAIN],
            &comparing,
        ));
        crate::model::deviation::apply(&mut report.verdicts, &devs);
        report.deviations = crate::model::deviation::merge(devs);
        report.commands_ran = kv_common::deviations::commands_ran(&levels, &[ADP, PLAIN]);
        report
            .observations
            .extend(fill_observation(&agg, r.fill_level));
        report.observations.push(sla_observation(&agg, sla));
        report.observations.extend(engine_observation(&logs));
        report.preformatted.push(script_table(&levels));
        report.tables.push(runs_table(&levels));
        report.tables.push(median_table(&agg, max_spread));
        report.tables.extend(regime::table(&regimes, r));
        report.qualifiers = regime::qualifiers(&regimes, r);
        report.charts = charts(&agg, sla);
        report.charts.extend(timeline::charts(&levels));
        report.facts = kv_common::facts(&logs, kv_common::model_name(catalog, &logs).as_ref());
        report
    }
}
