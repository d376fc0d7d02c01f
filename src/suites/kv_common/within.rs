//! A level's 95% interval from within its one run, for a level whose variants ran once
//! each (the procedure runs each twice): the run cut into [`BATCHES`] consecutive
//! batches, each batch's value of a metric, and the batches' spread as the standard
//! error of the run's value (the method of batch means, [`crate::stats::batch`]):
//! - output tok/s: the run's span cut into equal time windows, each request's output
//!   tokens spread evenly over its decoding (first token to last), each window's tokens
//!   over its length. The windows' mean is the run's own output tok/s exactly.
//! - gen tok/s and TTFT p50: the requests in start order cut into equal batches, each
//!   batch's `1000 / median(tpot_ms)` and median TTFT. The standard error is that of the
//!   mean of these batch values, applied to the run's own (whole-run median) number.
//!
//! Requests of one run share the server and follow one another in conversations, so
//! batches are closer to independent than single requests, not independent: the interval
//! says nothing of how runs differ and is named as weaker evidence than repeats.

use crate::parse::mt_records::Record;
use crate::stats::batch::{from_batches, BatchMeans, BATCHES, MIN_BATCH};
use crate::stats::median;

/// Said where an interval straddles its mark and each variant ran once.
pub const UNSETTLED: &str = "how many runs would settle it cannot be told from one run of each variant (the procedure runs each twice)";

/// Why a level whose variants ran once each has no interval from within the runs either:
/// `requests`, each fed run's name and request count.
pub fn why_none(requests: &[(String, Option<usize>)]) -> String {
    let short: Vec<String> = requests
        .iter()
        .filter(|(_, n)| n.is_none_or(|n| n < BATCHES * MIN_BATCH))
        .map(|(name, n)| match n {
            Some(n) => format!("{name} holds {n} requests"),
            None => format!("{name} has no request records"),
        })
        .collect();
    let reason = if short.is_empty() {
        "its runs' batches give none (no spread among them, or a batch without a rate)".to_string()
    } else {
        format!(
            "{}, fewer than the {} that {BATCHES} batches of {MIN_BATCH} need",
            short.join(", "),
            BATCHES * MIN_BATCH
        )
    };
    format!("no interval: one run of each variant at this level (the procedure runs each twice), and none from within the runs: {reason}")
}

/// The batch means of one run's three rates, where it has enough requests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WithinRun {
    pub output: Option<BatchMeans>,
    pub gen: Option<BatchMeans>,
    pub ttft: Option<BatchMeans>,
}

/// The batches of a run's requests, or None with fewer than [`BATCHES`] x [`MIN_BATCH`]
/// requests.
pub fn of_records(records: &[Record]) -> Option<WithinRun> {
    if records.len() < BATCHES * MIN_BATCH
        || records.iter().any(|r| {
            !(r.start_time_ms.is_finite() && r.latency_ms.is_finite() && r.ttft_ms.is_finite())
        })
    {
        return None;
    }
    let mut by_start: Vec<&Record> = records.iter().collect();
    by_start.sort_by(|a, b| a.start_time_ms.total_cmp(&b.start_time_ms));
    let size = by_start.len() / BATCHES;
    // As the batch means of a series: the oldest requests that do not fill a batch are
    // dropped.
    let kept = &by_start[by_start.len() - size * BATCHES..];
    let per_batch = |value: &dyn Fn(&[&Record]) -> Option<f64>| -> Option<BatchMeans> {
        let values: Option<Vec<f64>> = kept.chunks(size).map(value).collect();
        from_batches(&values?)
    };
    let gen = per_batch(&|b| {
        let tpot: Vec<f64> = b.iter().map(|r| r.tpot_ms).collect();
        median(&tpot).filter(|m| *m > 0.0).map(|m| 1000.0 / m)
    });
    let ttft = per_batch(&|b| {
        let ttft: Vec<f64> = b.iter().map(|r| r.ttft_ms / 1000.0).collect();
        median(&ttft)
    });
    Some(WithinRun {
        output: output_windows(records),
        gen,
        ttft,
    })
}

/// Output tok/s in [`BATCHES`] equal windows of the run's span: each request's tokens
/// spread evenly over its decoding (`start + ttft` to `start + latency`; a request with
/// no decoding time puts them at its end).
fn output_windows(records: &[Record]) -> Option<BatchMeans> {
    let (t0, t1) = span_ms(records);
    let width = (t1 - t0) / BATCHES as f64;
    if !(width > 0.0 && width.is_finite()) {
        return None;
    }
    let mut tokens = [0.0f64; BATCHES];
    for r in records {
        let end = r.start_time_ms + r.latency_ms;
        let from = (r.start_time_ms + r.ttft_ms.max(0.0)).min(end);
        let n = r.output_num_tokens as f64;
        if end - from <= 0.0 {
            let k = (((end - t0) / width) as usize).min(BATCHES - 1);
            tokens[k] += n;
            continue;
        }
        for (k, slot) in tokens.iter_mut().enumerate() {
            let (w0, w1) = (t0 + width * k as f64, t0 + width * (k + 1) as f64);
            let overlap = end.min(w1) - from.max(w0);
            if overlap > 0.0 {
                *slot += n * overlap / (end - from);
            }
        }
    }
    let rates: Vec<f64> = tokens.iter().map(|t| t / (width / 1000.0)).collect();
    from_batches(&rates)
}

/// The run's span in ms: its first request's start and its last request's end. The run's
/// output tok/s is its tokens over this span, and the windows cut it.
pub fn span_ms(records: &[Record]) -> (f64, f64) {
    let t0 = records
        .iter()
        .map(|r| r.start_time_ms)
        .fold(f64::INFINITY, f64::min);
    let t1 = records
        .iter()
        .map(|r| r.start_time_ms + r.latency_ms)
        .fold(f64::NEG_INFINITY, f64::max);
    (t0, t1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(start: f64, ttft: f64, latency: f64, tokens: u64, tpot: f64) -> Record {
        Record {
            ttft_ms: ttft,
            tpot_ms: tpot,
            latency_ms: latency,
            start_time_ms: start,
            output_num_tokens: tokens,
            input_num_tokens: None,
            input_num_turns: None,
            conversation_id: None,
            client_id: None,
        }
    }

    #[test]
    fn the_windows_mean_is_the_runs_own_output_rate() {
        // 30 requests, one every second, each decoding 100 tokens over 2 s after 0.5 s.
        let recs: Vec<Record> = (0u32..30)
            .map(|i| {
                record(
                    1000.0 * f64::from(i),
                    500.0,
                    2500.0,
                    100 + u64::from(i % 7),
                    20.0,
                )
            })
            .collect();
        let w = of_records(&recs).expect("30 requests");
        let out = w.output.expect("output");
        let tokens: u64 = recs.iter().map(|r| r.output_num_tokens).sum();
        let span = (29_000.0 + 2500.0) / 1000.0;
        assert!((out.mean - tokens as f64 / span).abs() < 1e-9, "{out:?}");
        assert!(out.se > 0.0);
        // Every request's tpot is 20 ms: every batch 50 tok/s, no spread.
        let gen = w.gen.expect("gen");
        assert_eq!((gen.mean, gen.se, gen.batches), (50.0, 0.0, 5));
        let ttft = w.ttft.expect("ttft");
        assert_eq!((ttft.mean, ttft.se), (0.5, 0.0));
    }

    #[test]
    fn batches_are_requests_in_start_order_the_oldest_left_over_dropped() {
        // 27 requests, given out of order: 5 batches of 5, the two earliest dropped.
        // tpot by start: 1..=27 ms; batch medians 5, 10, 15, 20, 25 ms (requests 3-7, ...).
        let mut recs: Vec<Record> = (1u32..=27)
            .map(|i| record(f64::from(i), 1.0, 10.0, 5, f64::from(i)))
            .collect();
        recs.reverse();
        let gen = of_records(&recs).and_then(|w| w.gen).expect("gen");
        let values = [
            1000.0 / 5.0,
            1000.0 / 10.0,
            1000.0 / 15.0,
            1000.0 / 20.0,
            1000.0 / 25.0,
        ];
        let mean = values.iter().sum::<f64>() / 5.0;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 4.0;
        assert!((gen.mean - mean).abs() < 1e-9, "{gen:?}");
        assert!((gen.se - (var / 5.0).sqrt()).abs() < 1e-9, "{gen:?}");
    }

    #[test]
    fn too_few_requests_give_no_batches() {
        let recs: Vec<Record> = (0u32..24)
            .map(|i| record(f64::from(i), 1.0, 10.0, 5, 2.0))
            .collect();
        assert_eq!(of_records(&recs), None);
    }
}
