//! Test 1, long-context restore: the same long prompt after a vLLM restart, recomputed by
//! plain vLLM and restored from the card by the connector.

use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog};
use crate::model::chart::{Chart, Kind, Series};
use crate::model::measurement::Unit;
use crate::model::phrase::{count, fixed, name, qty, Phrase, UnitOf};
use crate::model::verdict::{Observation, Status, Verdict};
use crate::parse::ask::Attempt;
use crate::phrase;
use crate::suites::kv_common::reference::{KvReference, ModelRef};
use crate::suites::kv_common::restore::{measured, Measured, TIMED_RUNS};
use crate::suites::kv_common::{self, ServerLogs, ADP, PLAIN};
use crate::suites::{Options, Suite, SuiteInfo, SuiteReport, Table};

mod analyze;
pub mod collect;
pub mod collector;
mod limits;
mod tables;
mod verdicts;
use tables::*;
use verdicts::*;

pub struct KvRestore;

/// The suite's name, in verdict ids and on the command line.
pub const NAME: &str = "kv-restore";

const INFO: SuiteInfo = SuiteInfo {
    name: NAME,
    title: "KV cache test 1: long-context restore after a vLLM restart",
    procedure: "Reproducing the benchmarks, \"AI Key-Value Caching\", test 1",
    reads: &[
        "restore/adp.txt, restore/gpu-only.txt  the ask helper's lines, in order: time 2.118532 s  {\"prompt_tokens\":196531,\"cached\":196480}",
        "logs/<variant>-vllm.log                vLLM server logs (KV cache size line, XKV registration)",
        "logs/adp-gateway.log                   the gateway's log",
        "manifest.json                          optional {\"model\": \"glm-5.3\"}",
    ],
    reproduce: &[
        "cd ~/bench/gpu-only && docker compose up -d && ready; new_prompt",
        "for i in 1 2 3; do ask; docker compose restart vllm && ready; done | tee restore/gpu-only.txt",
        "cd ~/bench/adp && docker compose up -d && ready; new_prompt; ask | tee restore/adp.txt",
        "for i in 1 2 3; do docker compose restart vllm && ready; ask; done | tee -a restore/adp.txt",
        "docker compose logs vllm > logs/<variant>-vllm.log; docker compose logs gateway > logs/adp-gateway.log",
    ],
};

impl Suite for KvRestore {
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
        if i.kind == crate::ingest::Kind::Prometheus
            && kv_common::hit_source::is_ask_snapshot(&i.rel)
        {
            return Some(format!(
                "a /metrics snapshot named for an ask of a transcript beside it (`{}`), which is not there or has fewer asks",
                i.file_name()
            ));
        }
        (i.kind == crate::ingest::Kind::Ask).then(|| {
            format!(
                "{} under `{}`: {} reads `restore/<variant>.txt`, {} `dram/<variant>-warm.txt` and `dram/<variant>-restart.txt`",
                i.kind.label(),
                crate::suites::at(i),
                INFO.name,
                crate::suites::kv_dram::NAME
            )
        })
    }

    fn claims(&self, item: &crate::ingest::Item) -> bool {
        (item.kind == crate::ingest::Kind::Ask || kv_common::hit_source::is_ask_snapshot(&item.rel))
            && crate::ingest::layout::transcript_dir(&item.rel) == Some("restore")
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
        &[crate::suites::CompareChart::Bars {
            metric: "restore time (median)",
            id: "compare-kv-restore",
            title: "Restore time (s): base vs new",
        }]
    }

    fn conformance(
        &self,
        setup: &crate::why::setup::Setup,
    ) -> Option<crate::why::conformance::Conformance> {
        crate::suites::kv_common::conformance::conformance(setup)
    }

    fn detect(&self, catalog: &Catalog) -> bool {
        catalog
            .items
            .iter()
            .any(|i| layout::transcript_dir(&i.rel) == Some("restore"))
    }

    fn analyze(
        &self,
        catalog: &Catalog,
        _opts: &Options,
        skipped: &mut Vec<Skipped>,
        _frames: &mut Vec<crate::frames::Frame>,
    ) -> SuiteReport {
        analyze::analyze(self, catalog, skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::why::next_steps::for_verdict;

    #[test]
    fn check_next_tells_a_lost_cache_from_chunk_rounding() {
        let rules = KvRestore.check_next();
        let mut v = Verdict::new(format!("{}.cached", INFO.name), "c", "t", "p");
        v.status = Status::Pass;
        assert!(for_verdict(&v, rules).is_empty());
        v.status = Status::Fail;
        // Nothing cached after a restart: the three rules about a lost cache.
        v.note = "restores that missed the cache: line 2: 0 of 196531 cached".into();
        assert_eq!(for_verdict(&v, rules).len(), 3);
        // Most of it cached: whole-chunk rounding, not a lost cache.
        v.note = "restores that missed the cache: line 2: 5888 of 5985 cached".into();
        let partial = for_verdict(&v, rules);
        assert_eq!(partial.len(), 1, "{partial:?}");
        assert!(partial[0].text.contains("whole chunks"));
    }
}
