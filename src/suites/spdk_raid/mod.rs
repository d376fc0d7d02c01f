//! The SPDK RAID suite: raw drives vs raid5f vs Xinnor SPDK RAID at 8 and 16 drives,
//! each result as a share of its level's theoretical maximum, degraded mode, and the
//! article's published tables beside the measured ones.

pub mod collect;
pub mod collector;
pub mod command;
mod deviations;
mod frames;
pub mod inputs;
mod judge;
pub mod load;
mod measurements;
pub mod reference;
mod tables;
pub mod theory;

use crate::ingest::walk::Skipped;
use crate::ingest::Catalog;
use crate::suites::{Fact, Options, Suite, SuiteInfo, SuiteReport};

pub use reference::{SpdkReference, SPDK_TOML};

pub struct SpdkRaid;

/// The suite's name, in verdict ids and on the command line.
pub const NAME: &str = "spdk-raid";

const INFO: SuiteInfo = SuiteInfo {
    name: NAME,
    title: "SPDK RAID: raid5f and Xinnor SPDK RAID against the raw drives",
    procedure: "SPDK raid5f vs Xinnor SPDK RAID (fio spdk_bdev, 8 and 16 NVMe drives)",
    reads: &[
        "spdk/<array>-<drives>/<job>.json           fio JSON (ioengine=spdk_bdev) or bdevperf perform_tests JSON",
        "spdk/<array>-<drives>/degraded/<job>.json  the same runs with one member removed",
        "spdk/<array>-<drives>/config.json          the SPDK JSON config used",
        "spdk/<array>-<drives>/bdev_raid_get_bdevs.json (and degraded/)  rpc.py bdev_raid_get_bdevs all",
        "arrays: raw (baseline), raid5f, xinnor, or a user's own name (level from the config)",
    ],
    reproduce: &[
        "reprobench spdk config --pcie <addr,...> --raid raid5f -o spdk/raid5f-8/config.json (or --raid xinnor:5, none)",
        "reprobench spdk jobs --drives 8 --raid raid5f --spdk-conf spdk/raid5f-8/config.json -o jobs/raid5f-8",
        "for j in jobs/raid5f-8/*.fio; do LD_PRELOAD=<spdk>/build/fio/spdk_bdev fio $j --output-format=json --output=spdk/raid5f-8/$(basename $j .fio).json; done",
        "rpc.py bdev_raid_get_bdevs all > spdk/raid5f-8/bdev_raid_get_bdevs.json",
        "degraded: rpc.py bdev_raid_remove_base_bdev nvme2n1, then the runs again into spdk/raid5f-8/degraded/",
    ],
};

impl Suite for SpdkRaid {
    fn collector(&self) -> Option<&'static dyn crate::collect::plugin::Collector> {
        Some(&collector::COLLECTOR)
    }

    fn info(&self) -> &'static SuiteInfo {
        &INFO
    }

    fn check_next(&self) -> &'static [crate::why::next_steps::Rule] {
        static RULES: std::sync::OnceLock<Vec<crate::why::next_steps::Rule>> =
            std::sync::OnceLock::new();
        crate::suites::rules_in(&RULES, reference::SPDK_TOML, INFO.name)
    }

    fn unread_hint(&self, i: &crate::ingest::Item) -> Option<String> {
        use crate::ingest::Kind;
        let ours = match i.kind {
            Kind::Bdevperf | Kind::SpdkConfig | Kind::RaidState => true,
            Kind::Fio => crate::ingest::layout::in_spdk_tree(&i.rel),
            _ => false,
        };
        ours.then(|| {
            format!(
                "{} under `{}`: the {} suite reads `spdk/<array>-<drives>/` (and its `degraded/`)",
                i.kind.label(),
                crate::suites::at(i),
                INFO.name
            )
        })
    }

    fn claims(&self, item: &crate::ingest::Item) -> bool {
        matches!(
            item.kind,
            crate::ingest::Kind::Fio | crate::ingest::Kind::Iostat
        ) && (crate::ingest::layout::in_spdk_tree(&item.rel)
            || item.fio().is_some_and(|o| o.uses_ioengine("spdk_bdev")))
    }

    fn compare_charts(&self) -> &'static [crate::suites::CompareChart] {
        &[crate::suites::CompareChart::Bars {
            metric: "IOPS",
            id: "compare-spdk-raid",
            title: "SPDK IOPS per job: base vs new",
        }]
    }

    fn detect(&self, catalog: &Catalog) -> bool {
        load::detect(catalog)
    }

    fn analyze(
        &self,
        catalog: &Catalog,
        opts: &Options,
        skipped: &mut Vec<Skipped>,
        frames: &mut Vec<crate::frames::Frame>,
    ) -> SuiteReport {
        let mut report = SuiteReport::for_suite(self);
        let reference = match SpdkReference::load() {
            Ok(r) => r,
            Err(e) => {
                report.notes.push(format!(
                    "failed to read the embedded reports/spdk-raid.toml: {e}"
                ));
                return report;
            }
        };
        let arrays = load::load(catalog, skipped);
        report.measurements = measurements::measurements(&arrays, INFO.name);
        for a in &arrays {
            files_and_facts(&mut report, a);
        }
        let mut judged = judge::judge(&arrays, &reference);
        let devs = deviations::deviations(&arrays, &reference);
        crate::model::deviation::apply(&mut judged.verdicts, &devs);
        report.deviations = crate::model::deviation::merge(devs);
        report.commands_ran = deviations::commands_ran(&arrays);
        report.verdicts = judged.verdicts;
        // A share verdict judges the array's best run and the raw drives' best, in IOPS
        // for random I/O and bandwidth for full stripes.
        for v in report.verdicts.iter_mut() {
            let metric = [
                theory::Op::RandomRead,
                theory::Op::StripeRead,
                theory::Op::StripeWrite,
            ]
            .into_iter()
            .find(|op| {
                v.id.ends_with(&format!(".{}", op.label().replace(' ', "-")))
            })
            .map(|op| match op {
                theory::Op::RandomRead | theory::Op::RandomWrite => "IOPS",
                theory::Op::StripeRead | theory::Op::StripeWrite => "bandwidth",
            });
            if let Some(metric) = metric {
                v.judging(&report.measurements, &[metric]);
            }
        }
        report.observations = judged.observations;
        report.notes = judged.notes;
        report.tables = tables::tables(&arrays, &reference, &judged.shares);
        report.charts = tables::charts(&arrays, &reference, &judged.shares);
        if opts.frames {
            match frames::runs(&arrays) {
                Ok(f) => frames.push(f),
                Err(e) => report.notes.push(format!("{e:#}")),
            }
        }
        report
    }
}

/// The files an array folder's analysis read, and the raid state it was in (each
/// `bdev_raid_get_bdevs` a fact).
fn files_and_facts(report: &mut SuiteReport, a: &load::ArrayDir) {
    let states = [&a.state, &a.degraded_state].into_iter().flatten();
    report.files_read.extend(
        a.runs
            .iter()
            .map(|r| r.file.clone())
            .chain(a.config.iter().map(|c| c.file.clone()))
            .chain(states.map(|s| s.file.clone())),
    );
    for s in [&a.state, &a.degraded_state].into_iter().flatten() {
        report.facts.push(Fact::new(
            format!(
                "{}: bdev_raid_get_bdevs",
                a.dir.rsplit('/').next().unwrap_or(&a.dir)
            ),
            format!("{} {} {}", s.name, s.raid_level, s.label()),
            s.file.clone(),
        ));
    }
}
