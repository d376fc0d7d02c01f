//! The concurrency ladder's files, `<variant>-<run>-L<clients>.{json,log,pre.prom,post.prom}`,
//! read into one result per level with the procedure script's exact arithmetic.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::error::Problem;
use crate::ingest::layout::{self, LadderPart};
use crate::ingest::walk::Skipped;
use crate::ingest::{Catalog, Item, Kind, Record};
use crate::parse::client_log::ClientLog;
use crate::parse::{mt_records, prom};

/// What a ladder file must be, when its content says it is something else.
fn wrong_kind(item: &Item, want: Kind) -> Problem {
    Problem::whole(format!(
        "named as {} but holds {}",
        want.label(),
        item.kind.label()
    ))
}

fn as_client_log(item: &Item) -> Result<&ClientLog, Problem> {
    match &item.record {
        Ok(Record::ClientLog(l)) => Ok(l),
        Ok(_) => Err(wrong_kind(item, Kind::ClientLog)),
        Err(p) => Err(p.clone()),
    }
}

fn as_records(item: &Item) -> Result<&[mt_records::Record], Problem> {
    match &item.record {
        Ok(Record::ClientRecords(r)) => Ok(r),
        Ok(_) => Err(wrong_kind(item, Kind::ClientRecords)),
        Err(p) => Err(p.clone()),
    }
}

fn as_series(item: &Item) -> Result<&crate::parse::prom_series::PromSeries, Problem> {
    match &item.record {
        Ok(Record::PromSeries(s)) => Ok(s),
        Ok(_) => Err(wrong_kind(item, Kind::PromSeries)),
        Err(p) => Err(p.clone()),
    }
}

fn as_snapshot(item: &Item) -> Result<&prom::Snapshot, Problem> {
    match &item.record {
        Ok(Record::Prometheus(s)) => Ok(s),
        Ok(_) => Err(wrong_kind(item, Kind::Prometheus)),
        Err(p) => Err(p.clone()),
    }
}

/// One level of one run of one variant.
#[derive(Debug, Clone, Serialize)]
pub struct Level {
    /// The path before `-L`, relative to the folder: the script's sort key.
    pub prefix: String,
    pub variant: String,
    pub run: String,
    pub clients: u32,
    pub requests: Option<usize>,
    pub output_tok_s: Option<f64>,
    pub ttft_p50_s: Option<f64>,
    /// Every request's time to first token, in seconds, in the records' order.
    pub ttft_s: Vec<f64>,
    /// The server's own TTFT over the level (its histogram between the snapshots).
    pub server_ttft: Option<super::server_ttft::ServerTtft>,
    pub gen_tok_s: Option<f64>,
    /// Hit rates in percent, as deltas between the .pre.prom and .post.prom snapshots.
    pub gpu_hit_pct: Option<f64>,
    pub card_hit_pct: Option<f64>,
    /// Card hits (tokens) during the level.
    pub card_hits: Option<f64>,
    /// Preemptions during the level (`vllm:num_preemptions_total` between the
    /// snapshots): requests the engine stopped because the KV cache ran out.
    pub preemptions: Option<f64>,
    /// How much conversation history the client kept active (see [`super::regime`]).
    pub history: Option<super::regime::History>,
    /// The level over time, from the collector's `/metrics` series (see
    /// [`super::timeline`]); empty without one.
    pub timeline: Vec<super::timeline::Point>,
    /// The GPUs over time, from the collector's `nvidia-smi` series; empty without one.
    pub gpus: Vec<super::timeline::GpuPoint>,
    /// Summed num_failures over the clients, from the .log.
    pub failures: Option<u64>,
    pub runtime_sec: Option<f64>,
    /// The client's arguments as its log records them (see [`client_log::ClientLog::args`]).
    pub args: BTreeMap<String, String>,
    /// The client stopped all clients when the first finished (no `--no-early-stop`).
    pub stopped_early: bool,
    /// The client's log, when there is one.
    pub log_file: Option<String>,
    /// The last line of the client's traceback, when it died.
    pub died: Option<String>,
    /// Why a number is missing or untrustworthy, one reason each.
    pub problems: Vec<String>,
    pub files: Vec<String>,
    /// The line the procedure's script prints for this level, or why it cannot.
    pub script_line: Result<String, String>,
    /// The run cut into batches, for an interval from within it (see [`super::within`]).
    #[serde(skip)]
    pub within: Option<super::within::WithinRun>,
}

impl Level {
    /// `adp-1-L8`.
    pub fn name(&self) -> String {
        format!("{}-{}-L{}", self.variant, self.run, self.clients)
    }

    /// Why this run of the level failed, if it did: failed requests or a dead client.
    pub fn failed(&self) -> Option<String> {
        if let Some(d) = &self.died {
            return Some(format!("{}: the client died ({d})", self.name()));
        }
        match self.failures {
            Some(f) if f > 0 => Some(format!("{}: {f} failed requests", self.name())),
            _ => None,
        }
    }
}

pub use crate::ingest::layout::{split_level, split_run};

/// Every level in the folder, in the script's order (by path prefix, then clients).
pub fn load(catalog: &Catalog, skipped: &mut Vec<Skipped>) -> Vec<Level> {
    // Key: (prefix, clients) -> the four files of the procedure, and the series.
    let mut sets: BTreeMap<(String, u32), [Option<&Item>; 6]> = BTreeMap::new();
    for item in &catalog.items {
        let Some((prefix, clients, part)) = layout::ladder_file(&item.rel) else {
            continue;
        };
        let slot = match part {
            LadderPart::Records => 0,
            LadderPart::Log => 1,
            LadderPart::Pre => 2,
            LadderPart::Post => 3,
            LadderPart::Series => 4,
            LadderPart::Gpus => 5,
        };
        sets.entry((prefix.to_string(), clients)).or_default()[slot] = Some(item);
    }
    // A series alone is not a level. The levels are read side by side (each reads only
    // its own files), then kept in key order with the files each skipped.
    let sets: Vec<_> = sets
        .into_iter()
        .filter(|(_, files)| files[..4].iter().any(Option::is_some))
        .collect();
    let read: Vec<(Level, Vec<Skipped>)> = sets
        .into_par_iter()
        .map(|((prefix, clients), files)| {
            let mut own = Vec::new();
            let level = read_level(&prefix, clients, files, &mut own);
            (level, own)
        })
        .collect();
    let mut levels = Vec::with_capacity(read.len());
    for (level, own) in read {
        skipped.extend(own);
        levels.push(level);
    }
    levels
}

fn median(v: Vec<f64>) -> Option<f64> {
    super::stats::median(&v)
}

/// A level's `.pre.prom` or `.post.prom` snapshot, or why there is none.
fn snapshot<'a>(
    e: Option<&'a Item>,
    missing: String,
    skipped: &mut Vec<Skipped>,
    problems: &mut Vec<String>,
) -> Option<&'a prom::Snapshot> {
    let Some(e) = e else {
        problems.push(missing);
        return None;
    };
    match as_snapshot(e) {
        Ok(s) => Some(s),
        Err(err) => {
            problems.push(Item::error_text(&err, &e.rel));
            skipped.push(e.skipped(&err));
            None
        }
    }
}

fn read_level(
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
        None => Ok(format!(
            "{:<16} {:>7} {:>8} {:12.1} {:10.2} {:9.1} {:>8} {:>8}",
            level.prefix.rsplit('/').next().unwrap_or(&level.prefix),
            clients,
            level.requests.unwrap_or(0),
            level.output_tok_s.unwrap_or(0.0),
            level.ttft_p50_s.unwrap_or(0.0),
            level.gen_tok_s.unwrap_or(0.0),
            script_hits.0,
            script_hits.1
        )),
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

/// Prefix-cache hit rates between the two snapshots; the script's two hit-rate cells, or
/// None when a snapshot is missing or unreadable (the script stops).
fn read_hits(
    level: &mut Level,
    pre: Option<&Item>,
    post: Option<&Item>,
    skipped: &mut Vec<Skipped>,
) -> Option<(String, String)> {
    let (prefix, clients) = (level.prefix.clone(), level.clients);
    let missing =
        |which: &str| format!("no `{prefix}-L{clients}.{which}.prom`: hit rates not measured");
    let pre_s = snapshot(pre, missing("pre"), skipped, &mut level.problems);
    let post_s = snapshot(post, missing("post"), skipped, &mut level.problems);
    let (a, b) = (pre_s?, post_s?);
    level.server_ttft = super::server_ttft::between(a, b);
    let gpu = hit_rate(a, b, "");
    let card = hit_rate(a, b, "external_");
    let cells = (script_rate(&gpu), script_rate(&card));
    for (tier, r) in [("GPU", &gpu), ("card", &card)] {
        if let Err(why) = r {
            level.problems.push(format!("{tier} hit rate: {why}"));
        }
    }
    level.gpu_hit_pct = gpu.ok().flatten().map(|(p, _)| p);
    let preemptions = super::names::metric("preemptions");
    let preempted = |s: &prom::Snapshot| s.sum_any(&preemptions);
    level.preemptions = match (preempted(a), preempted(b)) {
        (Some(x), Some(y)) if y >= x => Some(y - x),
        _ => None,
    };
    if let Ok(Some((p, hits))) = card {
        level.card_hit_pct = Some(p);
        level.card_hits = Some(hits);
    } else if let Ok(None) = card {
        level.card_hits = Some(0.0);
    }
    Some(cells)
}

/// `(percent, hits)` from counter deltas; None when no queries (the script's `-`);
/// an error when a counter went down (the server restarted mid-level).
type Rate = Result<Option<(f64, f64)>, String>;

fn hit_rate(pre: &prom::Snapshot, post: &prom::Snapshot, tier: &str) -> Rate {
    let (queries, hits) = super::names::tier(tier);
    let (q_names, h_names) = (super::names::metric(queries), super::names::metric(hits));
    let get = |s: &prom::Snapshot, names: &[&str]| s.sum_any(names).unwrap_or(0.0);
    let q = get(post, &q_names) - get(pre, &q_names);
    let h = get(post, &h_names) - get(pre, &h_names);
    if q < 0.0 || h < 0.0 {
        return Err(
            "a counter went down between the snapshots: the server restarted during the level"
                .into(),
        );
    }
    Ok((q > 0.0).then(|| (100.0 * h / q, h)))
}

/// `f'{100 * h / q:.0f} %' if q else '-'`
fn script_rate(r: &Rate) -> String {
    match r {
        Ok(Some((p, _))) => format!("{p:.0} %"),
        _ => "-".into(),
    }
}

/// The script's columns, in its order.
pub const SCRIPT_COLUMNS: [&str; 8] = [
    "variant-run",
    "clients",
    "requests",
    "output tok/s",
    "TTFT p50 s",
    "gen tok/s",
    "GPU hit",
    "card hit",
];

/// The script's header line.
pub fn script_header() -> String {
    let c = SCRIPT_COLUMNS;
    format!(
        "{:<16} {:>7} {:>8} {:>12} {:>10} {:>9} {:>8} {:>8}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_names() {
        assert_eq!(
            split_level("results/adp-1-L16"),
            Some(("results/adp-1", 16))
        );
        assert_eq!(split_level("adp-1-Lx"), None);
        assert_eq!(
            split_run("results/gpu-only-2"),
            ("gpu-only".into(), "2".into())
        );
        assert_eq!(median(vec![3.0, 1.0, 2.0, 10.0]), Some(2.5));
    }

    #[test]
    fn reproduces_the_fixture_table_of_the_procedure_script() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/kv-ladder-client");
        let catalog = Catalog::scan(&root).expect("scan");
        let mut skipped = Vec::new();
        let levels = load(&catalog, &mut skipped);
        assert!(skipped.is_empty(), "{skipped:?}");
        let mut text = vec![script_header()];
        text.extend(
            levels
                .iter()
                .map(|l| l.script_line.clone().expect("readable")),
        );
        // Printed by the procedure's own script over these files (fixture README).
        assert_eq!(
            text.join("\n"),
            "variant-run      clients requests output tok/s TTFT p50 s gen tok/s  GPU hit card hit\n\
             adp-1                  1       40         93.4       0.03     106.7     75 %      0 %\n\
             gpu-only-1             1       40         91.7       0.03     104.9     75 %        -"
        );
        assert_eq!(levels[0].failures, Some(0));
    }
}
