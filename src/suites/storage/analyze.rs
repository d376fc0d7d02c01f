//! The storage suite's analysis: the runs loaded and grouped, their steady states, the
//! criteria judged, and what the report shows of them.

use super::*;

pub(super) fn analyze(
    suite: &Storage,
    catalog: &Catalog,
    opts: &Options,
    skipped: &mut Vec<Skipped>,
    frames: &mut Vec<crate::frames::Frame>,
) -> SuiteReport {
    let reference = match Reference::load() {
        Ok(r) => r,
        Err(e) => {
            // The reference is embedded and tested; this is a build defect, said plainly.
            let mut report = SuiteReport::for_suite(suite);
            report.notes.push(format!(
                "failed to read the embedded reports/storage.toml: {e}"
            ));
            return report;
        }
    };
    let mut loaded = load::load(catalog, skipped);
    // A copy of a run is that run once, not a repeat.
    super::copies::drop_copies(&mut loaded, skipped);
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
    let devs = deviations::deviations(&loaded, &groups, &sides, &reference, &steadies);
    crate::model::deviation::apply(&mut verdicts, &devs);

    let mut report = SuiteReport::for_suite(suite);
    present(
        &mut report,
        Judged {
            loaded: &loaded,
            groups: &groups,
            sides: &sides,
            reference: &reference,
            steadies: &steadies,
        },
        verdicts,
        devs,
        opts,
        frames,
    );
    report
}

/// What the criteria were judged from.
struct Judged<'a> {
    loaded: &'a load::Loaded<'a>,
    groups: &'a [load::RunGroup<'a>],
    sides: &'a judge::Sides,
    reference: &'a reference::Reference,
    steadies: &'a [Option<(steady::Steady, String)>],
}

/// The report around the verdicts: files read, qualifiers, observations, limits,
/// deviations, tables, charts, facts and measurements.
fn present(
    report: &mut SuiteReport,
    j: Judged,
    verdicts: Vec<Verdict>,
    devs: Vec<crate::model::deviation::Deviation>,
    opts: &Options,
    frames: &mut Vec<crate::frames::Frame>,
) {
    report.files_read = j
        .loaded
        .runs
        .iter()
        .map(|r| r.file.clone())
        .chain(j.loaded.iostat.values().map(|f| f.file.clone()))
        .chain(
            j.loaded
                .bw_logs
                .values()
                .flat_map(|logs| logs.iter().map(|(f, _)| f.clone())),
        )
        .chain(j.loaded.evidence.files())
        .collect();
    report.files_read.dedup();
    report.files_read.sort();
    report.qualifiers =
        steady::qualifiers(j.groups, j.steadies, &verdicts, &j.reference.steady_state);
    report.verdicts = verdicts;
    // Two halves side by side: a thread another suite has left idle takes one.
    let ((observations, limits, commands_ran, script), (charts, measurements, parameters)) =
        rayon::join(
            || {
                let mut observations =
                    observe::observations(j.loaded, j.groups, j.sides, j.reference);
                crate::model::deviation::annotate(&mut observations, &devs);
                let mut limits = limits::limits(j.loaded, j.groups);
                crate::model::deviation::annotate_limits(&mut limits, &devs);
                let commands_ran = deviations::commands_ran(j.groups, j.sides);
                (
                    observations,
                    limits,
                    commands_ran,
                    tables::script_output(j.loaded),
                )
            },
            || {
                let mut charts = charts::charts(j.groups, j.sides, j.reference);
                charts.extend(charts::over_time(j.loaded, j.groups, j.sides, j.reference));
                let measurements = measurements::measurements(j.groups, INFO.name);
                (charts, measurements, measurements::parameters(j.groups))
            },
        );
    report.observations = observations;
    report.limits = limits;
    report.deviations = crate::model::deviation::merge(devs);
    report.commands_ran = commands_ran;
    report.preformatted.push(script);
    report.tables.push(tables::results_table(j.groups));
    report.tables.extend(tables::steady_table(
        j.groups,
        j.steadies,
        &j.reference.steady_state,
    ));
    let pairs = frames::pairs(j.groups, j.sides);
    report.tables.extend(tables::matched_table(&pairs, j.sides));
    if opts.frames {
        match frames::frame(&pairs, j.sides) {
            Ok(f) => frames.push(f),
            Err(e) => report.notes.push(format!("the storage_pairs frame: {e:#}")),
        }
    }
    report.notes.extend(arrays_note(j.loaded, j.sides));
    report.charts = charts;
    report.facts = facts(j.loaded);
    report.measurements = measurements;
    report.parameters = parameters;
    // A headline verdict judges the two arrays' bandwidth; the exit-status verdict
    // judges the files, not a measurement.
    let exit_status = format!("{}.exit-status", INFO.name);
    for v in report.verdicts.iter_mut().filter(|v| v.id != exit_status) {
        v.judging(&report.measurements, &["bandwidth"]);
    }
}
