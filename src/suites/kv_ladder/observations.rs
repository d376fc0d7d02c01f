//! Test 2's observations: where the GPU cache fills, and the generation-rate SLA.

use super::*;

pub(super) fn fill_observation(agg: &Aggregate, fill: u32) -> Option<Observation> {
    let half = fill / 2;
    let before = agg.metric(PLAIN, half, GPU_HIT).0;
    let at = agg.metric(PLAIN, fill, GPU_HIT).0;
    let has = |n: u32| !agg.runs(PLAIN, n).is_empty();
    if !has(half) && !has(fill) {
        return None;
    }
    let f = |x: Option<f64>| x.map_or(Phrase::dash(), |p| phrase!("{} %", fixed(p, 0)));
    let measured = match (before, at) {
        (Some(b), Some(a)) => phrase!(
            "gpu-only GPU hit {} at {} clients, {} at {}{}",
            f(Some(b)),
            count(half),
            f(Some(a)),
            count(fill),
            if a < b {
                " (dropped)"
            } else {
                " (did not drop)"
            }
        ),
        _ => {
            let missing = [half, fill]
                .into_iter()
                .filter(|&n| agg.metric(PLAIN, n, GPU_HIT).0.is_none())
                .map(|n| {
                    if has(n) {
                        phrase!(
                            "no GPU hit rate at {} clients (no .prom snapshots?)",
                            count(n)
                        )
                    } else {
                        phrase!("no {}-client level of gpu-only", count(n))
                    }
                });
            phrase!("not measured: {}", Phrase::join(missing, "; "))
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

pub(super) fn sla_observation(agg: &Aggregate, sla: f64) -> Observation {
    let describe = |variant: &str| -> Phrase {
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
            None => phrase!(
                "below the SLA at every level measured (from {} clients)",
                count(levels[0].0)
            ),
            Some(&n) if n == top => {
                phrase!(
                    "at least {} clients (the highest level measured still meets it)",
                    count(n)
                )
            }
            Some(&n) => phrase!("{} clients", count(n)),
        }
    };
    Observation {
        id: "kv-ladder.sla".into(),
        what: format!("Highest client count keeping gen tok/s >= {sla} per request (SLA)"),
        measured: phrase!("adp: {} · gpu-only: {}", describe(ADP), describe(PLAIN)),
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
