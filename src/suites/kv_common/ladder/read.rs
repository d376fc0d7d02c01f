//! Reading one level from its files: the client's log, its per-request records, and
//! the line the procedure's script prints for it.

use std::collections::BTreeMap;

use crate::ingest::walk::Skipped;
use crate::ingest::{Item, Record};

use super::file_kinds::{as_client_log, as_records, as_series};
use super::hits::read_hits;
use super::{split_run, Level};

pub(super) fn median(v: Vec<f64>) -> Option<f64> {
    super::stats::median(&v)
}

pub(super) fn read_level(
    prefix: &str,
    clients: u32,
    files: [Option<&Item>; 6],
    skipped: &mut Vec<Skipped>,
) -> Level {
    let (variant, run) = split_run(prefix);
    let [json, log, pre, post, series, gpus] = files;
    let mut level = Level {
        prefix: prefix.to_string(),
        variant,
        run,
        clients,
        requests: None,
        output_tok_s: None,
        ttft_p50_s: None,
        ttft_s: Vec::new(),
        server_ttft: None,
        gen_tok_s: None,
        gpu_hit_pct: None,
        card_hit_pct: None,
        card_hits: None,
        preemptions: None,
        history: None,
        timeline: Vec::new(),
        gpus: Vec::new(),
        failures: None,
        runtime_sec: None,
        args: BTreeMap::new(),
        stopped_early: false,
        log_file: log.map(|e| e.rel.clone()),
        died: None,
        problems: Vec::new(),
        files: files.iter().flatten().map(|e| e.rel.clone()).collect(),
        script_line: Err(String::new()),
        within: None,
    };
    read_log(&mut level, log, skipped);
    if let Some(e) = gpus {
        match &e.record {
            Ok(Record::GpuSeries(s)) => level.gpus = super::timeline::gpu_points(s),
            Ok(_) => {}
            Err(err) => {
                level.problems.push(Item::error_text(err, &e.rel));
                skipped.push(e.skipped(err));
            }
        }
    }
    if let Some(e) = series {
        match as_series(e) {
            Ok(s) => level.timeline = super::timeline::points(s),
            Err(err) => {
                level.problems.push(Item::error_text(&err, &e.rel));
                skipped.push(e.skipped(&err));
            }
        }
    }
    let mut script_error = read_records(&mut level, json, skipped);
    let script_hits = read_hits(&mut level, pre, post, skipped);
    if script_hits.is_none() {
        script_error
            .get_or_insert("a .prom snapshot is missing or unreadable: the script stops".into());
    }
    let script_hits = script_hits.unwrap_or_else(|| ("-".into(), "-".into()));
    level.script_line = match script_error {
        Some(e) => Err(e),
        None => Ok(super::script::line(&level, clients, &script_hits)),
    };
    level
}

/// The client's log: failures live only there.
fn read_log(level: &mut Level, log: Option<&Item>, skipped: &mut Vec<Skipped>) {
    let (prefix, clients) = (level.prefix.clone(), level.clients);
    let Some(e) = log else {
        level
            .problems
            .push(format!("no `{prefix}-L{clients}.log`: failures unknown"));
        return;
    };
    let l = match as_client_log(e) {
        Ok(l) => l,
        Err(err) => {
            level.problems.push(Item::error_text(&err, &e.rel));
            skipped.push(e.skipped(&err));
            return;
        }
    };
    level.runtime_sec = l.runtime_sec;
    level.args = l.args.clone();
    level.stopped_early = l.stopped_early;
    if l.clients_done > 0 {
        level.failures = Some(l.failures);
    }
    if let Some(f) = &l.fatal {
        level.died = Some(f.clone());
        level.problems.push(format!("the client died: {f}"));
    } else if l.clients_done == 0 {
        level.problems.push(format!(
            "`{}` has no `Client N is done` lines (stdout only? the procedure's tee drops stderr)",
            e.rel
        ));
    } else if (l.clients_done as u32) < clients {
        level.problems.push(format!(
            "only {} of {clients} clients reported done in `{}`",
            l.clients_done, e.rel
        ));
    }
}

/// The per-request records: requests, throughput, TTFT and generation rate; what stops
/// the procedure's script on these records, if anything does.
fn read_records(
    level: &mut Level,
    json: Option<&Item>,
    skipped: &mut Vec<Skipped>,
) -> Option<String> {
    let (prefix, clients) = (level.prefix.clone(), level.clients);
    let Some(e) = json else {
        level.problems.push(format!(
            "no `{prefix}-L{clients}.json`: the client wrote no records"
        ));
        return Some("no JSON file (the client failed before writing it)".into());
    };
    let r = match as_records(e) {
        Err(err) => {
            level.problems.push(Item::error_text(&err, &e.rel));
            skipped.push(e.skipped(&err));
            return Some(format!("the script stops: {}", err.reason));
        }
        Ok([]) => {
            level.requests = Some(0);
            level
                .problems
                .push(format!("`{}` holds no requests", e.rel));
            return Some("empty record list: the script crashes on min() of nothing".into());
        }
        Ok(r) => r,
    };
    let mut script_error = None;
    level.requests = Some(r.len());
    level.history = super::regime::active_history(r);
    level.within = super::within::of_records(r);
    let (t0, t1) = super::within::span_ms(r);
    let tokens: u64 = r.iter().map(|x| x.output_num_tokens).sum();
    let span = (t1 - t0) / 1000.0;
    if span > 0.0 {
        level.output_tok_s = Some(tokens as f64 / span);
    } else {
        level
            .problems
            .push("all requests start and end at once: no throughput".into());
        script_error = Some("zero time span: the script divides by zero".into());
    }
    level.ttft_p50_s = median(r.iter().map(|x| x.ttft_ms).collect()).map(|m| m / 1000.0);
    level.ttft_s = r.iter().map(|x| x.ttft_ms / 1000.0).collect();
    match median(r.iter().map(|x| x.tpot_ms).collect()) {
        Some(m) if m > 0.0 => level.gen_tok_s = Some(1000.0 / m),
        _ => {
            level
                .problems
                .push("median tpot_ms is 0 (one-token replies?): no generation rate".into());
            script_error.get_or_insert("median tpot of 0: the script divides by zero".into());
        }
    }
    script_error
}
