//! Charts as data: suites say what to plot, renderers draw it (SVG for both reports).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Series drawn as lines over the categories (e.g. clients 1..32).
    Line,
    /// Series drawn as grouped bars per category.
    Bar,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Series {
    pub name: String,
    /// One value per category; None leaves a gap.
    pub values: Vec<Option<f64>>,
    /// Published reference values are drawn hollow / dashed.
    pub published: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Chart {
    /// File-name safe, unique within a report: `kv-ladder-gen`.
    pub id: String,
    pub title: String,
    pub kind: Kind,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    /// Horizontal reference lines: (label, value), e.g. the SLA.
    pub lines: Vec<(String, f64)>,
}

/// At most this many series share one chart; more are split so the chart stays legible.
pub const MAX_SERIES: usize = 4;

impl Chart {
    /// Whether there is anything to draw.
    pub fn has_data(&self) -> bool {
        self.series
            .iter()
            .any(|s| s.values.iter().any(Option::is_some))
    }

    /// Splits a chart with many series into several with at most [`MAX_SERIES`] each.
    pub fn split(self) -> Vec<Chart> {
        if self.series.len() <= MAX_SERIES {
            return vec![self];
        }
        let parts = self.series.len().div_ceil(MAX_SERIES);
        self.series
            .chunks(MAX_SERIES)
            .enumerate()
            .map(|(i, chunk)| Chart {
                id: format!("{}-{}", self.id, i + 1),
                title: format!("{} ({}/{parts})", self.title, i + 1),
                series: chunk.to_vec(),
                ..self.clone()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_many_series() {
        let s = |n: usize| Series {
            name: format!("s{n}"),
            values: vec![Some(1.0)],
            published: false,
        };
        let c = Chart {
            id: "c".into(),
            title: "T".into(),
            kind: Kind::Line,
            x_label: String::new(),
            y_label: String::new(),
            categories: vec!["1".into()],
            series: (0..9).map(s).collect(),
            lines: vec![],
        };
        let parts = c.split();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[2].series.len(), 1);
        assert_eq!(parts[1].id, "c-2");
        assert_eq!(parts[0].title, "T (1/3)");
    }
}
