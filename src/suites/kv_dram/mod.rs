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
use crate::suites::kv_common::aggregate::{failing_runs, fed_by, too_spread, Aggregate, GEN};
use crate::suites::kv_common::reference::KvReference;
use crate::suites::kv_common::restore::{measured, TIMED_RUNS};
use crate::suites::kv_common::{self, ADP, LMCACHE};
use crate::suites::{Options, Suite, SuiteInfo, SuiteReport, Table};

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
        let mut report = SuiteReport::for_suite(self);
        let Some(reference) = KvReference::load_or_note(&mut report) else {
            return report;
        };
        let d = &reference.dram;
        let transcripts = kv_common::transcripts(catalog, "dram", skipped);
        report.measurements = kv_common::measurements::restores(&transcripts, INFO.name);
        // The ladder files were already checked (and skipped) by kv-ladder when present.
        let levels = kv_common::levels(catalog, skipped);
        let agg = Aggregate::of(&levels);
        report.files_read = transcripts.values().map(|(f, _)| f.clone()).collect();
        report.files_read.extend(
            levels
                .iter()
                .filter(|l| l.variant == LMCACHE)
                .flat_map(|l| l.files.clone()),
        );
        let get = |variant: &str, kind: &str| transcript(&transcripts, variant, kind);
        let max_spread = opts.max_spread.unwrap_or(reference.ladder.max_spread);
        // The levels' rates are the ladder suite's measurements (it measures every level).
        let rates = kv_common::measurements::ladder(&levels, crate::suites::kv_ladder::NAME);
        for &n in &d.levels {
            let mut v = gen_verdict(&agg, n, d.max_gen_gap, max_spread);
            v.judging(&rates, &["generation rate"]);
            report.verdicts.push(v);
        }
        let all: Vec<(String, (String, Vec<Attempt>))> = [ADP, LMCACHE]
            .iter()
            .flat_map(|v| ["warm", "restart"].map(|k| (format!("{v} {k}"), get(v, k))))
            .filter_map(|(n, x)| x.map(|x| (n, x)))
            .collect();
        let mut hits = hits_verdict(&all, reference.restore.min_cached_share);
        let checked: Vec<_> = all
            .iter()
            .flat_map(|(_, (f, a))| kv_common::hit_source::check(catalog, f, a, skipped))
            .collect();
        kv_common::hit_source::apply(
            &mut hits,
            &checked,
            "the connector (LMCache's DRAM tier or the card)",
        );
        report
            .files_read
            .extend(kv_common::hit_source::snapshots_in(catalog, "dram"));
        report.verdicts.push(hits);
        let devs = dram_deviations(
            catalog,
            skipped,
            &levels,
            &all,
            &reference,
            &report.verdicts,
        );
        crate::model::deviation::apply(&mut report.verdicts, &devs);
        let all_devs = devs.clone();
        // The connector's own levels are kv-ladder's to list; here, what LMCache ran and
        // the restores' prompt.
        report.deviations = crate::model::deviation::merge(devs)
            .into_iter()
            .filter(|d| {
                d.subjects
                    .iter()
                    .any(|s| s.starts_with(LMCACHE) || s.ends_with("requests"))
            })
            .collect();
        let chart_values = restore_observations(&transcripts, d, &mut report);
        crate::model::deviation::annotate(&mut report.observations, &all_devs);
        report.observations.extend(lmcache_observation(catalog));
        report.charts.extend(chart(&chart_values));
        report.tables.push(attempts_table(&all));
        report
    }
}

/// How LMCache's levels and the restores' prompt deviate from the procedure, and whether
/// the variants' GPU KV caches differ (every generation-rate verdict compares them).
fn dram_deviations(
    catalog: &Catalog,
    skipped: &mut Vec<Skipped>,
    levels: &[kv_common::ladder::Level],
    all: &[(String, (String, Vec<Attempt>))],
    reference: &KvReference,
    verdicts: &[Verdict],
) -> Vec<crate::model::deviation::Deviation> {
    let mut devs = kv_common::deviations::ladder(levels, &[ADP, LMCACHE], &reference.ladder, |n| {
        vec![format!("kv-dram.L{n}-gen")]
    });
    // The prompt of the restores against the published comparison's (GLM-5.3).
    let logs = kv_common::server_logs(catalog, skipped);
    let model = kv_common::model_name(catalog, &logs)
        .and_then(|(m, _)| reference.model(&m).cloned())
        .or_else(|| reference.model(&reference.restore.default_model).cloned());
    let timed: Vec<(&str, &str, &[Attempt])> = all
        .iter()
        .map(|(n, (f, a))| (n.as_str(), f.as_str(), a.as_slice()))
        .collect();
    devs.extend(kv_common::deviations::prompt(
        &timed,
        model.as_ref(),
        reference,
        &[],
        &["kv-dram.restores-hit"],
    ));
    let comparing: Vec<String> = verdicts
        .iter()
        .map(|v| v.id.clone())
        .filter(|id| id.ends_with("-gen"))
        .collect();
    devs.extend(kv_common::deviations::kv_cache_sizes(
        &logs,
        [ADP, LMCACHE],
        &comparing,
    ));
    devs
}

/// The transcript of `variant`'s `kind` restores (`warm`, `restart`), by its name.
fn transcript(
    transcripts: &BTreeMap<String, (String, Vec<Attempt>)>,
    variant: &str,
    kind: &str,
) -> Option<(String, Vec<Attempt>)> {
    transcripts
        .iter()
        .find(|(stem, _)| {
            let s = stem.to_ascii_lowercase();
            s.contains(variant) && s.contains(kind)
        })
        .map(|(_, v)| v.clone())
}

/// The warm and after-restart restores of both variants against the published times, as
/// observations (and their warm-up notes) in `report`; the chart's values, one row per
/// kind: connector alone, LMCache, and their published times.
fn restore_observations(
    transcripts: &BTreeMap<String, (String, Vec<Attempt>)>,
    d: &crate::suites::kv_common::reference::DramRef,
    report: &mut SuiteReport,
) -> Vec<[Option<f64>; 4]> {
    let get = |variant: &str, kind: &str| transcript(transcripts, variant, kind);
    let mut chart_values: Vec<[Option<f64>; 4]> = Vec::new();
    for (kind, adp_pub, lm_pub, what) in [
        (
            "warm",
            d.warm_adp_s,
            d.warm_lmcache_s,
            "Restore on a running engine after reset_prefix_cache",
        ),
        (
            "restart",
            d.restart_adp_s,
            d.restart_lmcache_s,
            "Restore after a vLLM restart",
        ),
    ] {
        let m = |v: &str| get(v, kind).map(|(f, a)| measured(&f, &a, 1, TIMED_RUNS));
        let (a, l) = (m(ADP), m(LMCACHE));
        chart_values.push([
            a.as_ref().and_then(|x| x.median),
            l.as_ref().and_then(|x| x.median),
            Some(adp_pub),
            Some(lm_pub),
        ]);
        if a.is_none() && l.is_none() {
            continue;
        }
        let f = |x: &Option<crate::suites::kv_common::restore::Measured>| {
            x.as_ref()
                .and_then(|m| m.median)
                .map_or(Phrase::dash(), |s| phrase!("{}", qty(s, 2, Unit::Seconds)))
        };
        report.observations.push(Observation {
            id: format!("kv-dram.{kind}"),
            what: what.into(),
            measured: phrase!("connector alone {} · LMCache {}", f(&a), f(&l)),
            published: phrase!(
                "connector alone {} · LMCache {}",
                qty(adp_pub, 2, Unit::Seconds),
                qty(lm_pub, 2, Unit::Seconds)
            ),
            files: [&a, &l]
                .iter()
                .filter_map(|x| x.as_ref().map(|m| m.file.clone()))
                .collect(),
            note: d.source.clone(),
        });
        for x in [a, l].into_iter().flatten() {
            report.notes.extend(x.warmup_note);
        }
    }
    chart_values
}

fn gen_verdict(agg: &Aggregate, n: u32, gap: f64, max_spread: f64) -> Verdict {
    let mut v = Verdict::new(
        format!("kv-dram.L{n}-gen"),
        format!("{n} clients: LMCache and the connector alone generate at matching rates"),
        phrase!("within {}", qty(gap * 100.0, 0, Unit::Percent)),
        "matching generation rates under load",
    )
    .with_numbers(
        None,
        Some(gap * 100.0),
        None,
        UnitOf::new(Unit::Percent, "difference"),
    );
    for var in [ADP, LMCACHE] {
        v.files.extend(
            agg.runs(var, n)
                .iter()
                .flat_map(|l| l.files.iter().filter(|f| f.ends_with(".json")).cloned()),
        );
    }
    let (Some(a), Some(l)) = (agg.metric(ADP, n, GEN).0, agg.metric(LMCACHE, n, GEN).0) else {
        let failing = failing_runs(agg, &[ADP, LMCACHE], n);
        if failing.is_empty() {
            v.note = format!("needs results/adp-*-L{n} and results/lmcache-*-L{n}");
        } else {
            v.status = Status::Fail;
            v.note = format!(
                "a run of this level failed: {}; {}",
                failing.join("; "),
                fed_by(agg, &[ADP, LMCACHE], n)
            );
        }
        return v;
    };
    let diff = l / a - 1.0;
    v.set_measured(Some(diff * 100.0));
    v.measured = phrase!(
        "lmcache {} vs adp {} tok/s ({}%)",
        fixed(l, 1),
        fixed(a, 1),
        signed(diff * 100.0, 1)
    );
    let fed = format!("medians of {}", fed_by(agg, &[ADP, LMCACHE], n));
    let failing = failing_runs(agg, &[ADP, LMCACHE], n);
    let spread = too_spread(agg, &[ADP, LMCACHE], n, max_spread, &[("gen tok/s", GEN)]);
    (v.status, v.note) = if !failing.is_empty() {
        (
            Status::Fail,
            format!("a run of this level failed: {}; {fed}", failing.join("; ")),
        )
    } else if !spread.is_empty() {
        (
            Status::Inconclusive,
            format!("{}; {fed}", spread.join("; ")),
        )
    } else if let Some(judged) = gen_interval(agg, n, gap) {
        v.interval = Some(judged.interval);
        (judged.status, format!("{fed}; {}", judged.note))
    } else {
        let status = if diff.abs() <= gap {
            Status::Pass
        } else {
            Status::Fail
        };
        (
            status,
            format!("{fed}; {}", agg.within_missing(&[ADP, LMCACHE], n)),
        )
    };
    v
}

/// A generation-rate criterion judged by its interval over the runs.
struct Judged {
    interval: crate::model::verdict::Interval,
    status: Status,
    note: String,
}

/// LMCache's generation rate over the connector's at a level, as the 95% interval over
/// the runs that feed the medians (Student t on the log ratio, variance pooled over both
/// variants), in the criterion's unit (percent difference): pass when all of it lies
/// within ±`gap`, fail when all of it lies outside, inconclusive when it straddles a
/// bound (with how many runs of each would settle it at the spread seen). With one run
/// of each variant, the interval from within the two runs
/// ([`crate::suites::kv_common::within`]). None when no interval can be had.
fn gen_interval(agg: &Aggregate, n: u32, gap: f64) -> Option<Judged> {
    use crate::stats::ratio::Settle;
    // Over the runs; with one run of each variant, from within the two runs.
    let r =
        crate::stats::ratio::ratio_pooled(&agg.values(ADP, n, GEN), &agg.values(LMCACHE, n, GEN))
            .filter(|r| r.interval.is_some())
            .or_else(|| agg.within_ratio(ADP, LMCACHE, n, GEN))?;
    let (low, high, _, method) = r.interval?;
    let (lo_bound, hi_bound) = (1.0 - gap, 1.0 + gap);
    let status = if low >= lo_bound && high <= hi_bound {
        Status::Pass
    } else if low > hi_bound || high < lo_bound {
        Status::Fail
    } else {
        Status::Inconclusive
    };
    let mut note = format!(
        "95% interval of lmcache over adp ({}): {:+.1}% to {:+.1}%",
        method.name(),
        (low - 1.0) * 100.0,
        (high - 1.0) * 100.0
    );
    if status == Status::Inconclusive {
        // The bound the interval crosses is the one to settle; crossing both, the one
        // nearer the estimate on the log scale the interval is taken on.
        let (over, under) = (high > hi_bound, low < lo_bound);
        let bound = match (over, under) {
            (true, false) => hi_bound,
            (false, true) => lo_bound,
            _ if (hi_bound / r.estimate).ln().abs() <= (r.estimate / lo_bound).ln().abs() => {
                hi_bound
            }
            _ => lo_bound,
        };
        note.push_str(&match r.runs_to_settle(bound) {
            Settle::Runs(k) => format!(
                "; it straddles {:+.0}%: about {k} runs of each variant would settle it at the spread seen",
                (bound - 1.0) * 100.0
            ),
            _ if r.n_base == 1 && r.n_cand == 1 => format!(
                "; it straddles {:+.0}%: {}",
                (bound - 1.0) * 100.0,
                crate::suites::kv_common::within::UNSETTLED
            ),
            _ => format!("; it straddles {:+.0}%", (bound - 1.0) * 100.0),
        });
    }
    Some(Judged {
        interval: crate::model::verdict::Interval {
            low: (low - 1.0) * 100.0,
            high: (high - 1.0) * 100.0,
            level: 0.95,
            method: method.name().to_string(),
            runs: vec![r.n_base, r.n_cand],
        },
        status,
        note,
    })
}

fn hits_verdict(all: &[(String, (String, Vec<Attempt>))], share: f64) -> Verdict {
    let mut v = Verdict {
        files: all.iter().map(|(_, (f, _))| f.clone()).collect(),
        ..Verdict::new(
            "kv-dram.restores-hit",
            "Every restore (after reset or restart) is served from cache, >= 99% of prompt_tokens",
            phrase!(">= {}", qty(share * 100.0, 0, Unit::Percent)),
            Phrase::dash(),
        )
    }
    .with_numbers(
        None,
        Some(share * 100.0),
        None,
        UnitOf::new(Unit::Percent, "of restores hit"),
    );
    if all.is_empty() {
        v.note = "no dram/<variant>-warm.txt or -restart.txt transcripts".into();
        return v;
    }
    let mut misses = Vec::new();
    let mut failed = Vec::new();
    let mut count = 0;
    for (name, (file, attempts)) in all {
        for a in attempts.iter().skip(1) {
            count += 1;
            if let Some(why) = &a.failed {
                failed.push(format!("{name} `{file}` line {}: {why}", a.line));
                continue;
            }
            let ok = matches!((a.prompt_tokens, a.cached), (Some(p), Some(c)) if p > 0 && c as f64 >= share * p as f64);
            if !ok {
                misses.push(format!(
                    "{name} `{file}` line {}: {} of {} cached",
                    a.line,
                    a.cached.map_or("null".into(), |c| c.to_string()),
                    a.prompt_tokens.unwrap_or(0)
                ));
            }
        }
    }
    let hit = count - misses.len() - failed.len();
    v.set_measured((count > 0).then(|| hit as f64 * 100.0 / count as f64));
    v.measured = phrase!(
        "{} of {} restores hit{}",
        count_of(hit),
        count_of(count),
        if failed.is_empty() {
            Phrase::default()
        } else {
            phrase!(", {} failed", count_of(failed.len()))
        }
    );
    v.status = if count == 0 {
        Status::NotMeasured
    } else if !misses.is_empty() {
        Status::Fail
    } else if !failed.is_empty() {
        Status::Inconclusive
    } else {
        Status::Pass
    };
    let mut note = misses;
    if !failed.is_empty() {
        note.push(format!(
            "failed requests measure nothing: {}",
            failed.join("; ")
        ));
    }
    v.note = note.join("; ");
    v
}

fn attempts_table(all: &[(String, (String, Vec<Attempt>))]) -> Table {
    let mut rows = Vec::new();
    for (name, (file, attempts)) in all {
        for (i, a) in attempts.iter().enumerate() {
            rows.push(vec![
                Phrase::text(name),
                Phrase::count(i + 1),
                if i == 0 {
                    "first send".into()
                } else {
                    "restore".into()
                },
                Phrase::opt(a.seconds, 3),
                a.prompt_tokens.map_or(Phrase::dash(), Phrase::count),
                a.cached.map_or("null".into(), Phrase::count),
                phrase!(
                    "{}:{}",
                    phrase::name(file),
                    phrase::name(a.line.to_string())
                ),
            ]);
        }
    }
    Table {
        title: "Test 3 requests, in order".into(),
        columns: [
            "check",
            "#",
            "request",
            "time s",
            "prompt tokens",
            "cached",
            "from",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: Vec::new(),
    }
}

/// LMCache's own lines in its vLLM log: what it retrieved and how fast.
fn lmcache_observation(catalog: &Catalog) -> Option<Observation> {
    let logs = kv_common::server_logs(catalog, &mut Vec::new());
    let (file, log) = logs.by_variant.get(LMCACHE)?;
    if log.lmcache_retrievals.is_empty() && log.lmcache_hits.is_empty() {
        return None;
    }
    let got: u64 = log.lmcache_retrievals.iter().map(|r| r.0).sum();
    let need: u64 = log.lmcache_retrievals.iter().map(|r| r.1).sum();
    let ms: Vec<f64> = log
        .lmcache_retrievals
        .iter()
        .map(|r| r.2)
        .filter(|m| m.is_finite())
        .collect();
    Some(Observation {
        id: "kv-dram.lmcache-retrievals".into(),
        what: "LMCache retrievals logged by the lmcache variant".into(),
        measured: phrase!(
            "{} retrievals, {} of {} required tokens retrieved, median {} ms; {} adapter hit lines",
            count_of(log.lmcache_retrievals.len()),
            count_of(got),
            count_of(need),
            crate::suites::kv_common::stats::median(&ms)
                .map_or(Phrase::dash(), |m| phrase!("{}", fixed(m, 0))),
            count_of(log.lmcache_hits.len())
        ),
        published: Phrase::dash(),
        files: vec![file.clone()],
        note: String::new(),
    })
}

/// Warm and after-restart restores: measured and published, both variants.
fn chart(values: &[[Option<f64>; 4]]) -> Option<Chart> {
    if values.len() != 2 {
        return None;
    }
    let names = [
        "connector alone",
        "LMCache",
        "connector published",
        "LMCache published",
    ];
    let c = Chart {
        id: "kv-dram-restores".into(),
        title: "Restore time: connector alone vs LMCache with a DRAM tier".into(),
        kind: Kind::Bar,
        x_label: String::new(),
        y_label: "seconds".into(),
        categories: vec![
            "warm (after reset_prefix_cache)".into(),
            "after a vLLM restart".into(),
        ],
        series: (0..4)
            .map(|k| Series {
                name: names[k].into(),
                values: values.iter().map(|v| v[k]).collect(),
                published: k >= 2,
                spread: Vec::new(),
            })
            .collect(),
        lines: Vec::new(),
    };
    c.has_data().then_some(c)
}
