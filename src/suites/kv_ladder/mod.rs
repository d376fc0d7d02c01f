//! Test 2, the multi-turn agent load ladder: plain vLLM vs the connector at 1 to 32
//! clients, with the procedure script's table, per-run and median results, and criteria.

use crate::chart::{Chart, Kind, Series};
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog, Kind as FileKind};
use crate::suites::kv_common::aggregate::{
    failing_runs, fed_by, too_spread, Aggregate, GEN, GPU_HIT, OUTPUT, RATES, RATES_AND_TTFT, TTFT,
};
use crate::suites::kv_common::ladder::{self, Level};
use crate::suites::kv_common::reference::KvReference;
use crate::suites::kv_common::stats::median;
use crate::suites::kv_common::{self, ADP, PLAIN};
use crate::suites::{Options, Preformatted, Suite, SuiteInfo, SuiteReport, Table};
use crate::verdict::{Observation, Status, Verdict};

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
        matches!(i.kind, Kind::ClientRecords | Kind::ClientLog | Kind::Prometheus).then(|| {
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
        let mut report = SuiteReport::for_suite(self);
        let Some(reference) = KvReference::load_or_note(&mut report) else {
            return report;
        };
        let r = &reference.ladder;
        let sla = opts.sla_gen_tok_s.unwrap_or(r.sla_gen_tok_s);
        let max_spread = opts.max_spread.unwrap_or(r.max_spread);
        let levels = kv_common::levels(catalog, skipped);
        report.measurements = kv_common::measurements::ladder(&levels, INFO.name);
        let logs = kv_common::server_logs(catalog, skipped);
        report.parameters = kv_common::measurements::server_parameters(&logs);
        report.files_read = levels.iter().flat_map(|l| l.files.clone()).collect();
        report
            .files_read
            .extend(logs.by_variant.get(ADP).map(|(f, _)| f.clone()));

        let agg = Aggregate::of(&levels);
        let (built, problems) = agg.frames();
        frames.extend(built);
        report.notes.extend(problems);
        for (variant, runs) in agg.runs_per_variant() {
            if (variant == ADP || variant == PLAIN) && runs < r.min_runs {
                report.notes.push(format!(
                    "`{variant}` has {runs} run(s); the procedure asks for at least {} per variant, alternating on a freshly started server",
                    r.min_runs
                ));
            }
        }
        for &n in &r.small_levels {
            report
                .verdicts
                .push(parity_verdict(&agg, n, r.small_min_ratio, max_spread));
        }
        for &n in &r.large_levels {
            report.verdicts.push(advantage_verdict(&agg, n, max_spread));
        }
        report.verdicts.push(failures_verdict(&levels));
        report.verdicts.push(turned_off_verdict(&logs));
        let devs = kv_common::deviations::ladder(&levels, &[ADP, PLAIN], r, |n| {
            vec![
                format!("kv-ladder.L{n}-parity"),
                format!("kv-ladder.L{n}-advantage"),
            ]
        });
        crate::deviation::apply(&mut report.verdicts, &devs);
        report.deviations = crate::deviation::merge(devs);
        report.commands_ran = kv_common::deviations::commands_ran(&levels, &[ADP, PLAIN]);
        report
            .observations
            .extend(fill_observation(&agg, r.fill_level));
        report.observations.push(sla_observation(&agg, sla));
        report.observations.extend(engine_observation(&logs));
        report.preformatted.push(script_table(&levels));
        report.tables.push(runs_table(&levels));
        report.tables.push(median_table(&agg, max_spread));
        report.charts = charts(&agg, sla);
        report.facts = kv_common::facts(&logs, kv_common::model_name(catalog, &logs).as_ref());
        report
    }
}

fn base(id: String, criterion: String) -> Verdict {
    Verdict::new(
        id,
        criterion,
        "-",
        "pass criteria only (synthetic workload)",
    )
}

fn parity_verdict(agg: &Aggregate, n: u32, min_ratio: f64, max_spread: f64) -> Verdict {
    let mut v = base(
        format!("kv-ladder.L{n}-parity"),
        format!("{n} client(s): ADP within 10% of plain vLLM in output tok/s and gen tok/s"),
    );
    v.threshold = format!(">= {min_ratio:.2}x in both");
    v = v.with_numbers(
        None,
        Some(min_ratio),
        None,
        "x (the lower of output and gen)",
    );
    v.files = agg.files(&[ADP, PLAIN], n);
    let (ao, _) = agg.metric(ADP, n, OUTPUT);
    let (po, _) = agg.metric(PLAIN, n, OUTPUT);
    let (ag, _) = agg.metric(ADP, n, GEN);
    let (pg, _) = agg.metric(PLAIN, n, GEN);
    let (Some(ao), Some(po), Some(ag), Some(pg)) = (ao, po, ag, pg) else {
        return no_medians(v, agg, n);
    };
    let (ro, rg) = (ao / po, ag / pg);
    v.set_measured(Some(ro.min(rg)));
    v.measured = format!("output {ro:.2}x ({ao:.1} vs {po:.1}), gen {rg:.2}x ({ag:.1} vs {pg:.1})");
    let fed = format!("medians of {}", fed_by(agg, &[ADP, PLAIN], n));
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    let spread = too_spread(agg, &[ADP, PLAIN], n, max_spread, RATES);
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
    } else if ro >= min_ratio && rg >= min_ratio {
        (Status::Pass, fed)
    } else {
        (Status::Fail, fed)
    };
    v
}

/// A level without medians for both variants: failed when a run of it failed (a failing
/// run is never averaged away, and never left unjudged), else not measured.
fn no_medians(mut v: Verdict, agg: &Aggregate, n: u32) -> Verdict {
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    if failing.is_empty() {
        v.note = format!("needs the {n}-client level of both adp and gpu-only with records");
    } else {
        v.status = Status::Fail;
        v.note = format!(
            "a run of this level failed: {}; {}",
            failing.join("; "),
            fed_by(agg, &[ADP, PLAIN], n)
        );
    }
    v
}

fn advantage_verdict(agg: &Aggregate, n: u32, max_spread: f64) -> Verdict {
    let mut v = base(
        format!("kv-ladder.L{n}-advantage"),
        format!("{n} clients: with ADP higher output and gen tok/s, lower TTFT p50, card hits > 0"),
    );
    v.threshold = "all four".into();
    v = v.with_numbers(None, Some(4.0), None, "of 4 conditions met");
    v.files = agg.files(&[ADP, PLAIN], n);
    let m = |var, f| agg.metric(var, n, f).0;
    let (Some(ao), Some(po), Some(ag), Some(pg), Some(at), Some(pt)) = (
        m(ADP, OUTPUT),
        m(PLAIN, OUTPUT),
        m(ADP, GEN),
        m(PLAIN, GEN),
        m(ADP, TTFT),
        m(PLAIN, TTFT),
    ) else {
        return no_medians(v, agg, n);
    };
    let card: Vec<f64> = agg
        .runs(ADP, n)
        .iter()
        .filter_map(|l| l.card_hits)
        .collect();
    v.measured = format!(
        "output {:.2}x, gen {:.2}x, TTFT {at:.2} vs {pt:.2} s, card hits {}",
        ao / po,
        ag / pg,
        if card.is_empty() {
            "-".to_string()
        } else {
            format!("{:.0} tokens", median(&card).unwrap_or(0.0))
        }
    );
    let mut missed = Vec::new();
    if ao <= po {
        missed.push("output tok/s not higher");
    }
    if ag <= pg {
        missed.push("gen tok/s not higher");
    }
    if at >= pt {
        missed.push("TTFT p50 not lower");
    }
    if card.is_empty() {
        missed.push("card hits not measured (no .prom snapshots)");
    } else if card.iter().any(|&c| c <= 0.0) {
        missed.push("no card hits in a run");
    }
    if !card.is_empty() {
        v.set_measured(Some(4.0 - missed.len() as f64));
    }
    let fed = format!("medians of {}", fed_by(agg, &[ADP, PLAIN], n));
    let failing = failing_runs(agg, &[ADP, PLAIN], n);
    let spread = too_spread(agg, &[ADP, PLAIN], n, max_spread, RATES_AND_TTFT);
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
    } else if missed.is_empty() {
        (Status::Pass, fed)
    } else if card.is_empty() && missed.len() == 1 {
        (Status::NotMeasured, format!("{}; {fed}", missed.join("; ")))
    } else {
        (Status::Fail, format!("{}; {fed}", missed.join("; ")))
    };
    v
}

fn failures_verdict(levels: &[Level]) -> Verdict {
    let mut v = base(
        "kv-ladder.failures".into(),
        "Both variants: every level finishes with num_failures=0".into(),
    );
    v.threshold = "0 at every level".into();
    v.published = "num_failures=0".into();
    v = v.with_numbers(None, Some(0.0), Some(0.0), "levels with failures");
    let mut bad = Vec::new();
    let mut unknown = Vec::new();
    let mut checked = 0;
    for l in levels
        .iter()
        .filter(|l| l.variant == ADP || l.variant == PLAIN)
    {
        let name = format!("{}-L{}", l.prefix, l.clients);
        let died = l.died.as_ref();
        match (l.failures, died) {
            (_, Some(d)) => bad.push(format!("{name}: the client died: {d}")),
            (Some(0), None) => checked += 1,
            (Some(f), None) => bad.push(format!("{name}: {f} failed requests")),
            (None, None) => unknown.push(name.clone()),
        }
        // Every log it counted, clean ones included.
        v.files
            .extend(l.files.iter().filter(|f| f.ends_with(".log")).cloned());
    }
    if checked + bad.len() > 0 {
        v.set_measured(Some(bad.len() as f64));
    }
    v.measured = format!(
        "{checked} clean, {} with failures, {} unknown",
        bad.len(),
        unknown.len()
    );
    v.status = if !bad.is_empty() {
        Status::Fail
    } else if !unknown.is_empty() || checked == 0 {
        Status::NotMeasured
    } else {
        Status::Pass
    };
    let mut note = bad;
    if !unknown.is_empty() {
        note.push(format!(
            "no `Client N is done` counts for {} (capture stderr too: `2>&1 | tee`)",
            unknown.join(", ")
        ));
    }
    v.note = note.join("; ");
    v
}

fn turned_off_verdict(logs: &kv_common::ServerLogs) -> Verdict {
    let mut v = base(
        "kv-ladder.connector-on".into(),
        "The ADP vLLM log never prints `External KV cache turned off on this rank`".into(),
    );
    v.threshold = "never".into();
    v.published = "never".into();
    v = v.with_numbers(None, Some(0.0), Some(0.0), "lines");
    let Some((file, log)) = logs.by_variant.get(ADP) else {
        v.note = "no ADP server log (logs/adp-vllm.log)".into();
        return v;
    };
    v.files.push(file.clone());
    v.set_measured(Some(log.turned_off.len() as f64));
    v.measured = format!("{} times", log.turned_off.len());
    if log.turned_off.is_empty() {
        v.status = Status::Pass;
    } else {
        v.status = Status::Fail;
        let lines: Vec<String> = log.turned_off.iter().map(|l| l.to_string()).collect();
        v.note = format!(
            "`{file}` line(s) {}: the connector switched itself off",
            lines.join(", ")
        );
    }
    v
}

fn fill_observation(agg: &Aggregate, fill: u32) -> Option<Observation> {
    let half = fill / 2;
    let before = agg.metric(PLAIN, half, GPU_HIT).0;
    let at = agg.metric(PLAIN, fill, GPU_HIT).0;
    let has = |n: u32| !agg.runs(PLAIN, n).is_empty();
    if !has(half) && !has(fill) {
        return None;
    }
    let f = |x: Option<f64>| x.map_or("-".into(), |p| format!("{p:.0} %"));
    let measured = match (before, at) {
        (Some(b), Some(a)) => format!(
            "gpu-only GPU hit {} at {half} clients, {} at {fill}{}",
            f(Some(b)),
            f(Some(a)),
            if a < b {
                " (dropped)"
            } else {
                " (did not drop)"
            }
        ),
        _ => {
            let missing: Vec<String> = [half, fill]
                .into_iter()
                .filter(|&n| agg.metric(PLAIN, n, GPU_HIT).0.is_none())
                .map(|n| {
                    if has(n) {
                        format!("no GPU hit rate at {n} clients (no .prom snapshots?)")
                    } else {
                        format!("no {n}-client level of gpu-only")
                    }
                })
                .collect();
            format!("not measured: {}", missing.join("; "))
        }
    };
    let mut files = agg.files(&[PLAIN], half);
    files.extend(agg.files(&[PLAIN], fill));
    Some(Observation {
        id: "kv-ladder.gpu-fill".into(),
        what: format!(
            "{fill} clients: the GPU cache fills and plain vLLM's GPU hit rate begins to drop"
        ),
        measured,
        published: "begins to drop at 8 clients on the reference setup".into(),
        files,
        note: String::new(),
    })
}

fn sla_observation(agg: &Aggregate, sla: f64) -> Observation {
    let describe = |variant: &str| -> String {
        let levels: Vec<(u32, f64)> = agg
            .levels_of(variant)
            .into_iter()
            .filter_map(|n| agg.metric(variant, n, GEN).0.map(|g| (n, g)))
            .collect();
        let Some(&(top, _)) = levels.last() else {
            return "no data".into();
        };
        let meeting: Vec<u32> = levels
            .iter()
            .filter(|(_, g)| *g >= sla)
            .map(|(n, _)| *n)
            .collect();
        match meeting.iter().max() {
            None => format!(
                "below the SLA at every level measured (from {} clients)",
                levels[0].0
            ),
            Some(&n) if n == top => {
                format!("at least {n} clients (the highest level measured still meets it)")
            }
            Some(&n) => format!("{n} clients"),
        }
    };
    Observation {
        id: "kv-ladder.sla".into(),
        what: format!("Highest client count keeping gen tok/s >= {sla} per request (SLA)"),
        measured: format!("adp: {} · gpu-only: {}", describe(ADP), describe(PLAIN)),
        published: "20 tok/s per request (50 ms/token) in published comparisons".into(),
        files: [ADP, PLAIN]
            .iter()
            .flat_map(|v| {
                agg.levels_of(v)
                    .into_iter()
                    .flat_map(|n| agg.files(&[v], n))
            })
            .collect(),
        note: "compare the two variants, not absolute numbers: the workload is synthetic".into(),
    }
}

fn script_table(levels: &[Level]) -> Preformatted {
    let mut lines = vec![ladder::script_header()];
    let mut notes = Vec::new();
    for l in levels {
        match &l.script_line {
            Ok(line) => lines.push(line.clone()),
            Err(why) => notes.push(format!("`{}-L{}`: {why}", l.prefix, l.clients)),
        }
    }
    notes.push("card hit is the connector's hits over its queries; in vLLM 0.33 those queries count only the tokens the GPU cache missed, so it is a share of the misses, not of all prompt tokens".into());
    Preformatted {
        title: "The procedure's table, as its script prints it".into(),
        text: lines.join("\n"),
        notes,
    }
}

fn opt(x: Option<f64>, prec: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.prec$}"))
}

fn runs_table(levels: &[Level]) -> Table {
    let rows = levels
        .iter()
        .map(|l| {
            vec![
                format!("{}-{}", l.variant, l.run),
                l.clients.to_string(),
                l.requests.map_or("-".into(), |r| r.to_string()),
                opt(l.output_tok_s, 1),
                opt(l.ttft_p50_s, 2),
                opt(l.gen_tok_s, 1),
                l.gpu_hit_pct.map_or("-".into(), |p| format!("{p:.0} %")),
                l.card_hit_pct.map_or("-".into(), |p| format!("{p:.0} %")),
                l.failures.map_or("-".into(), |f| f.to_string()),
                l.problems.join("; "),
            ]
        })
        .collect();
    Table {
        title: "Every run and level".into(),
        columns: ladder::SCRIPT_COLUMNS
            .iter()
            .chain(&["failures", "problems"])
            .map(|c| c.to_string())
            .collect(),
        rows,
        notes: Vec::new(),
    }
}

fn median_table(agg: &Aggregate, max_spread: f64) -> Table {
    let mut levels: Vec<u32> = agg.by.keys().map(|(_, n)| *n).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut rows = Vec::new();
    for n in levels {
        let m = |v: &str, f| agg.metric(v, n, f).0;
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
            _ => "-".into(),
        };
        let spread = too_spread(agg, &[ADP, PLAIN], n, max_spread, RATES_AND_TTFT);
        rows.push(vec![
            n.to_string(),
            opt(m(ADP, OUTPUT), 1),
            opt(m(PLAIN, OUTPUT), 1),
            ratio(m(ADP, OUTPUT), m(PLAIN, OUTPUT)),
            opt(m(ADP, GEN), 1),
            opt(m(PLAIN, GEN), 1),
            ratio(m(ADP, GEN), m(PLAIN, GEN)),
            opt(m(ADP, TTFT), 2),
            opt(m(PLAIN, TTFT), 2),
            format!("{}/{}", agg.runs(ADP, n).len(), agg.runs(PLAIN, n).len()),
            if spread.is_empty() {
                String::new()
            } else {
                spread.join("; ")
            },
        ]);
    }
    Table {
        title: "Median across runs: adp vs gpu-only".into(),
        columns: [
            "clients",
            "adp out tok/s",
            "plain out tok/s",
            "ratio",
            "adp gen tok/s",
            "plain gen tok/s",
            "ratio",
            "adp TTFT s",
            "plain TTFT s",
            "runs",
            "spread",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: vec![format!(
            "runs differing by more than {:.0}% make a level inconclusive",
            max_spread * 100.0
        )],
    }
}

/// What the servers' periodic `Engine 000:` lines said, per variant.
fn engine_observation(logs: &kv_common::ServerLogs) -> Option<Observation> {
    let mut parts = Vec::new();
    let mut files = Vec::new();
    for (variant, (file, log)) in &logs.by_variant {
        if log.engine_stats.is_empty() {
            continue;
        }
        let peak = |f: fn(&crate::parse::vllm_log::EngineStats) -> Option<f64>| {
            log.engine_stats
                .iter()
                .filter_map(f)
                .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
        };
        let fmt = |x: Option<f64>, unit: &str| x.map_or("-".into(), |v| format!("{v:.1}{unit}"));
        parts.push(format!(
            "{variant}: {} stats lines, peak GPU KV cache usage {}, peak waiting {}, last external hit rate {}",
            log.engine_stats.len(),
            fmt(peak(|e| e.gpu_kv_usage_pct), "%"),
            fmt(peak(|e| e.waiting), " reqs"),
            fmt(log.engine_stats.iter().rev().find_map(|e| e.external_hit_pct), "%"),
        ));
        files.push(file.clone());
    }
    (!parts.is_empty()).then(|| Observation {
        id: "kv-ladder.engine-stats".into(),
        what: "The servers' periodic engine stats".into(),
        measured: parts.join(" · "),
        published: "-".into(),
        files,
        note: "hit rates in these lines cover the last 1,000 requests".into(),
    })
}

/// Output tok/s, TTFT p50 and gen tok/s against clients, median per variant.
fn charts(agg: &Aggregate, sla: f64) -> Vec<Chart> {
    let mut levels: Vec<u32> = agg.by.keys().map(|(_, n)| *n).collect();
    levels.sort_unstable();
    levels.dedup();
    let variants: Vec<&str> = [ADP, PLAIN]
        .into_iter()
        .filter(|v| !agg.levels_of(v).is_empty())
        .collect();
    let make = |id: &str, title: &str, y: &str, f: &str, lines: Vec<(String, f64)>| Chart {
        id: format!("kv-ladder-{id}"),
        title: title.to_string(),
        kind: Kind::Line,
        x_label: "concurrent clients".into(),
        y_label: y.to_string(),
        categories: levels.iter().map(|n| n.to_string()).collect(),
        series: variants
            .iter()
            .map(|v| Series {
                name: v.to_string(),
                values: levels.iter().map(|&n| agg.metric(v, n, f).0).collect(),
                published: false,
            })
            .collect(),
        lines,
    };
    let mut out = vec![
        make(
            "output",
            "Output throughput (median across runs)",
            "output tok/s",
            OUTPUT,
            Vec::new(),
        ),
        make(
            "ttft",
            "Time to first token, p50 (median across runs)",
            "seconds",
            TTFT,
            Vec::new(),
        ),
        make(
            "gen",
            "Generation rate per request (median across runs)",
            "gen tok/s",
            GEN,
            vec![(format!("SLA {sla} tok/s"), sla)],
        ),
    ];
    out.retain(Chart::has_data);
    out
}
