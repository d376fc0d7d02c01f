//! The server's own time to first token over a level, against the client's: vLLM's
//! `vllm:time_to_first_token_seconds` histogram, counted between the level's `.pre.prom`
//! and `.post.prom` snapshots, places the server's median in one bucket; the client's
//! median (its records' `ttft_ms`) should fall in that bucket, or above it by no more than
//! the client's own time (HTTP, streaming, its Python loop). Load generators do disagree
//! with the server they measure; when they do beyond that, the client's TTFT figures are
//! not the server's, and the run says so.

use crate::model::deviation::Deviation;
use crate::model::measurement::Unit;
use crate::model::phrase::{plain, qty};
use crate::parse::prom::Snapshot;
use crate::phrase;

#[cfg(test)]
const BUCKET: &str = "vllm:time_to_first_token_seconds_bucket";

/// How much later than the server the client may see a first token: its own time between
/// the server sending the token and the client's clock reading it. On the real engine
/// here (CPU, one machine) the client's medians sat up to 29 ms above the server's median
/// bucket; 50 ms leaves room for a network hop.
pub const CLIENT_ALLOWANCE_S: f64 = 0.05;

/// The server's TTFT over a level, from its histogram.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ServerTtft {
    /// Requests the histogram counted between the snapshots.
    pub requests: f64,
    /// Where the median lies: `(lower, upper]` in seconds (upper may be infinite), from
    /// the bucket of the middle request, or of the two middle ones for an even count.
    pub median_s: (f64, f64),
}

/// The histogram's counts by bucket bound, summed over its other labels, ascending.
fn buckets(s: &Snapshot) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    let names = super::names::metric("time to first token");
    for x in s.samples().filter(|x| names.contains(&x.name)) {
        let Some(le) = x.label("le").and_then(|v| match v.as_str() {
            "+Inf" | "Inf" | "inf" => Some(f64::INFINITY),
            v => v.parse::<f64>().ok().filter(|b| b.is_finite()),
        }) else {
            continue;
        };
        match out.iter_mut().find(|(b, _)| *b == le) {
            Some(e) => e.1 += x.value,
            None => out.push((le, x.value)),
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// The server's TTFT between two snapshots; None when either has no histogram, no request
/// finished its first token between them, or a count went down (a restart).
pub fn between(pre: &Snapshot, post: &Snapshot) -> Option<ServerTtft> {
    let (a, b) = (buckets(pre), buckets(post));
    if b.is_empty() {
        return None;
    }
    let mut delta = Vec::with_capacity(b.len());
    for &(le, after) in &b {
        let before = a.iter().find(|(x, _)| *x == le).map_or(0.0, |e| e.1);
        let d = after - before;
        if d.is_nan() || d < 0.0 || delta.last().is_some_and(|(_, prev)| d < *prev) {
            return None;
        }
        delta.push((le, d));
    }
    let (last, requests) = *delta.last()?;
    if last != f64::INFINITY || requests <= 0.0 {
        return None;
    }
    // The median is the middle request's time, or (an even count) the mean of the two
    // middle ones: from the bucket of the lower middle to that of the upper middle.
    let (low_rank, high_rank) = ((requests / 2.0).ceil(), (requests / 2.0).floor() + 1.0);
    let bucket_of = |rank: f64| {
        let mut lower = 0.0;
        for &(le, cumulative) in &delta {
            if cumulative >= rank {
                return Some((lower, le));
            }
            lower = le;
        }
        None
    };
    let (lo, _) = bucket_of(low_rank)?;
    let (_, hi) = bucket_of(high_rank.min(requests))?;
    Some(ServerTtft {
        requests,
        median_s: (lo, hi),
    })
}

/// A level where the client's median TTFT is below the server's median bucket (the
/// client saw a first token before the server made it), or above it by more than
/// [`CLIENT_ALLOWANCE_S`]. `requests` is how many the client recorded in the level.
pub fn disagreement(
    server: Option<&ServerTtft>,
    client: Option<f64>,
    requests: Option<usize>,
) -> Option<Deviation> {
    let (server, client) = (server?, client?);
    let (lo, hi) = server.median_s;
    if client >= lo && client <= hi + CLIENT_ALLOWANCE_S {
        return None;
    }
    let expected = if hi.is_finite() {
        phrase!(
            "in the server's median bucket ({}, {}] s, or up to {} ms above it",
            plain(lo),
            plain(hi),
            plain(CLIENT_ALLOWANCE_S * 1000.0)
        )
    } else {
        phrase!("in the server's median bucket, above {} s", plain(lo))
    };
    let counted = match requests {
        Some(n) if (n as f64 - server.requests).abs() >= 0.5 => phrase!(
            "; the client recorded {} requests and the server counted {} in the same window, so the window held other requests or lost some",
            crate::model::phrase::count(n),
            crate::model::phrase::fixed(server.requests, 0)
        )
        .to_string(),
        _ => String::new(),
    };
    Some(
        Deviation::new(
            "time to first token, client against server",
            expected,
            phrase!("the client's median {}", qty(client, 3, Unit::Seconds)),
        )
        .effect(
            format!(
                "the load generator and the server disagree on time to first token beyond what the server's histogram buckets and the client's own time allow{counted}: the level's TTFT figures are the client's, not the server's"
            ),
            false,
        )
        .source("vLLM's `vllm:time_to_first_token_seconds` histogram in the level's .pre.prom and .post.prom"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(text: &str) -> Snapshot {
        crate::parse::prom::parse_bytes(text.as_bytes()).expect("prom")
    }

    fn hist(counts: [f64; 4]) -> String {
        // Two engines: their counts add up per bucket.
        let mut s = String::new();
        for engine in ["0", "1"] {
            for (le, c) in ["0.02", "0.04", "0.06", "+Inf"].iter().zip(counts) {
                s.push_str(&format!(
                    "{BUCKET}{{engine=\"{engine}\",le=\"{le}\",model_name=\"m\"}} {c}\n"
                ));
            }
        }
        s
    }

    #[test]
    fn the_median_bucket_of_the_counts_between_two_snapshots() {
        let pre = snap(&hist([1.0, 2.0, 2.0, 2.0]));
        // Between them: per engine 0, 1, 4, 5 -> summed 0, 2, 8, 10: the median (5th) is
        // in (0.04, 0.06].
        let post = snap(&hist([1.0, 3.0, 6.0, 7.0]));
        let s = between(&pre, &post).expect("a histogram");
        assert_eq!(s.requests, 10.0);
        assert_eq!(s.median_s, (0.04, 0.06));
        // Ten requests, the 5th in (0.02, 0.04] and the 6th in (0.04, 0.06]: their mean,
        // the median, lies anywhere in (0.02, 0.06].
        let zero = snap(&hist([0.0; 4]));
        let even = snap(&format!(
            "{BUCKET}{{le=\"0.02\"}} 1\n{BUCKET}{{le=\"0.04\"}} 5\n{BUCKET}{{le=\"0.06\"}} 10\n{BUCKET}{{le=\"+Inf\"}} 10\n"
        ));
        let s = between(&zero, &even).expect("a histogram");
        assert_eq!(
            s.median_s,
            (0.02, 0.06),
            "the 5th and 6th of ten straddle 0.04"
        );
        // A count that went down is a restart: nothing is said.
        assert!(between(&post, &pre).is_none());
        // No histogram, or nothing counted between the two: nothing.
        assert!(between(&pre, &snap("other 1\n")).is_none());
        assert!(between(&pre, &pre).is_none());
    }
}
