//! The trend of every criterion's number across several inputs (campaigns), in the
//! order given or by the runs' start times, with a sparkline per row.

use serde::Serialize;

use super::Campaign;

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TrendInput {
    pub input: String,
    /// When the run started, from a collector's manifest (`started`), if any said.
    pub started: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TrendRow {
    pub id: String,
    pub criterion: String,
    pub unit: String,
    /// One per input, in the trend's order; None where that input did not measure it.
    pub values: Vec<Option<f64>>,
    pub statuses: Vec<String>,
    pub sparkline: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Trend {
    /// How the inputs are ordered, and what was missing for that.
    pub order: String,
    pub inputs: Vec<TrendInput>,
    pub rows: Vec<TrendRow>,
}

impl Trend {
    /// The trend as a frame: one row per criterion and input.
    pub fn frame(&self) -> anyhow::Result<crate::frames::Frame> {
        let mut pos = Vec::new();
        let (mut input, mut started, mut crit, mut unit, mut value, mut status) = (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        );
        for r in &self.rows {
            for (i, inp) in self.inputs.iter().enumerate() {
                pos.push(i as u64 + 1);
                input.push(inp.input.clone());
                started.push(inp.started.clone().unwrap_or_default());
                crit.push(r.id.clone());
                unit.push(r.unit.clone());
                value.push(r.values[i]);
                status.push(r.statuses[i].clone());
            }
        }
        crate::frames::FrameBuilder::new("trend")
            .count("position", pos)
            .str("input", input)
            .str("started", started)
            .str("criterion", crit)
            .str("unit", unit)
            .f64("value", value)
            .str("status", status)
            .build()
    }
}

/// A row's values as a small inline SVG line: one point per input that measured it (its
/// tooltip the input's number and the value), joined where consecutive inputs did.
pub fn sparkline_svg(values: &[Option<f64>]) -> String {
    use std::fmt::Write;
    const W: f64 = 160.0;
    const H: f64 = 32.0;
    const PAD: f64 = 4.0;
    let present: Vec<f64> = values
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let lo = present.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = present.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let step = (W - 2.0 * PAD) / (values.len().max(2) - 1) as f64;
    let at = |i: usize, v: f64| {
        let y = if hi > lo {
            H - PAD - (v - lo) / (hi - lo) * (H - 2.0 * PAD)
        } else {
            H / 2.0
        };
        (PAD + step * i as f64, y)
    };
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="trend">"#
    );
    let mut prev: Option<(f64, f64)> = None;
    for (i, v) in values.iter().enumerate() {
        let Some(v) = v.filter(|v| v.is_finite()) else {
            prev = None;
            continue;
        };
        let (x, y) = at(i, v);
        if let Some((px, py)) = prev {
            let _ = write!(
                out,
                r##"<line x1="{px:.1}" y1="{py:.1}" x2="{x:.1}" y2="{y:.1}" stroke="#1f77b4" stroke-width="1.5"/>"##
            );
        }
        let _ = write!(
            out,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="2.5" fill="#1f77b4"><title>#{}: {}</title></circle>"##,
            i + 1,
            crate::render::num(v)
        );
        prev = Some((x, y));
    }
    out.push_str("</svg>");
    out
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

pub fn sparkline(values: &[Option<f64>]) -> String {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let (lo, hi) = present
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(*v), h.max(*v))
        });
    values
        .iter()
        .map(|v| match v {
            None => ' ',
            Some(v) if hi > lo => {
                let i = ((v - lo) / (hi - lo) * 7.0).round() as usize;
                BARS[i.min(7)]
            }
            Some(_) => BARS[3],
        })
        .collect()
}

/// Whether a criterion's unit (as written: `x (the lower of output and gen)`, `result
/// files`) is a unit of measurement rather than what a count counts.
pub fn is_measurement(unit: &str) -> bool {
    let first = unit.split_whitespace().next().unwrap_or("");
    crate::model::measurement::Unit::from_symbol(first).is_some()
}

pub fn trend(results: &[Campaign], by_time: bool) -> Trend {
    let mut idx: Vec<usize> = (0..results.len()).collect();
    let times: Vec<Option<String>> = results.iter().map(|a| a.started.clone()).collect();
    let order = if by_time {
        // ISO-8601 UTC strings sort as times; inputs without one keep their place after.
        idx.sort_by(|&a, &b| match (&times[a], &times[b]) {
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.cmp(&b),
        });
        let missing: Vec<&str> = idx
            .iter()
            .filter(|&&i| times[i].is_none())
            .map(|&i| results[i].input.as_str())
            .collect();
        if missing.is_empty() {
            "by the runs' start times (the collectors' manifests)".to_string()
        } else {
            format!(
                "by the runs' start times; no manifest gives one for {}, kept in the order given after the others",
                missing.join(", ")
            )
        }
    } else {
        "as given".to_string()
    };
    let mut rows: Vec<TrendRow> = Vec::new();
    for (pos, &i) in idx.iter().enumerate() {
        // Only measurements: a criterion whose number counts things (result files,
        // levels with failures) is a pass/fail tally, and its trend would read as a
        // change in performance.
        for v in results[i]
            .verdicts
            .iter()
            .filter(|v| is_measurement(&v.unit))
        {
            let row = match rows.iter_mut().find(|r| r.id == v.id) {
                Some(r) => r,
                None => {
                    rows.push(TrendRow {
                        id: v.id.clone(),
                        criterion: v.criterion.clone(),
                        unit: v.unit.clone(),
                        values: vec![None; idx.len()],
                        statuses: vec!["-".into(); idx.len()],
                        sparkline: String::new(),
                    });
                    rows.last_mut().expect("just pushed")
                }
            };
            row.values[pos] = v.measured_value;
            row.statuses[pos] = v.status.clone();
        }
    }
    for r in &mut rows {
        r.sparkline = sparkline(&r.values);
    }
    Trend {
        order,
        inputs: idx
            .iter()
            .map(|&i| TrendInput {
                input: results[i].input.clone(),
                started: times[i].clone(),
            })
            .collect(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_between_the_extremes() {
        assert_eq!(sparkline(&[Some(1.0), Some(2.0), None, Some(8.0)]), "▁▂ █");
        assert_eq!(sparkline(&[Some(3.0), Some(3.0)]), "▄▄");
    }

    #[test]
    fn counts_of_files_are_not_trended_measurements_are() {
        let judged = |id: &str, unit: &str, v: f64| crate::compare::campaign::Judged {
            id: id.into(),
            criterion: id.into(),
            unit: unit.into(),
            measured_value: Some(v),
            status: "pass".into(),
        };
        let campaign = |files: f64, ratio: f64| Campaign {
            input: format!("run-{files}"),
            started: None,
            samples: Vec::new(),
            verdicts: vec![
                judged("toy.exit-status", "result files", files),
                judged("toy.ratio", "x", ratio),
                judged("toy.time", "s (slowest restore)", ratio),
                judged("toy.failures", "levels with failures", 0.0),
            ],
            setup: Default::default(),
            parameters: Vec::new(),
        };
        let t = trend(&[campaign(26.0, 6.4), campaign(14.0, 6.1)], false);
        let ids: Vec<&str> = t.rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["toy.ratio", "toy.time"]);
        assert!(is_measurement("x (the lower of output and gen)"));
        assert!(is_measurement("% of theoretical"));
        assert!(!is_measurement("of 4 conditions met"));
        assert!(!is_measurement("registration lines"));
    }
}
