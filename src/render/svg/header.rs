//! The header above the plot: the title's lines and the legend's rows, laid out so
//! that they fit the drawing, and the legend drawn there.

use std::fmt::Write;

use crate::model::chart::Chart;

use super::text::{esc, text_width, wrap};
use super::{color_index, ADVANCE, COLORS, LEFT, RIGHT, TEXT_SIZE, TITLE_SIZE, W};

/// The legend's entries laid out in rows from the right: (series, x) per row.
fn legend_rows(chart: &Chart) -> Vec<Vec<(usize, f64)>> {
    let room = W - LEFT - RIGHT;
    let entry = |k: usize| text_width(&chart.series[k].name, TEXT_SIZE) + 16.0 + 14.0;
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = 0.0;
    for k in 0..chart.series.len() {
        let w = entry(k).min(room);
        if rows.is_empty() || used + w > room {
            rows.push(Vec::new());
            used = 0.0;
        }
        used += w;
        if let Some(r) = rows.last_mut() {
            r.push(k);
        }
    }
    rows.into_iter()
        .map(|row| {
            let mut x = W - RIGHT;
            let mut placed: Vec<(usize, f64)> = row
                .iter()
                .rev()
                .map(|&k| {
                    x -= entry(k).min(room);
                    (k, x)
                })
                .collect();
            placed.reverse();
            placed
        })
        .collect()
}

/// The header above the plot: the title's lines and the legend's rows.
pub(super) struct Header {
    pub(super) title: Vec<String>,
    pub(super) legend: Vec<Vec<(usize, f64)>>,
}

impl Header {
    pub(super) fn of(chart: &Chart) -> Header {
        Header {
            title: wrap(&chart.title, W - 2.0 * RIGHT, TITLE_SIZE),
            legend: legend_rows(chart),
        }
    }

    pub(super) fn legend_top(&self) -> f64 {
        10.0 + self.title.len() as f64 * (TITLE_SIZE + 4.0)
    }

    /// Where the plot starts.
    pub(super) fn height(&self) -> f64 {
        self.legend_top() + self.legend.len() as f64 * (TEXT_SIZE + 5.0) + 14.0
    }
}

/// The legend, under the title, right-aligned, in as many rows as its entries need.
pub(super) fn legend(s: &mut String, chart: &Chart, header: &Header) {
    for (row, entries) in header.legend.iter().enumerate() {
        let y = header.legend_top() + row as f64 * (TEXT_SIZE + 5.0);
        for &(k, lx) in entries {
            let series = &chart.series[k];
            let color = COLORS[color_index(chart, k) % COLORS.len()];
            let fill = if series.published { "white" } else { color };
            // Only a name wider than a whole row is cut.
            let room = ((W - LEFT - RIGHT - 30.0) / (ADVANCE * TEXT_SIZE)).floor() as usize;
            let name = if series.name.chars().count() > room.max(4) {
                let mut n: String = series.name.chars().take(room.max(4) - 1).collect();
                n.push('…');
                n
            } else {
                series.name.clone()
            };
            let _ = write!(
                s,
                r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="10" fill="{fill}" stroke="{color}" stroke-width="1.5"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                y,
                lx + 16.0,
                y + 9.0,
                esc(&name)
            );
        }
    }
}
