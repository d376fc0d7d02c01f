//! The registry of suites: one list drives detection, `suites`, analysis and tests.

pub mod kv_common;
pub mod kv_dram;
pub mod kv_ladder;
pub mod kv_restore;
pub mod spdk_raid;
pub mod storage;

use crate::frames::Frame;
use crate::ingest::walk::Skipped;
use crate::ingest::Catalog;
pub use crate::model::report::{Fact, Preformatted, RanCommand, SuiteReport, Table};
use crate::why::conformance::Conformance;
use crate::why::next_steps::{self, Rule};
use crate::why::setup::Setup;

/// Choices a user can make about how a folder is judged.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Name of the baseline array folder (storage), when not the procedure's.
    pub baseline: Option<String>,
    /// Name of the candidate array folder (storage), when not the procedure's.
    pub candidate: Option<String>,
    /// Generation-rate SLA in tokens/s per request (kv-ladder; default from the reference).
    pub sla_gen_tok_s: Option<f64>,
    /// Largest spread between runs before a level is inconclusive (kv-ladder; 0.10 = 10 %).
    pub max_spread: Option<f64>,
    /// Build the frames (`--export`): the suites' own, the verdicts', the measurements'.
    /// Judging and the reports do not read them, so they are built only when asked for.
    pub frames: bool,
}

impl SuiteReport {
    /// An empty report for `suite`, to be filled by its analysis.
    pub fn for_suite(suite: &dyn Suite) -> SuiteReport {
        SuiteReport {
            name: suite.name(),
            title: suite.title(),
            procedure: suite.procedure(),
            files_read: Vec::new(),
            verdicts: Vec::new(),
            observations: Vec::new(),
            tables: Vec::new(),
            preformatted: Vec::new(),
            notes: Vec::new(),
            charts: Vec::new(),
            facts: Vec::new(),
            reproduce: suite.reproduce().iter().map(|s| s.to_string()).collect(),
            commands_ran: Vec::new(),
            deviations: Vec::new(),
            limits: Vec::new(),
            measurements: Vec::new(),
            parameters: Vec::new(),
            qualifiers: Vec::new(),
        }
    }
}

/// What a suite is, for listings, reports and verdict ids.
pub struct SuiteInfo {
    /// Short name used on the command line and in verdict ids.
    pub name: &'static str,
    pub title: &'static str,
    /// The procedure (and section) this suite implements.
    pub procedure: &'static str,
    /// The files the suite reads, in the procedure's layout, for `suites`.
    pub reads: &'static [&'static str],
    /// The procedure's commands that make the files this suite reads.
    pub reproduce: &'static [&'static str],
}

/// One procedure's analysis.
pub trait Suite: Sync {
    fn info(&self) -> &'static SuiteInfo;
    fn name(&self) -> &'static str {
        self.info().name
    }
    fn title(&self) -> &'static str {
        self.info().title
    }
    fn procedure(&self) -> &'static str {
        self.info().procedure
    }
    fn reads(&self) -> &'static [&'static str] {
        self.info().reads
    }
    fn reproduce(&self) -> &'static [&'static str] {
        self.info().reproduce
    }
    /// File formats of this suite's own, beside the built-in ones (the formats
    /// registry, `ingest::format`): their content rules are tried after the built-in
    /// ones, their path rules after the built-in ones, before a `.json` falls back to fio.
    fn formats(&self) -> &'static [crate::ingest::format::Format] {
        &[]
    }
    /// This suite's own collection, when it has one: a `collect` subcommand built from
    /// it (`collect::plugin`).
    fn collector(&self) -> Option<&'static dyn crate::collect::plugin::Collector> {
        None
    }
    /// Whether `item` is in this suite's layout (one of the files it reads): what the
    /// record frames' `suite` column says. The first suite in the registry that claims an
    /// item owns it.
    fn claims(&self, _item: &crate::ingest::Item) -> bool {
        false
    }
    /// For a result of this suite's kind that no suite read: the layout this suite would
    /// read it in (the first suite in the registry with a hint gives it).
    fn unread_hint(&self, _item: &crate::ingest::Item) -> Option<String> {
        None
    }
    /// Whether the catalog holds anything for this suite.
    fn detect(&self, catalog: &Catalog) -> bool;
    /// Reading done before any suite judges, side by side with every other found suite's:
    /// what it reads is kept with [`Catalog::shared`] for `analyze` to take. A long reading
    /// (the ladder's levels) then has every thread, instead of one beside another suite's
    /// judging. Nothing by default.
    fn prepare(&self, _catalog: &Catalog) {}
    /// Judges what the catalog holds for this suite. Files it could not use go into
    /// `skipped`; the frames it derives for `--export` (not part of the model) into
    /// `frames`.
    fn analyze(
        &self,
        catalog: &Catalog,
        opts: &Options,
        skipped: &mut Vec<Skipped>,
        frames: &mut Vec<Frame>,
    ) -> SuiteReport;
    /// What to check next when one of this suite's criteria is not met (its
    /// `reports/<suite>.toml`'s `[[check_next]]` rules).
    fn check_next(&self) -> &'static [Rule] {
        &[]
    }
    /// The procedure's reference-setup table beside what the files show, when it has one.
    /// Suites of one procedure share its table (shown once).
    fn conformance(&self, _setup: &Setup) -> Option<Conformance> {
        None
    }
    /// What the procedure's "Report the results" asks support to receive, checked against
    /// the folder (for a bundle's checklist).
    fn checklist(
        &self,
        _folder: &crate::ingest::walk::Folder,
        _environment: &[Fact],
        _report: &SuiteReport,
    ) -> Vec<crate::checklist::Item> {
        Vec::new()
    }
    /// What `compare` plots of this suite's measurements, base against new.
    fn compare_charts(&self) -> &'static [CompareChart] {
        &[]
    }
}

/// A chart `compare` draws from one suite's matched measurements.
pub enum CompareChart {
    /// Paired bars (base, new) per subject of `metric`.
    Bars {
        metric: &'static str,
        id: &'static str,
        title: &'static str,
    },
    /// `metric` against the level the subject names (`<series> · <level> ...`), one chart
    /// per series with both sides' curves; `{series}` in the id and title is replaced.
    Curves {
        metric: &'static str,
        id: &'static str,
        title: &'static str,
        x_label: &'static str,
    },
}

/// The `[[check_next]]` rules for `suite` in `toml`, parsed once into `cell`. A TOML that
/// does not parse gives no rules (the registry's test parses every one).
pub fn rules_in(
    cell: &'static std::sync::OnceLock<Vec<Rule>>,
    toml: &'static str,
    suite: &str,
) -> &'static [Rule] {
    cell.get_or_init(|| next_steps::parse(toml, &format!("{suite}.")).unwrap_or_default())
}

pub const SUITES: &[&dyn Suite] = &[
    &storage::Storage,
    &kv_restore::KvRestore,
    &kv_ladder::KvLadder,
    &kv_dram::KvDram,
    &spdk_raid::SpdkRaid,
];

/// `./` or `dir/`: where an item sits, for the layout hints.
pub fn at(item: &crate::ingest::Item) -> String {
    let dir = crate::ingest::layout::dir_of(&item.rel);
    if dir.is_empty() {
        ".".to_string()
    } else {
        format!("{dir}/")
    }
}

/// The suite whose layout `item` is in, if any.
pub fn owner(item: &crate::ingest::Item) -> Option<&'static dyn Suite> {
    SUITES.iter().copied().find(|s| s.claims(item))
}

pub fn find(name: &str) -> Option<&'static dyn Suite> {
    SUITES.iter().copied().find(|s| s.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_names_are_unique_and_findable() {
        let mut names: Vec<_> = SUITES.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SUITES.len());
        for s in SUITES {
            assert!(find(s.name()).is_some());
            assert!(!s.reads().is_empty());
        }
    }

    #[test]
    fn every_check_next_rule_parses_and_belongs_to_a_suite() {
        use std::collections::BTreeMap;
        let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
        for s in SUITES {
            assert!(
                !s.check_next().is_empty(),
                "{} has no check-next rules",
                s.name()
            );
            for r in s.check_next() {
                assert!(!r.text.is_empty() && !r.source.is_empty(), "{}", r.id);
            }
        }
        for toml in [
            kv_common::reference::KV_TOML,
            storage::reference::STORAGE_TOML,
            spdk_raid::reference::SPDK_TOML,
        ] {
            let all = next_steps::parse(toml, "").expect("check_next rules parse");
            let owned: usize = SUITES
                .iter()
                .map(|s| next_steps::parse(toml, &format!("{}.", s.name())).map_or(0, |r| r.len()))
                .sum();
            assert_eq!(
                all.len(),
                owned,
                "a rule whose id names no registered suite"
            );
            per_file.insert(&toml[..20], all.len());
        }
        assert!(per_file.values().all(|n| *n > 0));
    }
}
