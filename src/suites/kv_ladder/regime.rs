//! Test 2's regime and engagement, measured: per level and variant the conversation
//! history the client kept active against the server's KV cache, a level past the cache
//! that never got there is not comparable, and the connector is judged engaged only by
//! its card hits where the GPU cache could not hold the histories.

use super::*;
use crate::model::deviation::Deviation;
use crate::suites::kv_common::reference::LadderRef;

/// One level of one variant, over its clean runs (medians where runs differ).
pub(super) struct LevelRegime<'a> {
    pub clients: u32,
    pub variant: String,
    pub runs: Vec<&'a Level>,
    pub peak: Option<f64>,
    pub mean: Option<f64>,
    /// The server's KV cache (tokens, and which memory it says it is), from its log.
    pub cache: Option<(u64, String, String)>,
    pub preemptions: Option<f64>,
    pub card_hit_pct: Option<f64>,
}

impl LevelRegime<'_> {
    /// Mean and peak active history as multiples of the KV cache.
    pub fn multiples(&self) -> Option<(f64, f64)> {
        let (tokens, ..) = self.cache.as_ref()?;
        let c = *tokens as f64;
        (c > 0.0).then_some(())?;
        Some((self.mean? / c, self.peak? / c))
    }

    fn files(&self) -> Vec<String> {
        let mut f: Vec<String> = self.runs.iter().flat_map(|l| l.files.clone()).collect();
        f.extend(self.cache.as_ref().map(|(_, _, file)| file.clone()));
        f
    }
}

fn median_of(runs: &[&Level], f: impl Fn(&Level) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = runs.iter().filter_map(|l| f(l)).collect();
    median(&v)
}

/// Every level of every variant that has clean runs.
pub(super) fn regimes<'a>(
    agg: &Aggregate<'a>,
    logs: &kv_common::ServerLogs,
) -> Vec<LevelRegime<'a>> {
    let mut out = Vec::new();
    for ((variant, clients), runs) in &agg.by {
        let clean: Vec<&Level> = runs
            .iter()
            .copied()
            .filter(|l| l.failed().is_none())
            .collect();
        if clean.is_empty() {
            continue;
        }
        let cache = logs.by_variant.get(variant).and_then(|(file, log)| {
            let device = log.kv_cache_device.clone().unwrap_or_else(|| "GPU".into());
            log.kv_cache_tokens.map(|t| (t, device, file.clone()))
        });
        out.push(LevelRegime {
            clients: *clients,
            variant: variant.clone(),
            peak: median_of(&clean, |l| l.history.map(|h| h.peak_tokens)),
            mean: median_of(&clean, |l| l.history.map(|h| h.mean_tokens)),
            preemptions: median_of(&clean, |l| l.preemptions),
            card_hit_pct: median_of(&clean, |l| l.card_hit_pct),
            runs: clean,
            cache,
        });
    }
    out.sort_by(|a, b| (a.clients, &a.variant).cmp(&(b.clients, &b.variant)));
    out
}

fn times(x: Option<f64>) -> Phrase {
    x.map_or(Phrase::dash(), |v| phrase!("{}", qty(v, 2, Unit::Ratio)))
}

pub(super) fn table(rows: &[LevelRegime], r: &LadderRef) -> Option<Table> {
    if rows.iter().all(|x| x.mean.is_none()) {
        return None;
    }
    let rows = rows
        .iter()
        .map(|x| {
            let m = x.multiples();
            vec![
                Phrase::count(x.clients),
                Phrase::text(&x.variant),
                Phrase::count(x.runs.len()),
                Phrase::opt(x.peak, 0),
                Phrase::opt(x.mean, 0),
                x.cache.as_ref().map_or(Phrase::dash(), |(t, device, _)| {
                    phrase!("{} ({})", count(*t), name(device))
                }),
                times(m.map(|m| m.1)),
                times(m.map(|m| m.0)),
                r.regime.multiple(x.clients).map_or(Phrase::dash(), |v| {
                    phrase!("about {}", qty(v, 0, Unit::Ratio))
                }),
                Phrase::opt(x.preemptions, 0),
                x.card_hit_pct
                    .map_or(Phrase::dash(), |p| phrase!("{} %", fixed(p, 0))),
            ]
        })
        .collect();
    Some(Table {
        title: "Active histories against the KV cache, per level and variant".into(),
        columns: [
            "clients",
            "variant",
            "runs",
            "peak tokens",
            "mean tokens",
            "KV cache tokens",
            "peak x cache",
            "mean x cache",
            "procedure",
            "preemptions",
            "card hit",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: vec![
            "Active history: the prompt tokens (the whole conversation, as each request sends it) of every conversation between its first request and its last reply, summed, from the client's records; mean is time-weighted over the level, both the median over clean runs.".into(),
            format!(
                "The procedure's multiples are for its reference setup ({} tokens of GPU KV cache): {}.",
                crate::model::units::grouped(&r.regime.reference_cache_tokens.to_string()),
                r.regime.source
            ),
        ],
    })
}

/// A level past the cache (the procedure's large levels) that did not get there.
pub(super) fn deviations(rows: &[LevelRegime], r: &LadderRef) -> Vec<Deviation> {
    let mut out = Vec::new();
    for x in rows.iter().filter(|x| r.large_levels.contains(&x.clients)) {
        if x.variant != ADP && x.variant != PLAIN {
            continue;
        }
        let Some(want) = r.regime.multiple(x.clients) else {
            continue;
        };
        let verdict = format!("{}.L{}-advantage", INFO.name, x.clients);
        let subject = format!("{} · {} clients", x.variant, x.clients);
        let procedure = phrase!("about {} the KV cache", qty(want, 0, Unit::Ratio));
        let Some((mean, peak)) = x.multiples() else {
            let missing = if x.cache.is_none() {
                "the server log's `KV cache size` line"
            } else {
                "records with conversation ids and prompt lengths"
            };
            out.push(
                Deviation::new(
                    format!("active histories ({} clients)", x.clients),
                    procedure,
                    "unknown",
                )
                .subject(subject)
                .effect(
                    format!("whether the level reached the regime it tests cannot be checked: needs {missing}"),
                    false,
                )
                .source(r.regime.source.clone()),
            );
            continue;
        };
        let effect = if mean <= 1.0 {
            "the workload fit in the KV cache: without evictions the connector had nothing to restore, so the advantage has nothing to show".to_string()
        } else if mean < want * r.regime.min_share {
            phrase!(
                "a milder regime than the procedure's: the histories held under {}% of the {}x it states, so fewer evictions than the published comparison",
                fixed(r.regime.min_share * 100.0, 0),
                fixed(want, 0)
            )
            .to_string()
        } else {
            continue;
        };
        let (tokens, device, _) = x.cache.clone().unwrap_or_default();
        let mut d = Deviation::new(
            format!("active histories ({} clients)", x.clients),
            procedure,
            phrase!(
                "{} (peak {}) of {} tokens ({} KV cache)",
                qty(mean, 2, Unit::Ratio),
                qty(peak, 2, Unit::Ratio),
                count(tokens),
                name(device)
            ),
        )
        .subject(subject)
        .effect(effect, true)
        .source(r.regime.source.clone())
        .verdict(verdict);
        for f in x.files() {
            d = d.file(f);
        }
        out.push(d);
    }
    out
}

/// ADP's levels past the KV cache (by the files where they say; else the procedure's
/// large levels), and whether the files gave the cache at all.
fn past_the_cache<'r, 'a>(
    adp: &[&'r LevelRegime<'a>],
    r: &LadderRef,
) -> (Vec<&'r LevelRegime<'a>>, bool) {
    let known = adp.iter().any(|x| x.multiples().is_some());
    let past = adp
        .iter()
        .copied()
        .filter(|x| match x.multiples() {
            Some((mean, _)) => mean > 1.0,
            None => !known && r.large_levels.contains(&x.clients),
        })
        .collect();
    (past, known)
}

/// The levels past the cache by what their runs' card counters say: (with card hits in
/// every run, without in some run, no counters).
fn card_hits_at(past: &[&LevelRegime]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut with, mut without, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
    for x in past {
        let hits: Vec<Option<f64>> = x.runs.iter().map(|l| l.card_hits).collect();
        if hits.iter().any(Option::is_none) {
            unknown.push(x.clients);
        } else if hits.iter().all(|h| h.is_some_and(|h| h > 0.0)) {
            with.push(x.clients);
        } else {
            without.push(x.clients);
        }
    }
    (with, without, unknown)
}

fn levels(l: &[u32]) -> String {
    l.iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The connector engaged: card hits at every level past the KV cache with the
/// connector, none claimed without it.
pub(super) fn engaged_verdict(rows: &[LevelRegime], r: &LadderRef) -> Verdict {
    let mut v = base(
        format!("{}.engaged", INFO.name),
        "The connector engaged: with ADP card hits at every level past the KV cache, and none without it".into(),
    );
    v.threshold = "card hits > 0 past the cache; 0 without the connector".into();
    v = v.with_numbers(
        None,
        None,
        None,
        UnitOf::count("levels past the KV cache with card hits"),
    );
    let adp: Vec<&LevelRegime> = rows.iter().filter(|x| x.variant == ADP).collect();
    let (past, known) = past_the_cache(&adp, r);
    for x in rows
        .iter()
        .filter(|x| x.variant == ADP || x.variant == PLAIN)
    {
        v.files.extend(x.files());
    }
    v.files.dedup();
    let plain_hits: f64 = rows
        .iter()
        .filter(|x| x.variant == PLAIN)
        .flat_map(|x| x.runs.iter().filter_map(|l| l.card_hits))
        .sum();
    if past.is_empty() {
        if !adp.is_empty() && !known {
            // Nothing says the histories fit: the size they are measured against is
            // unknown, and the levels the procedure puts past it are not in the files.
            v.status = Status::NotMeasured;
            v.note = Phrase::words(format!(
                "the GPU KV cache size is unknown (no `GPU KV cache size` line in the ADP server log) and none of the procedure's levels past it ({}) is in the files: which levels went past the cache cannot be told",
                levels(&r.large_levels)
            ));
            return v;
        }
        v.status = Status::NotComparable;
        v.note = if adp.is_empty() {
            "no clean ADP level".into()
        } else {
            "no ADP level's active histories exceeded the KV cache: the connector had nothing to restore, whatever it does".into()
        };
        return v;
    }
    let (with, without, unknown) = card_hits_at(&past);
    v.threshold_value = Some(past.len() as f64);
    if unknown.len() < past.len() {
        v.set_measured(Some(with.len() as f64));
    }
    v.measured = phrase!(
        "card hits at {} of {} levels past the cache; gpu-only external hits {}",
        count(with.len()),
        count(past.len()),
        fixed(plain_hits, 0)
    );
    v.status = if !without.is_empty() || plain_hits > 0.0 {
        Status::Fail
    } else if !unknown.is_empty() {
        Status::NotMeasured
    } else {
        Status::Pass
    };
    v.note = engaged_note(&adp, r, known, &without, &unknown, plain_hits);
    v
}

fn engaged_note(
    adp: &[&LevelRegime],
    r: &LadderRef,
    known: bool,
    without: &[u32],
    unknown: &[u32],
    plain_hits: f64,
) -> Phrase {
    let mut note: Vec<Phrase> = Vec::new();
    if !known {
        note.push(Phrase::from("no KV cache size in the server log: the levels past it are the procedure's (16 and 32 clients)"));
    }
    if !without.is_empty() {
        note.push(Phrase::words(format!(
            "no card hits in a run at {} clients: the connector did not restore where the GPU cache could not hold the histories",
            levels(without)
        )));
    }
    if plain_hits > 0.0 {
        note.push(phrase!(
            "gpu-only counts {} external hits without a connector: the snapshots are not from the server they claim",
            fixed(plain_hits, 0)
        ));
    }
    if !unknown.is_empty() {
        note.push(Phrase::words(format!(
            "no .pre.prom/.post.prom card counters at {} clients",
            levels(unknown)
        )));
    }
    // The negative control: where the histories fit, the card has little to add.
    let control: Vec<Phrase> = adp
        .iter()
        .filter(|x| r.small_levels.contains(&x.clients))
        .filter_map(|x| {
            x.card_hit_pct
                .map(|p| phrase!("{}% at {}", fixed(p, 0), count(x.clients)))
        })
        .collect();
    if !control.is_empty() {
        note.push(phrase!(
            "where the histories fit the cache, card hits are {} of the GPU cache's misses (the parity verdicts judge the rates there)",
            Phrase::join(control, ", ")
        ));
    }
    Phrase::join(note, "; ")
}

/// The regime rows, typed: per level the procedure states a multiple for and variant,
/// the mean and peak multiples against what it states.
pub(super) fn qualifiers(
    rows: &[LevelRegime],
    r: &LadderRef,
) -> Vec<crate::model::qualifier::Qualifier> {
    use crate::model::qualifier::{Outcome, Qualifier, What};
    rows.iter()
        .filter(|x| x.variant == ADP || x.variant == PLAIN)
        .filter_map(|x| {
            let want = r.regime.multiple(x.clients)?;
            let m = x.multiples();
            let outcome = match m {
                None => Outcome::Unknown,
                Some((mean, _))
                    if mean >= want * r.regime.min_share && (want <= 1.0 || mean > 1.0) =>
                {
                    Outcome::Met
                }
                Some(_) => Outcome::NotMet,
            };
            let verdicts = if r.large_levels.contains(&x.clients) {
                vec![format!("{}.L{}-advantage", INFO.name, x.clients)]
            } else {
                Vec::new()
            };
            Some(Qualifier {
                what: What::Regime,
                subject: format!("{} · {} clients", x.variant, x.clients),
                value: m.map(|m| m.0),
                second: m.map(|m| m.1),
                unit: Unit::Ratio,
                expected: Some(want),
                outcome,
                verdicts,
                files: x.files(),
            })
        })
        .collect()
}
