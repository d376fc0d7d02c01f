//! The storage suite: fio on mdraid RAID10 vs the ADP card in RAID5 ("Storage
//! acceleration" in the procedure).

mod analyze;
mod charts;
mod checklist;
pub mod collect;
pub mod collector;
pub mod conformance;
mod copies;
mod deviations;
mod drives;
mod evidence;
mod frames;
mod judge;
mod limits;
mod load;
mod measurements;
mod members;
mod observe;
pub mod reference;
mod script_table;
mod steady;
mod tables;

use crate::ingest::walk::Skipped;
use crate::ingest::Catalog;
use crate::model::verdict::Verdict;
use crate::suites::{Fact, Options, Suite, SuiteInfo, SuiteReport};

pub use reference::{Reference, STORAGE_TOML};

pub struct Storage;

/// The suite's name, in verdict ids and on the command line.
pub const NAME: &str = "storage";

const INFO: SuiteInfo = SuiteInfo {
    name: NAME,
    title: "Storage acceleration: fio on mdraid RAID10 vs ADP RAID5",
    procedure: "Reproducing the benchmarks, \"Storage acceleration\"",
    reads: &[
        "<array>/<job>.json          fio --output-format=json (also json+, normal,json, --status-interval)",
        "<array>/iostat/<job>.iostat iostat -xm 1 taken while the job ran",
        "arrays: raid10 (baseline) and adp (candidate), or --baseline/--candidate",
    ],
    reproduce: &[
        "sudo mdadm --create --verbose /dev/md126 --level=10 --raid-devices=4 <4 drives> --force --assume-clean",
        "DEV=/dev/md126 OUT=results/raid10, then the procedure's run() helper (iostat -xm 1 beside fio --output-format=json)",
        "run randread-8k-j32-d32 --readwrite=randread --bs=8k --numjobs=32 --iodepth=32 --size=3800000000000 --runtime=60",
        "run randrw-8k-j128-d8 --readwrite=randrw --bs=8k --numjobs=128 --iodepth=8 --rwmixread=70 --size=3800000000000 --runtime=60",
        "run randwrite-8k-j8-d8 --readwrite=randwrite --bs=8k --numjobs=8 --iodepth=8 --size=3800000000000 --runtime=60",
        "run read-1m-j8-d4 --readwrite=read --bs=1m --numjobs=8 --iodepth=4 --size=3800000000000 --runtime=60",
        "run write-1m-j8-d4 --readwrite=write --bs=1m --numjobs=8 --iodepth=4 --size=3800000000000 --runtime=60",
        "then the same with DEV=<ADP block device> OUT=results/adp after installing the block bundle (--level=5)",
    ],
};

impl Suite for Storage {
    fn collector(&self) -> Option<&'static dyn crate::collect::plugin::Collector> {
        Some(&collector::COLLECTOR)
    }

    fn info(&self) -> &'static SuiteInfo {
        &INFO
    }

    fn check_next(&self) -> &'static [crate::why::next_steps::Rule] {
        static RULES: std::sync::OnceLock<Vec<crate::why::next_steps::Rule>> =
            std::sync::OnceLock::new();
        crate::suites::rules_in(&RULES, reference::STORAGE_TOML, INFO.name)
    }

    fn unread_hint(&self, i: &crate::ingest::Item) -> Option<String> {
        use crate::ingest::Kind;
        let ours = match i.kind {
            Kind::Iostat => true,
            Kind::Fio => !crate::ingest::layout::in_spdk_tree(&i.rel),
            _ => false,
        };
        ours.then(|| {
            format!(
                "{} under `{}`: the {} suite reads `<array>/<job>.json` with `<array>/iostat/<job>.iostat`",
                i.kind.label(),
                crate::suites::at(i),
                INFO.name
            )
        })
    }

    fn claims(&self, item: &crate::ingest::Item) -> bool {
        load::claims(item)
    }

    fn checklist(
        &self,
        folder: &crate::ingest::walk::Folder,
        _environment: &[crate::suites::Fact],
        report: &SuiteReport,
    ) -> Vec<crate::checklist::Item> {
        checklist::checklist(folder, report)
    }

    fn compare_charts(&self) -> &'static [crate::suites::CompareChart] {
        &[crate::suites::CompareChart::Bars {
            metric: "bandwidth",
            id: "compare-storage",
            title: "Storage bandwidth per job (MB/s): base vs new",
        }]
    }

    fn conformance(
        &self,
        setup: &crate::why::setup::Setup,
    ) -> Option<crate::why::conformance::Conformance> {
        conformance::conformance(setup)
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
        analyze::analyze(self, catalog, opts, skipped, frames)
    }
}

fn arrays_note(loaded: &load::Loaded, sides: &judge::Sides) -> Option<String> {
    let names: Vec<String> = loaded
        .array_dirs()
        .iter()
        .map(|d| d.rsplit('/').next().unwrap_or(d).to_string())
        .collect();
    let known = |s: &str| names.iter().any(|n| n.eq_ignore_ascii_case(s));
    (!known(&sides.baseline) || !known(&sides.candidate)).then(|| {
        format!(
            "compared `{}` (baseline) with `{}` (candidate); array folders found: {}. Name others with --baseline and --candidate.",
            sides.baseline,
            sides.candidate,
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )
    })
}

/// fio versions, kernels and hosts from iostat banners, and the device each array ran on.
fn facts(loaded: &load::Loaded) -> Vec<Fact> {
    let mut out: Vec<Fact> = Vec::new();
    let mut push = |f: Fact| {
        if !out.iter().any(|o| o.name == f.name && o.value == f.value) {
            out.push(f);
        }
    };
    for run in &loaded.runs {
        if let Some(v) = &run.output.fio_version {
            push(Fact::new("fio version", v.clone(), run.file.clone()));
        }
        if let Some(dev) = run.groups.first().and_then(|g| g.options.get("filename")) {
            push(Fact::new(
                format!("{} device (DEV)", run.array),
                dev.clone(),
                run.file.clone(),
            ));
        }
    }
    for f in loaded.iostat.values() {
        if let Some(b) = &f.log.banner {
            push(Fact::new(
                "iostat host and kernel",
                b.clone(),
                f.file.clone(),
            ));
        }
    }
    out
}
