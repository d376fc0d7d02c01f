//! Test 1, long-context restore: the same long prompt after a vLLM restart, recomputed by
//! plain vLLM and restored from the card by the connector.

use crate::chart::{Chart, Kind, Series};
use crate::ingest::walk::Skipped;
use crate::ingest::{layout, Catalog};
use crate::parse::ask::Attempt;
use crate::suites::kv_common::reference::{KvReference, ModelRef};
use crate::suites::kv_common::restore::{measured, Measured};
use crate::suites::kv_common::{self, ServerLogs, ADP, PLAIN};
use crate::suites::{Options, Suite, SuiteInfo, SuiteReport, Table};
use crate::verdict::{Observation, Status, Verdict};

mod limits;

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
        item.kind == crate::ingest::Kind::Ask
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
        let mut report = SuiteReport::for_suite(self);
        let Some(reference) = KvReference::load_or_note(&mut report) else {
            return report;
        };
        let logs = kv_common::server_logs(catalog, skipped);
        report.parameters = kv_common::measurements::server_parameters(&logs);
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
        report.files_read = transcripts.values().map(|(f, _)| f.clone()).collect();
        report
            .files_read
            .extend(logs.by_variant.values().map(|(f, _)| f.clone()));
        report.files_read.extend(logs.gateway.clone());

        let model = kv_common::model_name(catalog, &logs);
        // A named model has published numbers only if the procedure publishes it; with
        // no model named, the procedure's main model is assumed, and said.
        let published = match &model {
            Some((m, _)) => reference.model(m),
            None => reference.model(&reference.restore.default_model),
        };
        let mut model_devs = model_deviations(&mut report, &reference, model.as_ref(), published);

        let recompute = plain.as_ref().map(|(f, a)| measured(f, a, 0));
        let restore = adp.as_ref().map(|(f, a)| measured(f, a, 1));

        report
            .verdicts
            .push(cached_verdict(adp.as_ref(), &reference));
        report.verdicts.push(time_verdict(
            recompute.as_ref(),
            restore.as_ref(),
            &reference,
            published,
        ));
        if let (Some(transcript), Some(restore)) = (adp.as_ref(), restore.as_ref()) {
            report
                .limits
                .push(limits::restore_floor(limits::RestoreInputs {
                    transcript,
                    restore,
                    log: logs.by_variant.get(ADP),
                    link: crate::why::setup::link(catalog),
                }));
        }
        report.verdicts.push(plain_cold_verdict(plain.as_ref()));
        report.verdicts.push(kv_size_verdict(&logs));
        report.verdicts.push(connector_verdict(&logs));
        report.observations = observations(&logs, published, restore.as_ref(), recompute.as_ref());
        for r in [&recompute, &restore].into_iter().flatten() {
            if let Some(n) = &r.warmup_note {
                report.notes.push(n.clone());
            }
        }
        report
            .tables
            .push(attempts_table(plain.as_ref(), adp.as_ref()));
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
        let devs = model_devs;
        crate::deviation::apply(&mut report.verdicts, &devs);
        crate::deviation::annotate(&mut report.observations, &devs);
        report.deviations = crate::deviation::merge(devs);
        report.commands_ran = kv_common::deviations::server_commands(&logs);
        report
            .charts
            .extend(chart(recompute.as_ref(), restore.as_ref(), published));
        report
    }
}

/// The model under test as a note, and a deviation when the procedure publishes nothing
/// for it.
fn model_deviations(
    report: &mut SuiteReport,
    reference: &KvReference,
    model: Option<&(String, String)>,
    published: Option<&ModelRef>,
) -> Vec<crate::deviation::Deviation> {
    let mut model_devs = Vec::new();
    if let Some((m, from)) = model {
        report.notes.push(format!("model `{m}` (from `{from}`)"));
        if published.is_none() {
            model_devs.push(
                crate::deviation::Deviation::new(
                    "model",
                    "GLM-5.3, DeepSeek-V4-Flash, MiniMax M3 or Kimi-Linear",
                    m.clone(),
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
            .map_or("missing".into(), |g| format!("present: `{g}`")),
        published: "-".into(),
        files: logs.gateway.iter().cloned().collect(),
        note: String::new(),
    });
    if let Some(m) = published {
        out.push(Observation {
            id: "kv-restore.published".into(),
            what: format!(
                "{}: restore vs recompute, ~{} tokens",
                m.title, m.prompt_tokens
            ),
            measured: format!(
                "restore {} · recompute {}",
                restore
                    .as_ref()
                    .and_then(|r| r.median)
                    .map_or("-".into(), |s| format!("{s:.2} s")),
                recompute
                    .as_ref()
                    .and_then(|r| r.median)
                    .map_or("-".into(), |s| format!("{s:.2} s"))
            ),
            published: format!(
                "restore {:.2} s · recompute {:.2} s",
                m.restore_s, m.recompute_s
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

fn verdict(id: &str, criterion: &str) -> Verdict {
    Verdict::new(format!("kv-restore.{id}"), criterion, "-", "-")
}

fn cached_verdict(adp: Option<&(String, Vec<Attempt>)>, reference: &KvReference) -> Verdict {
    let share = reference.restore.min_cached_share;
    let mut v = verdict(
        "cached",
        "After every restart, cached is at least 99% of prompt_tokens",
    );
    v.threshold = format!(">= {:.0}% of prompt_tokens", share * 100.0);
    v.published = "196,480 of 196,531 tokens (whole 128-token chunks)".into();
    v = v.with_numbers(
        None,
        Some(share * 100.0),
        Some(196_480.0 * 100.0 / 196_531.0),
        "% of prompt_tokens (lowest restore)",
    );
    let Some((file, attempts)) = adp else {
        v.note = "no ADP transcript (restore/adp.txt)".into();
        return v;
    };
    v.files.push(file.clone());
    let restores: Vec<&Attempt> = attempts.iter().skip(1).collect();
    if restores.is_empty() {
        v.note =
            format!("`{file}` has only the cold request; the restores after restarts are missing");
        return v;
    }
    let mut worst: Option<f64> = None;
    let mut misses = Vec::new();
    let mut failed = Vec::new();
    let mut unreported = Vec::new();
    for a in &restores {
        if let Some(why) = &a.failed {
            failed.push(format!("line {}: {why}", a.line));
            continue;
        }
        match (a.prompt_tokens, a.cached) {
            (Some(p), Some(c)) if p > 0 => {
                let s = c as f64 / p as f64;
                worst = Some(worst.map_or(s, |w: f64| w.min(s)));
                if s < share {
                    misses.push(format!("line {}: {c} of {p} cached", a.line));
                }
            }
            (Some(_), None) => unreported.push(format!("line {}", a.line)),
            _ => failed.push(format!("line {}: no prompt tokens", a.line)),
        }
    }
    let measured_n = restores.len() - failed.len() - unreported.len();
    v.set_measured(worst.map(|w| w * 100.0));
    v.measured = worst.map_or("-".into(), |w| {
        format!(
            "lowest {:.2}% ({measured_n} of {} restores measured)",
            w * 100.0,
            restores.len()
        )
    });
    let mut note = Vec::new();
    if !misses.is_empty() {
        note.push(format!(
            "restores that missed the cache: {}",
            misses.join("; ")
        ));
    }
    if !failed.is_empty() {
        note.push(format!(
            "failed requests measure nothing: {}",
            failed.join("; ")
        ));
    }
    if !unreported.is_empty() {
        note.push(format!(
            "cached is null at {}: the server does not report cached tokens (start vLLM with --enable-prompt-tokens-details)",
            unreported.join(", ")
        ));
    }
    v.note = note.join("; ");
    // Pass needs every restore measured and hitting; one real miss is a failure; failed
    // or unreported requests leave the rest unknown.
    v.status = if !misses.is_empty() {
        Status::Fail
    } else if !failed.is_empty() {
        Status::Inconclusive
    } else if !unreported.is_empty() {
        Status::NotMeasured
    } else {
        Status::Pass
    };
    v
}

fn time_verdict(
    recompute: Option<&Measured>,
    restore: Option<&Measured>,
    reference: &KvReference,
    published: Option<&crate::suites::kv_common::reference::ModelRef>,
) -> Verdict {
    let r = &reference.restore;
    let mut v = verdict(
        "time",
        "Restore time is at most one-fifth of recompute time (or 5 s, whichever is larger)",
    );
    v.threshold = format!(
        "<= max(recompute / {:.0}, {:.0} s)",
        r.restore_vs_recompute, r.restore_floor_s
    );
    v = v.with_numbers(
        None,
        None,
        published.map(|m| m.restore_s),
        "s (slowest restore)",
    );
    if let Some(m) = published {
        v.published = format!(
            "{}: {:.2} s vs {:.2} s",
            m.title, m.restore_s, m.recompute_s
        );
    }
    v.files.extend(recompute.map(|m| m.file.clone()));
    v.files.extend(restore.map(|m| m.file.clone()));
    let failed: Vec<String> = [recompute, restore]
        .into_iter()
        .flatten()
        .flat_map(|m| m.failed.iter().map(move |f| format!("`{}` {f}", m.file)))
        .collect();
    // Every restore must be fast: the slowest one is judged (the median is shown too).
    let slowest = restore.and_then(|m| m.used.iter().copied().reduce(f64::max));
    let (Some(rc), Some(rs)) = (recompute.and_then(|m| m.median), slowest) else {
        v.note = "needs timed recomputes (restore/gpu-only.txt) and timed restores after the cold request (restore/adp.txt)".into();
        return v;
    };
    let limit = (rc / r.restore_vs_recompute).max(r.restore_floor_s);
    v.set_measured(Some(rs));
    v.threshold_value = Some(limit);
    let typical = restore.and_then(|m| m.median).unwrap_or(rs);
    v.measured = format!(
        "slowest restore {rs:.2} s (median {typical:.2} s) vs recompute {rc:.2} s (limit {limit:.2} s)"
    );
    v.status = if rs > limit {
        Status::Fail
    } else if !failed.is_empty() {
        // A failed restore may have been the slow one: the criterion cannot pass.
        v.note = format!(
            "failed requests left out of the times, so every restore cannot be judged: {}",
            failed.join("; ")
        );
        Status::Inconclusive
    } else {
        Status::Pass
    };
    v
}

fn plain_cold_verdict(plain: Option<&(String, Vec<Attempt>)>) -> Verdict {
    let mut v = verdict(
        "plain-recomputes",
        "Without ADP every request recomputes: cached is 0",
    );
    v.threshold = "cached = 0".into();
    v.published = "cached is 0".into();
    v = v.with_numbers(None, Some(0.0), Some(0.0), "requests with cached > 0");
    let Some((file, attempts)) = plain else {
        v.note = "no plain-vLLM transcript (restore/gpu-only.txt)".into();
        return v;
    };
    v.files.push(file.clone());
    let failed: Vec<String> = attempts
        .iter()
        .filter_map(|a| a.failed.as_ref().map(|f| format!("line {}: {f}", a.line)))
        .collect();
    let unreported: Vec<String> = attempts
        .iter()
        .filter(|a| a.failed.is_none() && a.cached.is_none())
        .map(|a| format!("line {}", a.line))
        .collect();
    let hits: Vec<String> = attempts
        .iter()
        .filter(|a| a.cached.is_some_and(|c| c > 0))
        .map(|a| format!("line {}: {} cached", a.line, a.cached.unwrap_or(0)))
        .collect();
    let zero = attempts.iter().filter(|a| a.cached == Some(0)).count();
    let answered = attempts.iter().filter(|a| a.cached.is_some()).count();
    // Only requests that answered say anything about cached tokens.
    if answered > 0 {
        v.set_measured(Some(hits.len() as f64));
        v.measured = format!("{zero} of {answered} answered requests with cached = 0");
        if answered < attempts.len() {
            v.measured += &format!(" ({} of {} failed)", failed.len(), attempts.len());
        }
    } else {
        v.measured = format!("- ({} of {} requests failed)", failed.len(), attempts.len());
    }
    (v.status, v.note) = if !hits.is_empty() {
        (
            Status::Fail,
            format!(
                "the restart did not clear GPU memory (or another cache answered): {}",
                hits.join("; ")
            ),
        )
    } else if !failed.is_empty() {
        (
            Status::Inconclusive,
            format!("failed requests measure nothing: {}", failed.join("; ")),
        )
    } else if !unreported.is_empty() {
        (
            Status::NotMeasured,
            format!(
                "cached is null at {}: the server does not report cached tokens, so \"cached is 0\" cannot be checked (start vLLM with --enable-prompt-tokens-details)",
                unreported.join(", ")
            ),
        )
    } else {
        (Status::Pass, String::new())
    };
    v
}

fn kv_size_verdict(logs: &ServerLogs) -> Verdict {
    let mut v = verdict(
        "kv-cache-size",
        "The GPU KV cache size is the same in both variants",
    );
    v.threshold = "equal".into();
    v.published = "about 545,000 tokens on the reference setup (545,536)".into();
    v = v.with_numbers(None, Some(0.0), Some(0.0), "tokens (adp minus gpu-only)");
    let get = |variant: &str| {
        logs.by_variant
            .get(variant)
            .map(|(f, l)| (f.clone(), l.kv_cache_tokens))
    };
    let (a, p) = (get(ADP), get(PLAIN));
    v.files.extend(a.iter().map(|(f, _)| f.clone()));
    v.files.extend(p.iter().map(|(f, _)| f.clone()));
    match (a, p) {
        (Some((_, Some(x))), Some((_, Some(y)))) => {
            v.set_measured(Some(x as f64 - y as f64));
            // Which memory the engine says it is (the CPU backend logs `CPU KV cache`).
            let device = |variant: &str| {
                logs.by_variant
                    .get(variant)
                    .and_then(|(_, l)| l.kv_cache_device.clone())
            };
            let where_ = match (device(ADP), device(PLAIN)) {
                (Some(a), Some(p)) if a == p => format!(" ({a} KV cache)"),
                (Some(a), Some(p)) => format!(" (adp: {a}, gpu-only: {p} KV cache)"),
                _ => String::new(),
            };
            v.measured = format!("adp {x} · gpu-only {y} tokens{where_}");
            v.status = if x == y { Status::Pass } else { Status::Fail };
            if x != y {
                v.note =
                    "unequal GPU KV cache: the test would measure GPU memory, not the card".into();
            }
        }
        (a, p) => {
            v.note = format!(
                "needs the `GPU KV cache size` line in both logs/adp-vllm.log and logs/gpu-only-vllm.log (adp: {}, gpu-only: {})",
                describe(&a),
                describe(&p)
            );
        }
    }
    v
}

fn describe(x: &Option<(String, Option<u64>)>) -> &'static str {
    match x {
        None => "no log",
        Some((_, None)) => "no size line",
        Some((_, Some(_))) => "found",
    }
}

fn connector_verdict(logs: &ServerLogs) -> Verdict {
    let mut v = verdict(
        "connector",
        "The ADP variant logs that the connector registered",
    );
    v.threshold = "XKV: <N> cache tensors registered for exchange".into();
    v = v.with_numbers(None, Some(1.0), None, "registration lines");
    let Some((file, log)) = logs.by_variant.get(ADP) else {
        v.note = "no ADP server log (logs/adp-vllm.log)".into();
        return v;
    };
    v.files.push(file.clone());
    match &log.xkv_line {
        Some(line) => {
            v.set_measured(Some(1.0));
            v.measured = format!("{} tensors", log.xkv_tensors.unwrap_or(0));
            v.status = Status::Pass;
            v.note = line.clone();
        }
        None => match log.connectors.first() {
            // Another KV connector (vLLM's ExampleConnector in the real-engine tests):
            // restores are real, but not the card's.
            Some((line, name)) => {
                v.set_measured(Some(1.0));
                v.measured = format!("{name} created");
                v.status = Status::NotComparable;
                v.note = format!(
                    "not comparable (would have been pass): `{file}` line {line} creates the KV connector `{name}`, not the product's FusIOnXConnector: its restores are real, but not the card's"
                );
            }
            None => {
                v.set_measured(Some(0.0));
                v.measured = "not logged".into();
                v.status = Status::Fail;
                v.note =
                    "the connector did not register: restores cannot come from the card".into();
            }
        },
    }
    v
}

fn attempts_table(
    plain: Option<&(String, Vec<Attempt>)>,
    adp: Option<&(String, Vec<Attempt>)>,
) -> Table {
    let mut rows = Vec::new();
    for (variant, data) in [(PLAIN, plain), (ADP, adp)] {
        let Some((file, attempts)) = data else {
            continue;
        };
        for (i, a) in attempts.iter().enumerate() {
            let role = match (variant, i, &a.failed) {
                (_, _, Some(why)) => format!("FAILED: {why}"),
                (ADP, 0, _) => "cold: computed and written to the card".into(),
                (ADP, _, _) => "after restart: restored".into(),
                _ => "recompute".into(),
            };
            rows.push(vec![
                variant.to_string(),
                (i + 1).to_string(),
                role,
                a.seconds.map_or("-".into(), |s| format!("{s:.3}")),
                a.prompt_tokens.map_or("-".into(), |p| p.to_string()),
                a.cached.map_or("null".into(), |c| c.to_string()),
                match (a.prompt_tokens, a.cached) {
                    (Some(p), Some(c)) if p > 0 => format!("{:.2}%", 100.0 * c as f64 / p as f64),
                    _ => "-".into(),
                },
                format!("{file}:{}", a.line),
            ]);
        }
    }
    Table {
        title: "Test 1 requests, in order".into(),
        columns: [
            "variant",
            "#",
            "request",
            "time s",
            "prompt tokens",
            "cached",
            "cached %",
            "from",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: vec!["With max_tokens 1 the response time is the time to first token.".into()],
    }
}

/// Restore and recompute, measured beside the published values for the model.
fn chart(
    recompute: Option<&Measured>,
    restore: Option<&Measured>,
    published: Option<&crate::suites::kv_common::reference::ModelRef>,
) -> Option<Chart> {
    let title = published.map_or("the model".to_string(), |m| m.title.clone());
    let c = Chart {
        id: "kv-restore-times".into(),
        title: format!("{title}: time to first token after a restart"),
        kind: Kind::Bar,
        x_label: String::new(),
        y_label: "seconds".into(),
        categories: vec!["measured".into(), "published".into()],
        series: vec![
            Series {
                name: "restore (ADP)".into(),
                values: vec![
                    restore.and_then(|m| m.median),
                    published.map(|m| m.restore_s),
                ],
                published: false,
            },
            Series {
                name: "recompute (plain)".into(),
                values: vec![
                    recompute.and_then(|m| m.median),
                    published.map(|m| m.recompute_s),
                ],
                published: false,
            },
        ],
        lines: Vec::new(),
    };
    c.has_data().then_some(c)
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
