//! The storage suite: fio on mdraid RAID10 vs the ADP card in RAID5 ("Storage
//! acceleration" in the procedure).

mod charts;
mod checklist;
pub mod conformance;
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
        let reference = match Reference::load() {
            Ok(r) => r,
            Err(e) => {
                // The reference is embedded and tested; this is a build defect, said plainly.
                let mut report = SuiteReport::for_suite(self);
                report.notes.push(format!(
                    "failed to read the embedded reports/storage.toml: {e}"
                ));
                return report;
            }
        };
        let loaded = load::load(catalog, skipped);
        let groups = loaded.run_groups();
        let sides = judge::sides(
            &reference,
            opts.baseline.as_deref(),
            opts.candidate.as_deref(),
        );

        // Each group's per-second series and steady state, from its iostat log (or fio's
        // bandwidth log) where it has one.
        let series: Vec<Option<(Vec<f64>, String)>> =
            groups.iter().map(|g| steady::series(&loaded, g)).collect();
        let steadies: Vec<Option<(steady::Steady, String)>> = series
            .iter()
            .map(|s| {
                s.as_ref()
                    .map(|(s, f)| (steady::judge(s, &reference.steady_state), f.clone()))
            })
            .collect();
        let within = |g: &load::RunGroup| {
            let i = groups.iter().position(|x| std::ptr::eq(x, g))?;
            let (s, _) = series[i].as_ref()?;
            // Only a window that is steady: the spread of a trending one is not noise.
            let steady = &steadies[i].as_ref()?.0;
            if steady.outcome != steady::Outcome::Reached {
                return None;
            }
            let (a, b) = steady.window?;
            crate::stats::batch::of_window(s.get(a.checked_sub(1)?..b)?)
        };
        let mut verdicts: Vec<Verdict> = reference
            .workload
            .iter()
            .map(|w| judge::headline_verdict(&groups, &sides, w, &within))
            .collect();
        verdicts.push(judge::clean_exit_verdict(&loaded, &groups, &sides));
        let devs = deviations::deviations(&groups, &sides, &reference, &steadies);
        crate::model::deviation::apply(&mut verdicts, &devs);

        let mut report = SuiteReport::for_suite(self);
        report.files_read = loaded
            .runs
            .iter()
            .map(|r| r.file.clone())
            .chain(loaded.iostat.values().map(|f| f.file.clone()))
            .chain(
                loaded
                    .bw_logs
                    .values()
                    .flat_map(|logs| logs.iter().map(|(f, _)| f.clone())),
            )
            .chain(loaded.evidence.files())
            .collect();
        report.files_read.dedup();
        report.files_read.sort();
        report.qualifiers =
            steady::qualifiers(&groups, &steadies, &verdicts, &reference.steady_state);
        report.verdicts = verdicts;
        report.observations = observe::observations(&loaded, &groups, &sides, &reference);
        crate::model::deviation::annotate(&mut report.observations, &devs);
        report.limits = limits::limits(&loaded, &groups);
        crate::model::deviation::annotate_limits(&mut report.limits, &devs);
        report.deviations = crate::model::deviation::merge(devs);
        report.commands_ran = deviations::commands_ran(&groups, &sides);
        report.preformatted.push(tables::script_output(&loaded));
        report.tables.push(tables::results_table(&groups));
        report.tables.extend(tables::steady_table(
            &groups,
            &steadies,
            &reference.steady_state,
        ));
        let pairs = frames::pairs(&groups, &sides);
        report.tables.extend(tables::matched_table(&pairs, &sides));
        if opts.frames {
            match frames::frame(&pairs, &sides) {
                Ok(f) => frames.push(f),
                Err(e) => report.notes.push(format!("the storage_pairs frame: {e:#}")),
            }
        }
        report.notes.extend(arrays_note(&loaded, &sides));
        report.charts = charts::charts(&groups, &sides, &reference);
        report
            .charts
            .extend(charts::over_time(&loaded, &groups, &sides, &reference));
        report.facts = facts(&loaded);
        report.measurements = measurements::measurements(&groups, INFO.name);
        report.parameters = measurements::parameters(&groups);
        // A headline verdict judges the two arrays' bandwidth; the exit-status verdict
        // judges the files, not a measurement.
        let exit_status = format!("{}.exit-status", INFO.name);
        for v in report.verdicts.iter_mut().filter(|v| v.id != exit_status) {
            v.judging(&report.measurements, &["bandwidth"]);
        }
        report
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
