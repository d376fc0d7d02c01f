//! Charts as data: suites say what to plot, renderers draw it (SVG for both reports).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Series drawn as lines over the categories (e.g. clients 1..32).
    Line,
    /// Series drawn as grouped bars per category.
    Bar,
    /// Series drawn as grouped boxes per category, from each value's [`Spread`]: the box
    /// spans the quartiles, a bar marks the median, whiskers reach the smallest and
    /// largest value.
    Box,
}

/// A distribution as a box plot draws it: the five numbers and how many values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Spread {
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
    pub n: usize,
}

impl Spread {
    /// The five numbers of `values` (NaN and infinities left out), quartiles by linear
    /// interpolation between order statistics (numpy's default, `method="linear"`);
    /// None for no finite value.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let q = |p: f64| {
            let at = p * (v.len() - 1) as f64;
            let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
            v[lo] + (v[hi] - v[lo]) * (at - lo as f64)
        };
        Some(Spread {
            min: v[0],
            q1: q(0.25),
            median: q(0.5),
            q3: q(0.75),
            max: v[v.len() - 1],
            n: v.len(),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Series {
    pub name: String,
    /// One value per category; None leaves a gap.
    pub values: Vec<Option<f64>>,
    /// Published reference values are drawn hollow / dashed.
    pub published: bool,
    /// For a [`Kind::Box`] chart, each category's distribution (its median is the
    /// value); empty for other kinds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread: Vec<Option<Spread>>,
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
            spread: Vec::new(),
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

    /// numpy.percentile(v, [0, 25, 50, 75, 100]) for the same values.
    #[test]
    fn five_numbers_as_numpy_gives_them() {
        let s = Spread::of(&[7.0, 1.0, 3.0, f64::NAN, 10.0, 2.0]).expect("spread");
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max, s.n),
            (1.0, 2.0, 3.0, 7.0, 10.0, 5)
        );
        let s = Spread::of(&[1.0, 2.0, 3.0, 4.0]).expect("spread");
        assert_eq!((s.q1, s.median, s.q3), (1.75, 2.5, 3.25));
        assert_eq!(Spread::of(&[4.5]).map(|s| (s.q1, s.q3)), Some((4.5, 4.5)));
        assert!(Spread::of(&[f64::NAN]).is_none());
    }
}
