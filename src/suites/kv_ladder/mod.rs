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
    failing_runs, fed_by, left_out, settled_before_numbers, too_spread, Aggregate, GEN, GPU_HIT,
    OUTPUT, RATES, RATES_AND_TTFT, TTFT,
};
use crate::suites::kv_common::ladder::{self, Level};
use crate::suites::kv_common::reference::KvReference;
use crate::suites::kv_common::stats::median;
use crate::suites::kv_common::{self, ADP, PLAIN};
use crate::suites::{Options, Preformatted, Suite, SuiteInfo, SuiteReport, Table};
mod analyze;
pub mod collect;
pub mod collector;
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
    fn collector(&self) -> Option<&'static dyn crate::collect::plugin::Collector> {
        Some(&collector::COLLECTOR)
    }

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

    fn prepare(&self, catalog: &Catalog) {
        kv_common::prepare_levels(catalog);
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
        analyze::analyze(self, catalog, opts, skipped, frames)
    }
}
