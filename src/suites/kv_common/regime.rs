//! Which regime a ladder level ran in: how many tokens of conversation history the
//! client kept active, against the KV cache the server had. Each request sends its
//! conversation's whole history (`input_num_tokens`); the reply joins the history when
//! it ends; a conversation is active from its first request's start to its last
//! request's end (the client keeps `2 × clients` of them going). The sum over the
//! active conversations, swept over the level's requests, gives the peak and the
//! time-weighted mean.

use std::collections::BTreeMap;

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
/// or its prompt length (an older client), or when the records span no time.
pub fn active_history(records: &[Record]) -> Option<History> {
    let mut by: BTreeMap<&str, Vec<&Record>> = BTreeMap::new();
    for r in records {
        let conv = r.conversation_id.as_deref()?;
        r.input_num_tokens?;
        if !(r.start_time_ms.is_finite() && r.latency_ms.is_finite() && r.latency_ms >= 0.0) {
            return None;
        }
        by.entry(conv).or_default().push(r);
    }
    // (time, order, conversation, history after the event); at one instant ends come
    // before starts, so a conversation handing over to the next is not counted twice.
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
    let mut held = vec![0.0f64; by.len()];
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
    Some(History {
        peak_tokens: peak,
        mean_tokens: area / (t1 - t0),
        peak_conversations,
    })
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
