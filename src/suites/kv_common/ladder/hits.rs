//! Prefix-cache hit rates and preemptions between a level's two `/metrics` snapshots.

use crate::ingest::walk::Skipped;
use crate::ingest::Item;
use crate::parse::prom;

use super::file_kinds::as_snapshot;
use super::Level;

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

/// Prefix-cache hit rates between the two snapshots; the script's two hit-rate cells, or
/// None when a snapshot is missing or unreadable (the script stops).
pub(super) fn read_hits(
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
    let percent = |r: &Rate| r.as_ref().ok().copied().flatten().map(|(p, _)| p);
    let cells = (
        super::script::rate(percent(&gpu)),
        super::script::rate(percent(&card)),
    );
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
    // A counter in one snapshot and not the other: one of them is incomplete, and no
    // delta can be taken (read as 0, it would look like a restart).
    for names in [&q_names, &h_names] {
        if pre.sum_any(names).is_some() != post.sum_any(names).is_some() {
            return Err(format!(
                "`{}` is in one snapshot and not the other: a snapshot is incomplete",
                names.first().copied().unwrap_or_default()
            ));
        }
    }
    let get = |s: &prom::Snapshot, names: &[&str]| s.sum_any(names).unwrap_or(0.0);
    let q = get(post, &q_names) - get(pre, &q_names);
    let h = get(post, &h_names) - get(pre, &h_names);
    if q < 0.0 || h < 0.0 {
        return Err(
            "a counter went down between the snapshots, and a counter only grows while its server runs: the server restarted during the level, or the snapshots are of two servers"
                .into(),
        );
    }
    Ok((q > 0.0).then(|| (100.0 * h / q, h)))
}
