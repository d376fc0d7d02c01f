//! The plot's geometry: the y scale's top and tick step, the category bands, and the
//! drawing's height with the category labels' lines.

use crate::model::chart::Chart;

use super::header::Header;
use super::text::label_lines;
use super::{BOTTOM, LEFT, PLOT_H, RIGHT, TEXT_SIZE, W};

/// A round step so that about five ticks cover `max`.
pub(super) fn tick_step(max: f64) -> f64 {
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// The most lines any category label of `chart` takes in a band of `band` px.
fn label_rows(chart: &Chart, band: f64) -> usize {
    chart
        .categories
        .iter()
        .map(|c| label_lines(c, band - 6.0, TEXT_SIZE).len())
        .max()
        .unwrap_or(1)
}

/// The plot's geometry: the y scale's top and tick step, and the category bands.
pub(super) struct Geometry {
    /// Where the plot's top is, under the header.
    pub(super) plot_top: f64,
    /// The whole drawing's height.
    pub(super) h: f64,
    pub(super) top: f64,
    pub(super) step: f64,
    pub(super) plot_w: f64,
    pub(super) plot_h: f64,
    pub(super) band: f64,
}

impl Geometry {
    pub(super) fn of(chart: &Chart, header: &Header) -> Geometry {
        let mut max = chart
            .series
            .iter()
            .flat_map(|s| s.values.iter().flatten())
            .chain(
                chart
                    .series
                    .iter()
                    .flat_map(|s| s.spread.iter().flatten().map(|b| &b.max)),
            )
            .chain(chart.lines.iter().map(|(_, v)| v))
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        if max <= 0.0 {
            max = 1.0;
        }
        let step = tick_step(max * 1.05);
        let plot_w = W - LEFT - RIGHT;
        let plot_top = header.height();
        let band = plot_w / chart.categories.len().max(1) as f64;
        // Category labels that need more than one line push the x label down.
        let extra = (label_rows(chart, band).saturating_sub(1)) as f64 * (TEXT_SIZE + 2.0);
        Geometry {
            plot_top,
            h: plot_top + PLOT_H + BOTTOM + extra,
            top: (max * 1.05 / step).ceil() * step,
            step,
            plot_w,
            plot_h: PLOT_H,
            band,
        }
    }

    pub(super) fn y(&self, v: f64) -> f64 {
        self.plot_top + self.plot_h * (1.0 - v / self.top)
    }

    pub(super) fn x_mid(&self, i: usize) -> f64 {
        LEFT + self.band * (i as f64 + 0.5)
    }
}
