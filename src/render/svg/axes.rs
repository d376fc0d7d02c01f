//! The axes: round ticks on the y scale, the grid, the category labels and both axis
//! labels.

use std::fmt::Write;

use crate::model::chart::Chart;

use super::geometry::Geometry;
use super::text::{esc, label_lines};
use super::{LEFT, RIGHT, TEXT_SIZE, W};

fn fmt_tick(v: f64, step: f64) -> String {
    if step >= 1.0 {
        crate::model::units::grouped(&format!("{v:.0}"))
    } else {
        let decimals = (-step.log10().floor()) as usize;
        format!("{v:.decimals$}")
    }
}

/// The grid, the y ticks and label, the categories and the x label, the zero line.
pub(super) fn axes(s: &mut String, chart: &Chart, g: &Geometry) {
    let mut v = 0.0;
    while v <= g.top + g.step * 0.01 {
        let yy = g.y(v);
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#dddddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            yy + 4.0,
            fmt_tick(v, g.step)
        );
        v += g.step;
    }
    let _ = write!(
        s,
        r#"<text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        g.plot_top + g.plot_h / 2.0,
        esc(&chart.y_label)
    );
    // Many categories (a series over time): every k-th label, so they do not overlap.
    let every = chart.categories.len().div_ceil(12).max(1);
    for (i, c) in chart.categories.iter().enumerate() {
        if i % every != 0 {
            continue;
        }
        // Labels shown every k-th band may use k bands.
        let lines = label_lines(c, g.band * every as f64 - 6.0, TEXT_SIZE);
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">"#,
            g.x_mid(i),
            g.plot_top + g.plot_h + 16.0,
        );
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                s,
                r#"<tspan x="{:.1}" dy="{}">{}</tspan>"#,
                g.x_mid(i),
                if k == 0 { 0.0 } else { TEXT_SIZE + 2.0 },
                esc(line)
            );
        }
        s.push_str("</text>");
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + g.plot_w / 2.0,
        g.h - 14.0,
        esc(&chart.x_label)
    );
    let _ = write!(
        s,
        r##"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#333333"/>"##,
        g.y(0.0),
        W - RIGHT,
        g.y(0.0)
    );
}

#[cfg(test)]
mod tests {
    use super::super::geometry::tick_step;
    use super::*;

    #[test]
    fn picks_round_ticks() {
        assert_eq!(tick_step(100.0), 20.0);
        assert_eq!(tick_step(7.0), 2.0);
        assert_eq!(fmt_tick(20000.0, 5000.0), "20,000");
        assert_eq!(fmt_tick(0.5, 0.1), "0.5");
    }
}
