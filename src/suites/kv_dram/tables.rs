//! Test 3's table of restore attempts and its chart.

use super::*;

pub(super) fn attempts_table(all: &[(String, (String, Vec<Attempt>))]) -> Table {
    let mut rows = Vec::new();
    for (name, (file, attempts)) in all {
        for (i, a) in attempts.iter().enumerate() {
            rows.push(vec![
                Phrase::text(name),
                Phrase::count(i + 1),
                if i == 0 {
                    "first send".into()
                } else {
                    "restore".into()
                },
                Phrase::opt(a.seconds, 3),
                a.prompt_tokens.map_or(Phrase::dash(), Phrase::count),
                a.cached.map_or("null".into(), Phrase::count),
                phrase!(
                    "{}:{}",
                    phrase::name(file),
                    phrase::name(a.line.to_string())
                ),
            ]);
        }
    }
    Table {
        title: "Test 3 requests, in order".into(),
        columns: [
            "check",
            "#",
            "request",
            "time s",
            "prompt tokens",
            "cached",
            "from",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        notes: Vec::new(),
    }
}

/// Warm and after-restart restores: measured and published, both variants.
pub(super) fn chart(values: &[[Option<f64>; 4]]) -> Option<Chart> {
    if values.len() != 2 {
        return None;
    }
    let names = [
        "connector alone",
        "LMCache",
        "connector published",
        "LMCache published",
    ];
    let c = Chart {
        id: "kv-dram-restores".into(),
        title: "Restore time: connector alone vs LMCache with a DRAM tier".into(),
        kind: Kind::Bar,
        x_label: String::new(),
        y_label: "seconds".into(),
        categories: vec![
            "warm (after reset_prefix_cache)".into(),
            "after a vLLM restart".into(),
        ],
        series: (0..4)
            .map(|k| Series {
                name: names[k].into(),
                values: values.iter().map(|v| v[k]).collect(),
                published: k >= 2,
                spread: Vec::new(),
            })
            .collect(),
        lines: Vec::new(),
    };
    c.has_data().then_some(c)
}
