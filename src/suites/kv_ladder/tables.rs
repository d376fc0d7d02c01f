//! Test 2's tables (the procedure script's, runs, medians), the engine observation, the
//! charts.

use super::*;

pub(super) fn script_table(levels: &[Level]) -> Preformatted {
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

pub(super) fn opt(x: Option<f64>, prec: u8) -> Phrase {
    Phrase::opt(x, prec)
}

fn pct(x: Option<f64>) -> Phrase {
    x.map_or(Phrase::dash(), |p| phrase!("{} %", fixed(p, 0)))
}

pub(super) fn runs_table(levels: &[Level]) -> Table {
    let rows = levels
        .iter()
        .map(|l| {
            vec![
                phrase!("{}-{}", name(&l.variant), name(&l.run)),
                Phrase::count(l.clients),
                l.requests.map_or(Phrase::dash(), Phrase::count),
                opt(l.output_tok_s, 1),
                opt(l.ttft_p50_s, 2),
                opt(l.gen_tok_s, 1),
                pct(l.gpu_hit_pct),
                pct(l.card_hit_pct),
                l.failures.map_or(Phrase::dash(), Phrase::count),
                Phrase::text(l.problems.join("; ")),
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

pub(super) fn median_table(agg: &Aggregate, max_spread: f64) -> Table {
    let mut levels: Vec<u32> = agg.by.keys().map(|(_, n)| *n).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut rows = Vec::new();
    for n in levels {
        let m = |v: &str, f| agg.metric(v, n, f).0;
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => phrase!("{}", qty(a / b, 2, Unit::Ratio)),
            _ => Phrase::dash(),
        };
        let spread = too_spread(agg, &[ADP, PLAIN], n, max_spread, RATES_AND_TTFT);
        rows.push(vec![
            Phrase::count(n),
            opt(m(ADP, OUTPUT), 1),
            opt(m(PLAIN, OUTPUT), 1),
            ratio(m(ADP, OUTPUT), m(PLAIN, OUTPUT)),
            opt(m(ADP, GEN), 1),
            opt(m(PLAIN, GEN), 1),
            ratio(m(ADP, GEN), m(PLAIN, GEN)),
            opt(m(ADP, TTFT), 2),
            opt(m(PLAIN, TTFT), 2),
            phrase!(
                "{}/{}",
                count(agg.runs(ADP, n).len()),
                count(agg.runs(PLAIN, n).len())
            ),
            Phrase::text(spread.join("; ")),
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
        notes: vec![phrase!(
            "runs differing by more than {}% make a level inconclusive",
            fixed(max_spread * 100.0, 0)
        )
        .to_string()],
    }
}

/// What the servers' periodic `Engine 000:` lines said, per variant.
pub(super) fn engine_observation(logs: &kv_common::ServerLogs) -> Option<Observation> {
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
        let pct =
            |x: Option<f64>| x.map_or(Phrase::dash(), |v| phrase!("{}", qty(v, 1, Unit::Percent)));
        let reqs = |x: Option<f64>| x.map_or(Phrase::dash(), |v| phrase!("{} reqs", fixed(v, 1)));
        parts.push(phrase!(
            "{}: {} stats lines, peak GPU KV cache usage {}, peak waiting {}, last external hit rate {}",
            name(variant.as_str()),
            count(log.engine_stats.len()),
            pct(peak(|e| e.gpu_kv_usage_pct)),
            reqs(peak(|e| e.waiting)),
            pct(log.engine_stats.iter().rev().find_map(|e| e.external_hit_pct)),
        ));
        files.push(file.clone());
    }
    (!parts.is_empty()).then(|| Observation {
        id: "kv-ladder.engine-stats".into(),
        what: "The servers' periodic engine stats".into(),
        measured: Phrase::join(parts, " · "),
        published: Phrase::dash(),
        files,
        note: "hit rates in these lines cover the last 1,000 requests".into(),
    })
}

/// Output tok/s, TTFT p50 and gen tok/s against clients, median per variant.
pub(super) fn charts(agg: &Aggregate, sla: f64) -> Vec<Chart> {
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
                spread: Vec::new(),
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
    out.push(ttft_spread(agg, &variants, &levels));
    out.retain(Chart::has_data);
    out
}

/// Every request's TTFT per level and variant, as boxes: the distribution behind the
/// medians (the runs of a variant at a level that feed its medians pooled: each request
/// counts once; a failing or early-stopped run is left out as it is from the medians).
fn ttft_spread(agg: &Aggregate, variants: &[&str], levels: &[u32]) -> Chart {
    Chart {
        id: "kv-ladder-ttft-spread".into(),
        title: "Time to first token per request (box: quartiles and median; whiskers: fastest and slowest)".into(),
        kind: Kind::Box,
        x_label: "concurrent clients".into(),
        y_label: "seconds".into(),
        categories: levels.iter().map(|n| n.to_string()).collect(),
        series: variants
            .iter()
            .map(|v| {
                let spread: Vec<Option<Spread>> = levels
                    .iter()
                    .map(|&n| {
                        let pooled: Vec<f64> = agg
                            .by
                            .get(&(v.to_string(), n))
                            .into_iter()
                            .flatten()
                            .filter(|l| left_out(l).is_none())
                            .flat_map(|l| l.ttft_s.iter().copied())
                            .collect();
                        Spread::of(&pooled)
                    })
                    .collect();
                Series {
                    name: v.to_string(),
                    values: spread.iter().map(|s| s.map(|s| s.median)).collect(),
                    published: false,
                    spread,
                }
            })
            .collect(),
        lines: Vec::new(),
    }
}
