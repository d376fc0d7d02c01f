//! Test 3, the DRAM tier: the connector alone (`adp`) vs LMCache with host RAM in front
//! of the same card (`lmcache`): warm restores, restores after a restart, and load.

use std::collections::BTreeMap;

use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Kind as FileKind};
use crate::model::chart::{Chart, Kind, Series};
use crate::model::measurement::Unit;
use crate::model::phrase;
use crate::model::phrase::{count as count_of, fixed, qty, signed, Phrase, UnitOf};
use crate::model::verdict::{Observation, Status, Verdict};
use crate::parse::ask::Attempt;
use crate::phrase;
use crate::suites::kv_common::aggregate::{
    failing_runs, fed_by, settled_before_numbers, Aggregate, GEN,
};
use crate::suites::kv_common::reference::KvReference;
use crate::suites::kv_common::restore::{measured, TIMED_RUNS};
use crate::suites::kv_common::{self, ADP, LMCACHE};
use crate::suites::{Options, Suite, SuiteInfo, SuiteReport, Table};

mod analyze;
pub mod collect;
pub mod collector;
mod deviations;
mod observations;
mod tables;
mod verdicts;

use deviations::*;
use observations::*;
use tables::*;
use verdicts::*;

pub struct KvDram;

/// The suite's name, in verdict ids and on the command line.
pub const NAME: &str = "kv-dram";

const INFO: SuiteInfo = SuiteInfo {
    name: NAME,
    title: "KV cache test 3: the connector alone vs LMCache with a DRAM tier",
    procedure: "Reproducing the benchmarks, \"AI Key-Value Caching\", test 3 (optional)",
    reads: &[
        "dram/<variant>-warm.txt       ask lines: the prompt once, then reset_prefix_cache + ask, repeated",
        "dram/<variant>-restart.txt    ask lines: test 1 (cold request, then restarts)",
        "results/lmcache-<run>-L<n>.*  the ladder at 8, 16 and 32 clients, beside results/adp-*",
        "variants: adp (connector alone) and lmcache",
    ],
    reproduce: &[
        "warm: ask; then 3 x (until reset_prefix_cache succeeds; ask) | tee dram/<variant>-warm.txt (VLLM_SERVER_DEV_MODE=1)",
        "after restart: test 1's ADP sequence | tee dram/<variant>-restart.txt",
        "LEVELS=\"8 16 32\" ladder lmcache 1 (and run 2)",
    ],
};

impl Suite for KvDram {
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

    fn claims(&self, item: &crate::ingest::Item) -> bool {
        (item.kind == crate::ingest::Kind::Ask || kv_common::hit_source::is_ask_snapshot(&item.rel))
            && crate::ingest::layout::transcript_dir(&item.rel) == Some("dram")
    }

    fn checklist(
        &self,
        folder: &crate::ingest::walk::Folder,
        environment: &[crate::suites::Fact],
        _report: &SuiteReport,
    ) -> Vec<crate::checklist::Item> {
        crate::suites::kv_common::checklist::checklist(folder, environment)
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
            (i.kind == FileKind::Ask && layout::transcript_dir(&i.rel) == Some("dram"))
                || (i.kind == FileKind::ClientRecords
                    && layout::ladder_file(&i.rel)
                        .is_some_and(|(prefix, _, _)| layout::split_run(prefix).0 == LMCACHE))
        })
    }

    fn analyze(
        &self,
        catalog: &Catalog,
        opts: &Options,
        skipped: &mut Vec<Skipped>,
        _frames: &mut Vec<crate::frames::Frame>,
    ) -> SuiteReport {
        analyze::analyze(self, catalog, opts, skipped)
    }
}
