//! Which regime a ladder level ran in: how many tokens of conversation history the
//! client kept active, against the KV cache the server had. Each request sends its
//! conversation's whole history (`input_num_tokens`); the reply joins the history when
//! it ends; a conversation is active from its first request's start to its last
//! request's end (the client keeps `2 × clients` of them going). The sum over the
//! active conversations, swept over the level's requests, gives the peak and the
//! time-weighted mean.

use serde::Serialize;

use crate::parse::mt_records::Record;

/// Active conversation history over one level, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct History {
    pub peak_tokens: f64,
    /// Time-weighted over the level, from the first request's start to the last end.
    pub mean_tokens: f64,
    /// The most conversations active at once.
    pub peak_conversations: usize,
}

/// The active history of a level's records; none when a record lacks its conversation
/// or its prompt length (an older client), when the records span no time, or when they
/// are too many to number their events in 32 bits (over a billion).
///
/// Conversations are numbered in the order of their ids and each one's requests taken
/// in the order they started (the first given first, at one instant); the sweep's events
/// are ordered by time, ends before starts at one instant, then as they were made. The
/// orders are kept as integer keys sorted once, not maps and vectors per conversation.
pub fn active_history(records: &[Record]) -> Option<History> {
    let mut ids: Vec<&str> = Vec::with_capacity(records.len());
    for r in records {
        ids.push(r.conversation_id.as_deref()?);
        r.input_num_tokens?;
        if !(r.start_time_ms.is_finite() && r.latency_ms.is_finite() && r.latency_ms >= 0.0) {
            return None;
        }
    }
    // Each conversation's number: the rank of its id among the distinct ids.
    let mut first_seen: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(64);
    let seen: Vec<usize> = ids
        .iter()
        .map(|id| {
            let next = first_seen.len();
            *first_seen.entry(id).or_insert(next)
        })
        .collect();
    let mut distinct: Vec<(&str, usize)> = first_seen.into_iter().collect();
    distinct.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut rank = vec![0usize; distinct.len()];
    for (r, (_, first)) in distinct.iter().enumerate() {
        rank[*first] = r;
    }
    // The requests by conversation, then start, then the order given: one integer each
    // (conversation, start and index packed in that order), compared as one number
    // instead of field by field.
    let count = u32::try_from(records.len()).ok()?;
    let mut order: Vec<u128> = records
        .iter()
        .zip(&seen)
        .zip(0..count)
        .map(|((r, s), i)| {
            (rank[*s] as u128) << 96 | u128::from(ordered(r.start_time_ms)) << 32 | u128::from(i)
        })
        .collect();
    order.sort_unstable();
    let conv_of = |key: u128| (key >> 96) as usize;
    let record_of = |key: u128| &records[key as u32 as usize];
    // (time, order, conversation, history after the event); at one instant ends come
    // before starts, so a conversation handing over to the next is not counted twice.
    let mut events: Vec<(f64, u8, usize, f64)> = Vec::with_capacity(2 * records.len() + rank.len());
    for group in order.chunk_by(|a, b| conv_of(*a) == conv_of(*b)) {
        let conv = conv_of(group[0]);
        let reqs = group.iter().map(|&key| record_of(key));
        let last_end = reqs
            .clone()
            .map(|r| r.start_time_ms + r.latency_ms)
            .fold(f64::NEG_INFINITY, f64::max);
        for r in reqs {
            let input = r.input_num_tokens.unwrap_or(0) as f64;
            let end = r.start_time_ms + r.latency_ms;
            events.push((r.start_time_ms, 1, conv, input));
            if end < last_end {
                events.push((end, 0, conv, input + r.output_num_tokens as f64));
            }
        }
        events.push((last_end, 0, conv, 0.0));
    }
    // Time, then kind, then the order made, packed as above.
    let made = u32::try_from(events.len()).ok()?;
    let mut sweep: Vec<u128> = events
        .iter()
        .zip(0..made)
        .map(|(e, k)| u128::from(ordered(e.0)) << 64 | u128::from(e.1) << 32 | u128::from(k))
        .collect();
    sweep.sort_unstable();
    let event = |key: u128| events[key as u32 as usize];
    let (t0, t1) = (event(*sweep.first()?).0, event(*sweep.last()?).0);
    if t1 <= t0 {
        return None;
    }
    Some(sweep_events(
        sweep.iter().map(|&key| event(key)),
        rank.len(),
        (t0, t1),
    ))
}

/// The sweep over a level's events in order, `(time, kind, conversation, history after
/// it)`: the peak and time-weighted mean of the history held, and the most
/// conversations holding some at once.
fn sweep_events(
    events: impl Iterator<Item = (f64, u8, usize, f64)>,
    conversations: usize,
    (t0, t1): (f64, f64),
) -> History {
    let mut held = vec![0.0f64; conversations];
    let (mut total, mut peak, mut area, mut at) = (0.0f64, 0.0f64, 0.0f64, t0);
    let (mut active, mut peak_conversations) = (0usize, 0usize);
    for (t, _, conv, value) in events {
        area += total * (t - at);
        at = t;
        if held[conv] == 0.0 && value > 0.0 {
            active += 1;
        } else if held[conv] > 0.0 && value == 0.0 {
            active = active.saturating_sub(1);
        }
        total += value - held[conv];
        held[conv] = value;
        peak = peak.max(total);
        peak_conversations = peak_conversations.max(active);
    }
    History {
        peak_tokens: peak,
        mean_tokens: area / (t1 - t0),
        peak_conversations,
    }
}

/// An unsigned integer that orders as [`f64::total_cmp`] orders its float.
fn ordered(x: f64) -> u64 {
    let bits = x.to_bits() as i64;
    (bits ^ ((((bits >> 63) as u64) >> 1) as i64)) as u64 ^ (1 << 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(conv: &str, start: f64, latency: f64, input: u64, output: u64) -> Record {
        Record {
            ttft_ms: 1.0,
            tpot_ms: 1.0,
            latency_ms: latency,
            start_time_ms: start,
            output_num_tokens: output,
            input_num_tokens: Some(input),
            input_num_turns: Some(1),
            conversation_id: Some(conv.into()),
            client_id: Some(0),
        }
    }

    /// The ordering as it was first written (a map of conversations, stable sorts): the
    /// reference the integer-keyed one is held to.
    fn by_maps(records: &[Record]) -> Option<History> {
        let mut by: std::collections::BTreeMap<&str, Vec<&Record>> = Default::default();
        for r in records {
            let conv = r.conversation_id.as_deref()?;
            r.input_num_tokens?;
            if !(r.start_time_ms.is_finite() && r.latency_ms.is_finite() && r.latency_ms >= 0.0) {
                return None;
            }
            by.entry(conv).or_default().push(r);
        }
        let mut events: Vec<(f64, u8, usize, f64)> = Vec::new();
        for (i, reqs) in by.values_mut().enumerate() {
            reqs.sort_by(|a, b| a.start_time_ms.total_cmp(&b.start_time_ms));
            let last_end = reqs
                .iter()
                .map(|r| r.start_time_ms + r.latency_ms)
                .fold(f64::NEG_INFINITY, f64::max);
            for r in reqs.iter() {
                let input = r.input_num_tokens.unwrap_or(0) as f64;
                let end = r.start_time_ms + r.latency_ms;
                events.push((r.start_time_ms, 1, i, input));
                if end < last_end {
                    events.push((end, 0, i, input + r.output_num_tokens as f64));
                }
            }
            events.push((last_end, 0, i, 0.0));
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (t0, t1) = (events.first()?.0, events.last()?.0);
        if t1 <= t0 {
            return None;
        }
        // The sweep over the ordered events is shared: the order is what is tested.
        Some(sweep_events(events.into_iter(), by.len(), (t0, t1)))
    }

    #[test]
    fn the_sweep_agrees_with_the_map_version_bit_for_bit() {
        // Coarse times, so starts, ends and instants tie often; -0.0 and 0.0 both.
        let mut rng = crate::test_rng::XorShift(0x853c_49e6_748f_ea9b);
        let mut next = |m: u64| rng.next() % m;
        let mut compared = 0;
        for round in 0..3_000 {
            // Now and then more records and events than a byte can number.
            let n = if round % 300 == 1 {
                300 + next(400) as usize
            } else {
                1 + next(40) as usize
            };
            let convs = 1 + next(9);
            let recs: Vec<Record> = (0..n)
                .map(|_| {
                    let mut x = r(
                        &format!("c{}", next(convs)),
                        next(12) as f64 * 2.5 - if next(9) == 0 { 0.0 } else { 5.0 },
                        next(6) as f64 * 2.5,
                        next(300),
                        next(50),
                    );
                    if next(40) == 0 {
                        x.start_time_ms = -0.0;
                    }
                    if round % 500 == 7 && next(3) == 0 {
                        x.latency_ms = f64::NAN;
                    }
                    x
                })
                .collect();
            let (a, b) = (active_history(&recs), by_maps(&recs));
            match (a, b) {
                (Some(a), Some(b)) => {
                    assert_eq!(a.peak_tokens.to_bits(), b.peak_tokens.to_bits(), "{recs:?}");
                    assert_eq!(a.mean_tokens.to_bits(), b.mean_tokens.to_bits(), "{recs:?}");
                    assert_eq!(a.peak_conversations, b.peak_conversations);
                    compared += 1;
                }
                (a, b) => assert_eq!(a, b, "{recs:?}"),
            }
        }
        assert!(compared > 2_000, "{compared}");
    }

    #[test]
    fn the_packed_time_orders_as_total_cmp() {
        let mut xs = vec![
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            1.0,
            1e300,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        let mut rng = crate::test_rng::XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2_000 {
            let seed = rng.next();
            xs.push(f64::from_bits(seed));
        }
        for a in &xs {
            for b in xs.iter().take(200) {
                assert_eq!(ordered(*a).cmp(&ordered(*b)), a.total_cmp(b), "{a} {b}");
            }
        }
    }

    #[test]
    fn two_conversations_side_by_side() {
        // A: 100 tokens for 0..10, then its reply (10) joins: 110 until its second
        // request at 20 sends 150 until 30. B: 200 for 0..30.
        let recs = [
            r("A", 0.0, 10.0, 100, 10),
            r("A", 20.0, 10.0, 150, 10),
            r("B", 0.0, 30.0, 200, 5),
        ];
        let h = active_history(&recs).expect("history");
        assert_eq!(h.peak_tokens, 350.0);
        assert_eq!(h.peak_conversations, 2);
        // (300 * 10 + 310 * 10 + 350 * 10) / 30
        assert!((h.mean_tokens - 320.0).abs() < 1e-9, "{}", h.mean_tokens);
    }

    #[test]
    fn a_conversation_leaves_when_its_last_reply_ends() {
        let recs = [r("A", 0.0, 10.0, 100, 10), r("B", 10.0, 10.0, 300, 10)];
        let h = active_history(&recs).expect("history");
        // A ends at 10 as B starts: never both.
        assert_eq!(h.peak_tokens, 300.0);
        assert_eq!(h.peak_conversations, 1);
        assert!((h.mean_tokens - 200.0).abs() < 1e-9);
    }

    #[test]
    fn records_without_conversations_or_prompts_give_none() {
        let mut x = r("A", 0.0, 10.0, 100, 10);
        x.conversation_id = None;
        assert!(active_history(&[x]).is_none());
        let mut y = r("A", 0.0, 10.0, 100, 10);
        y.input_num_tokens = None;
        assert!(active_history(&[y]).is_none());
        assert!(active_history(&[]).is_none());
        assert!(active_history(&[r("A", 5.0, 0.0, 1, 1)]).is_none());
    }
}
