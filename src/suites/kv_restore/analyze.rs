//! Test 1's analysis: the restores and recomputes judged, with the model, the server
//! logs and what deviates from the procedure.

use super::*;

pub(super) fn analyze(
    suite: &KvRestore,
    catalog: &Catalog,
    skipped: &mut Vec<Skipped>,
) -> SuiteReport {
    let mut report = SuiteReport::for_suite(suite);
    let Some(reference) = KvReference::load_or_note(&mut report) else {
        return report;
    };
    let logs = kv_common::server_logs(catalog, skipped);
    report.parameters = kv_common::measurements::server_parameters(&logs);
    // The /metrics snapshots around the asks: listed once, read as evidence below.
    let snapshots = kv_common::hit_source::snapshots_in(catalog, "restore");
    if !snapshots.is_empty() {
        report.notes.extend(kv_common::names::notes(
            catalog,
            &kv_common::names::versions(&logs),
        ));
    }
    let transcripts = kv_common::transcripts(catalog, "restore", skipped);
    report.measurements = kv_common::measurements::restores(&transcripts, INFO.name);
    let pick = |want: &str| {
        transcripts
            .iter()
            .find(|(stem, _)| variant_of(stem) == want)
            .map(|(_, v)| v.clone())
    };
    let plain = pick(PLAIN);
    let adp = pick(ADP);
    report.files_read = transcripts
        .values()
        .map(|(f, _)| f.clone())
        .chain(logs.by_variant.values().map(|(f, _)| f.clone()))
        .chain(logs.gateway.clone())
        .collect();

    let model = kv_common::model_name(catalog, &logs);
    let published = published_model(&reference, model.as_ref());
    let mut model_devs = model_deviations(&mut report, &reference, model.as_ref(), published);

    let recompute = plain.as_ref().map(|(f, a)| measured(f, a, 0, TIMED_RUNS));
    let restore = adp.as_ref().map(|(f, a)| measured(f, a, 1, TIMED_RUNS));
    report.files_read.extend(snapshots);
    let runs = Runs {
        plain: plain.as_ref(),
        adp: adp.as_ref(),
        recompute: recompute.as_ref(),
        restore: restore.as_ref(),
    };
    criteria(
        catalog,
        skipped,
        &logs,
        runs,
        &reference,
        published,
        &mut report,
    );
    beside_criteria(&logs, runs, published, &mut report);
    report.facts = kv_common::facts(&logs, model.as_ref());
    let timed: Vec<(&str, &str, &[Attempt])> = [(PLAIN, &plain), (ADP, &adp)]
        .into_iter()
        .filter_map(|(v, t)| t.as_ref().map(|(f, a)| (v, f.as_str(), a.as_slice())))
        .collect();
    model_devs.extend(kv_common::deviations::restore(
        &logs,
        &timed,
        published,
        &reference,
        "kv-restore.time",
        "kv-restore.cached",
    ));
    apply_deviations(model_devs, &mut report);
    report.commands_ran = kv_common::deviations::server_commands(&logs);
    report
        .charts
        .extend(chart(recompute.as_ref(), restore.as_ref(), published));
    report
}

/// The deviations onto the verdicts and observations they touch, then listed once each.
/// The procedure's condition on the GPU KV cache is test 1's own criterion
/// (`kv-restore.kv-cache-size`, which fails on unequal sizes); the restore time is judged
/// beside it rather than hidden behind it (tests 2 and 3, which have no such criterion,
/// take it as a deviation).
fn apply_deviations(devs: Vec<crate::model::deviation::Deviation>, report: &mut SuiteReport) {
    crate::model::deviation::apply(&mut report.verdicts, &devs);
    crate::model::deviation::annotate(&mut report.observations, &devs);
    report.deviations = crate::model::deviation::merge(devs);
}

/// The published numbers for the model under test: a named model has them only if the
/// procedure publishes it; with no model named, the procedure's main model is assumed
/// (and said in a note).
fn published_model<'r>(
    reference: &'r KvReference,
    model: Option<&(String, String)>,
) -> Option<&'r ModelRef> {
    match model {
        Some((m, _)) => reference.model(m),
        None => reference.model(&reference.restore.default_model),
    }
}

/// What test 1's runs show beside its criteria: observations against the published
/// times, warm-up notes, the attempts table.
fn beside_criteria(
    logs: &ServerLogs,
    runs: Runs,
    published: Option<&ModelRef>,
    report: &mut SuiteReport,
) {
    report.observations = observations(logs, published, runs.restore, runs.recompute);
    for r in [runs.recompute, runs.restore].into_iter().flatten() {
        if let Some(n) = &r.warmup_note {
            report.notes.push(n.clone());
        }
    }
    report.tables.push(attempts_table(runs.plain, runs.adp));
}

/// The two transcripts and their timed runs.
#[derive(Clone, Copy)]
struct Runs<'a> {
    plain: Option<&'a (String, Vec<Attempt>)>,
    adp: Option<&'a (String, Vec<Attempt>)>,
    recompute: Option<&'a Measured>,
    restore: Option<&'a Measured>,
}

/// Test 1's criteria, each with where its hits came from where snapshots tell, and the
/// restore's floor.
fn criteria(
    catalog: &Catalog,
    skipped: &mut Vec<Skipped>,
    logs: &ServerLogs,
    runs: Runs,
    reference: &KvReference,
    published: Option<&ModelRef>,
    report: &mut SuiteReport,
) {
    // Where each restore's hits came from, where /metrics snapshots surround the asks.
    let checked = runs
        .adp
        .map(|(f, a)| kv_common::hit_source::check(catalog, f, a, skipped))
        .unwrap_or_default();
    let mut cached = cached_verdict(runs.adp, reference);
    kv_common::hit_source::apply(&mut cached, &checked, "the card");
    report.verdicts.push(cached);
    let mut time = time_verdict(runs.recompute, runs.restore, reference, published);
    kv_common::hit_source::apply_to_time(&mut time, &checked, "the card");
    time.judging(
        &report.measurements,
        &["restore time (median)", "recompute time (median)"],
    );
    report.verdicts.push(time);
    if let (Some(transcript), Some(restore)) = (runs.adp, runs.restore) {
        report
            .limits
            .push(limits::restore_floor(limits::RestoreInputs {
                transcript,
                restore,
                log: logs.by_variant.get(ADP),
                link: crate::why::setup::link(catalog),
            }));
    }
    report.verdicts.push(plain_cold_verdict(runs.plain));
    report.verdicts.push(kv_size_verdict(logs));
    report.verdicts.push(connector_verdict(logs));
}

/// The model under test as a note, and a deviation when the procedure publishes nothing
/// for it.
fn model_deviations(
    report: &mut SuiteReport,
    reference: &KvReference,
    model: Option<&(String, String)>,
    published: Option<&ModelRef>,
) -> Vec<crate::model::deviation::Deviation> {
    let mut model_devs = Vec::new();
    if let Some((m, from)) = model {
        report.notes.push(format!("model `{m}` (from `{from}`)"));
        if published.is_none() {
            model_devs.push(
                crate::model::deviation::Deviation::new(
                    "model",
                    "GLM-5.3, DeepSeek-V4-Flash, MiniMax M3 or Kimi-Linear",
                    Phrase::text(m),
                )
                .subject("test 1")
                .file(from.clone())
                .effect(
                    "no published numbers for this model: the criteria still apply, published times are not shown",
                    false,
                )
                .source(reference.restore.source.clone()),
            );
        }
    } else {
        report.notes.push(format!(
            "no model named in manifest.json or the server logs; published numbers are {}'s",
            reference.restore.default_model
        ));
    }
    model_devs
}

/// `2.12 s`, or `-`.
fn seconds(s: Option<f64>) -> Phrase {
    s.map_or(Phrase::dash(), |s| phrase!("{}", qty(s, 2, Unit::Seconds)))
}

/// The gateway log's presence, and the published times beside the measured ones.
fn observations(
    logs: &ServerLogs,
    published: Option<&ModelRef>,
    restore: Option<&Measured>,
    recompute: Option<&Measured>,
) -> Vec<Observation> {
    let mut out = Vec::new();
    out.push(Observation {
        id: "kv-restore.gateway".into(),
        what: "Gateway log from the ADP variant (the procedure asks for it)".into(),
        measured: logs
            .gateway
            .clone()
            .map_or("missing".into(), |g| phrase!("present: `{}`", name(g))),
        published: Phrase::dash(),
        files: logs.gateway.iter().cloned().collect(),
        note: String::new(),
    });
    if let Some(m) = published {
        out.push(Observation {
            id: "kv-restore.published".into(),
            what: format!(
                "{}: restore vs recompute, ~{} tokens",
                m.title,
                crate::model::units::grouped(&m.prompt_tokens.to_string())
            ),
            measured: phrase!(
                "restore {} · recompute {}",
                seconds(restore.as_ref().and_then(|r| r.median)),
                seconds(recompute.as_ref().and_then(|r| r.median))
            ),
            published: phrase!(
                "restore {} · recompute {}",
                qty(m.restore_s, 2, Unit::Seconds),
                qty(m.recompute_s, 2, Unit::Seconds)
            ),
            files: [&restore, &recompute]
                .into_iter()
                .flatten()
                .map(|r| r.file.clone())
                .collect(),
            note: m.source.clone(),
        });
    }
    out
}

/// The variant a transcript belongs to, from its file name.
fn variant_of(stem: &str) -> &'static str {
    let s = stem.to_ascii_lowercase();
    if s.contains("gpu-only") || s.contains("plain") || s.contains("gpu_only") {
        PLAIN
    } else if s.contains("lmcache") {
        kv_common::LMCACHE
    } else if s.contains("adp") {
        ADP
    } else {
        ""
    }
}
