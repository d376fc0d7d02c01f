//! The series' marks: grouped bars, boxes over quartiles, lines with their points, each
//! naming its value on hover.

use std::fmt::Write;

use crate::model::chart::Chart;

use super::geometry::Geometry;
use super::text::esc;
use super::LEFT;

/// What a point or bar shows on hover (an SVG `<title>`, which browsers show as a
/// tooltip with or without scripts, and Typst ignores): series, category, value, unit.
fn hover(chart: &Chart, k: usize, i: usize, val: f64) -> String {
    format!(
        "<title>{} · {}: {} {}</title>",
        esc(&chart.series[k].name),
        esc(chart.categories.get(i).map_or("", String::as_str)),
        super::num(val),
        esc(&chart.y_label)
    )
}

/// Series `k`'s bars, side by side with the other series' in each band.
pub(super) fn bars(s: &mut String, chart: &Chart, k: usize, color: &str, g: &Geometry) {
    let series = &chart.series[k];
    let bw = g.band * 0.8 / chart.series.len().max(1) as f64;
    for (i, val) in series.values.iter().enumerate() {
        let Some(val) = val.filter(|v| v.is_finite()) else {
            continue;
        };
        let x0 = LEFT + g.band * i as f64 + g.band * 0.1 + bw * k as f64;
        let (fill, stroke) = if series.published {
            ("white", color)
        } else {
            (color, color)
        };
        let _ = write!(
            s,
            r#"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="{stroke}" stroke-width="1.5">{}</rect>"#,
            g.y(val),
            (bw - 2.0).max(1.0),
            (g.y(0.0) - g.y(val)).max(0.0),
            hover(chart, k, i, val)
        );
    }
}

/// Series `k`'s boxes, side by side with the other series' in each band: a whisker from
/// the smallest to the largest value, a box over the quartiles, a bar at the median; on
/// hover, the five numbers and how many values.
pub(super) fn boxes(s: &mut String, chart: &Chart, k: usize, color: &str, g: &Geometry) {
    let series = &chart.series[k];
    let bw = g.band * 0.8 / chart.series.len().max(1) as f64;
    for (i, b) in series.spread.iter().enumerate() {
        let Some(b) = b.filter(|b| {
            [b.min, b.q1, b.median, b.q3, b.max]
                .iter()
                .all(|v| v.is_finite())
        }) else {
            continue;
        };
        let x0 = LEFT + g.band * i as f64 + g.band * 0.1 + bw * k as f64;
        let (w, mid) = ((bw - 2.0).max(1.0), x0 + (bw - 2.0).max(1.0) / 2.0);
        let hover = format!(
            "<title>{} · {}: median {}, quartiles {} to {}, {} to {} {} ({} values)</title>",
            esc(&series.name),
            esc(chart.categories.get(i).map_or("", String::as_str)),
            super::num(b.median),
            super::num(b.q1),
            super::num(b.q3),
            super::num(b.min),
            super::num(b.max),
            esc(&chart.y_label),
            b.n
        );
        let _ = write!(
            s,
            r##"<g>{hover}<line x1="{mid:.1}" y1="{:.1}" x2="{mid:.1}" y2="{:.1}" stroke="{color}" stroke-width="1.5"/><rect x="{x0:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="white" stroke="{color}" stroke-width="1.5"/><line x1="{x0:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{color}" stroke-width="3"/></g>"##,
            g.y(b.max),
            g.y(b.min),
            g.y(b.q3),
            (g.y(b.q1) - g.y(b.q3)).max(1.0),
            g.y(b.median),
            x0 + w,
            g.y(b.median),
        );
    }
}

/// Series drawn earlier are drawn wider, so a later one lying on top of it (the same
/// numbers) leaves a border of it visible: coinciding series do not hide each other.
pub(super) fn line_width(chart: &Chart, k: usize) -> f64 {
    1.5 + 1.5 * chart.series.len().saturating_sub(k + 1) as f64
}

/// A point's radius: about the line's half width and a little more; small on a dense
/// series (a time series of hundreds of samples), where the points only carry the hover.
fn point_radius(chart: &Chart, k: usize) -> f64 {
    if chart.categories.len() > 40 {
        1.2
    } else {
        line_width(chart, k) / 2.0 + 2.0
    }
}

/// One series as a line with its points; a missing value lifts the pen.
pub(super) fn line(s: &mut String, chart: &Chart, k: usize, color: &str, g: &Geometry) {
    let series = &chart.series[k];
    let dash = if series.published {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    };
    let mut path = String::new();
    // The points after the line, so that the pointer finds them above it.
    let mut points = String::new();
    let mut pen_up = true;
    for (i, val) in series.values.iter().enumerate() {
        match val.filter(|v| v.is_finite()) {
            Some(val) => {
                let _ = write!(
                    path,
                    "{}{:.1},{:.1} ",
                    if pen_up { "M" } else { "L" },
                    g.x_mid(i),
                    g.y(val)
                );
                pen_up = false;
                let _ = write!(
                    points,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="{color}">{}</circle>"#,
                    g.x_mid(i),
                    g.y(val),
                    point_radius(chart, k),
                    hover(chart, k, i, val)
                );
            }
            None => pen_up = true,
        }
    }
    let _ = write!(
        s,
        r#"<path d="{}" fill="none" stroke="{color}" stroke-width="{:.1}"{dash}/>"#,
        path.trim_end(),
        line_width(chart, k)
    );
    s.push_str(&points);
}
