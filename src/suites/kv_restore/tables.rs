//! Test 1's table of requests and its chart.

use super::*;

pub(super) fn attempts_table(
    plain: Option<&(String, Vec<Attempt>)>,
    adp: Option<&(String, Vec<Attempt>)>,
) -> Table {
    let mut rows = Vec::new();
    for (variant, data) in [(PLAIN, plain), (ADP, adp)] {
        let Some((file, attempts)) = data else {
            continue;
        };
        for (i, a) in attempts.iter().enumerate() {
            let role = match (variant, i, &a.failed) {
                (_, _, Some(why)) => phrase!("FAILED: {}", name(why)),
                (ADP, 0, _) => "cold: computed and written to the card".into(),
                (ADP, _, _) => "after restart: restored".into(),
                _ => "recompute".into(),
            };
            rows.push(vec![
                Phrase::from(variant),
                Phrase::count(i + 1),
                role,
                Phrase::opt(a.seconds, 3),
                a.prompt_tokens.map_or(Phrase::dash(), Phrase::count),
                a.cached.map_or("null".into(), Phrase::count),
                match (a.prompt_tokens, a.cached) {
                    (Some(p), Some(c)) if p > 0 => {
                        phrase!("{}", qty(100.0 * c as f64 / p as f64, 2, Unit::Percent))
                    }
                    _ => Phrase::dash(),
                },
                phrase!("{}:{}", name(file), name(a.line.to_string())),
            ]);
        }
    }
    Table {
        title: "Test 1 requests, in order".into(),
        columns: [
            "variant",
            "#",
            "request",
            "time s",
            "prompt tokens",
            "cached",
            "cached %",
            "from",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: vec!["With max_tokens 1 the response time is the time to first token.".into()],
    }
}

/// Restore and recompute, measured beside the published values for the model.
pub(super) fn chart(
    recompute: Option<&Measured>,
    restore: Option<&Measured>,
    published: Option<&crate::suites::kv_common::reference::ModelRef>,
) -> Option<Chart> {
    let title = published.map_or("the model".to_string(), |m| m.title.clone());
    let c = Chart {
        id: "kv-restore-times".into(),
        title: format!("{title}: time to first token after a restart"),
        kind: Kind::Bar,
        x_label: String::new(),
        y_label: "seconds".into(),
        categories: vec!["measured".into(), "published".into()],
        series: vec![
            Series {
                name: "restore (ADP)".into(),
                values: vec![
                    restore.and_then(|m| m.median),
                    published.map(|m| m.restore_s),
                ],
                published: false,
                spread: Vec::new(),
            },
            Series {
                name: "recompute (plain)".into(),
                values: vec![
                    recompute.and_then(|m| m.median),
                    published.map(|m| m.recompute_s),
                ],
                published: false,
                spread: Vec::new(),
            },
        ],
        lines: Vec::new(),
    };
    c.has_data().then_some(c)
}
