//! Draws a [`Chart`] as a self-contained SVG: axes with round ticks, lines or grouped
//! bars, reference lines and a legend. Text uses fonts Typst ships.

use std::fmt::Write;

use crate::model::chart::{Chart, Kind};

const W: f64 = 720.0;
const H: f64 = 340.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 58.0;
const COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const FONT: &str = "Libertinus Serif, New Computer Modern, DejaVu Sans, serif";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A round step so that about five ticks cover `max`.
fn tick_step(max: f64) -> f64 {
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

fn fmt_tick(v: f64, step: f64) -> String {
    if step >= 1.0 {
        let s = format!("{v:.0}");
        // thousands separators for readability
        let neg = s.starts_with('-');
        let digits: Vec<char> = s.trim_start_matches('-').chars().collect();
        let mut out = String::new();
        for (i, c) in digits.iter().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(*c);
        }
        if neg {
            format!("-{out}")
        } else {
            out
        }
    } else {
        let decimals = (-step.log10().floor()) as usize;
        format!("{v:.decimals$}")
    }
}

/// A published series takes the colour of the measured series it is named after
/// (`raid10 published` is drawn hollow in `raid10`'s colour).
fn color_index(chart: &Chart, k: usize) -> usize {
    let s = &chart.series[k];
    if s.published {
        if let Some(i) = chart
            .series
            .iter()
            .position(|o| !o.published && s.name.starts_with(&o.name))
        {
            return i;
        }
    }
    k
}

/// The plot's geometry: the y scale's top and tick step, and the category bands.
struct Geometry {
    top: f64,
    step: f64,
    plot_w: f64,
    plot_h: f64,
    band: f64,
}

impl Geometry {
    fn of(chart: &Chart) -> Geometry {
        let mut max = chart
            .series
            .iter()
            .flat_map(|s| s.values.iter().flatten())
            .chain(chart.lines.iter().map(|(_, v)| v))
            .copied()
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        if max <= 0.0 {
            max = 1.0;
        }
        let step = tick_step(max * 1.05);
        let plot_w = W - LEFT - RIGHT;
        Geometry {
            top: (max * 1.05 / step).ceil() * step,
            step,
            plot_w,
            plot_h: H - TOP - BOTTOM,
            band: plot_w / chart.categories.len().max(1) as f64,
        }
    }

    fn y(&self, v: f64) -> f64 {
        TOP + self.plot_h * (1.0 - v / self.top)
    }

    fn x_mid(&self, i: usize) -> f64 {
        LEFT + self.band * (i as f64 + 0.5)
    }
}

pub fn render(chart: &Chart) -> String {
    let g = Geometry::of(chart);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="{FONT}" font-size="12">"#
    );
    let _ = write!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = write!(
        s,
        r#"<text x="{LEFT}" y="20" font-size="15" font-weight="bold">{}</text>"#,
        esc(&chart.title)
    );
    axes(&mut s, chart, &g);
    for k in 0..chart.series.len() {
        let color = COLORS[color_index(chart, k) % COLORS.len()];
        match chart.kind {
            Kind::Bar => bars(&mut s, chart, k, color, &g),
            Kind::Line => line(&mut s, chart, k, color, &g),
        }
    }
    for (label, val) in &chart.lines {
        let yy = g.y(*val);
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#ff7f0e" stroke-width="1.5" stroke-dasharray="4 3"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#ff7f0e">{}</text>"##,
            W - RIGHT,
            W - RIGHT - 4.0,
            yy - 4.0,
            esc(label)
        );
    }
    legend(&mut s, chart);
    s.push_str("</svg>\n");
    s
}

/// The grid, the y ticks and label, the categories and the x label, the zero line.
fn axes(s: &mut String, chart: &Chart, g: &Geometry) {
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
        TOP + g.plot_h / 2.0,
        esc(&chart.y_label)
    );
    // Many categories (a series over time): every k-th label, so they do not overlap.
    let every = chart.categories.len().div_ceil(12).max(1);
    for (i, c) in chart.categories.iter().enumerate() {
        if i % every != 0 {
            continue;
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            g.x_mid(i),
            H - BOTTOM + 16.0,
            esc(c)
        );
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + g.plot_w / 2.0,
        H - 14.0,
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
fn bars(s: &mut String, chart: &Chart, k: usize, color: &str, g: &Geometry) {
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

/// One series as a line with its points; a missing value lifts the pen.
fn line(s: &mut String, chart: &Chart, k: usize, color: &str, g: &Geometry) {
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
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{color}">{}</circle>"#,
                    g.x_mid(i),
                    g.y(val),
                    hover(chart, k, i, val)
                );
            }
            None => pen_up = true,
        }
    }
    let _ = write!(
        s,
        r#"<path d="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
        path.trim_end()
    );
    s.push_str(&points);
}

/// The legend, top right, one row.
fn legend(s: &mut String, chart: &Chart) {
    let mut lx = W - RIGHT;
    for (k, series) in chart.series.iter().enumerate().rev() {
        let color = COLORS[color_index(chart, k) % COLORS.len()];
        let width = 6.2 * series.name.chars().count() as f64 + 24.0;
        lx -= width;
        let fill = if series.published { "white" } else { color };
        let _ = write!(
            s,
            r#"<rect x="{lx:.1}" y="28" width="12" height="10" fill="{fill}" stroke="{color}" stroke-width="1.5"/><text x="{:.1}" y="37">{}</text>"#,
            lx + 16.0,
            esc(&series.name)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::chart::Series;

    fn chart(kind: Kind) -> Chart {
        Chart {
            id: "t".into(),
            title: "A & B <test>".into(),
            kind,
            x_label: "clients".into(),
            y_label: "tok/s".into(),
            categories: vec!["1".into(), "2".into(), "4".into()],
            series: vec![
                Series {
                    name: "adp".into(),
                    values: vec![Some(10.0), None, Some(30.0)],
                    published: false,
                },
                Series {
                    name: "published".into(),
                    values: vec![Some(12.0), Some(20.0), Some(25.0)],
                    published: true,
                },
            ],
            lines: vec![("SLA 20".into(), 20.0)],
        }
    }

    #[test]
    fn draws_lines_with_gaps_and_escapes_text() {
        let svg = render(&chart(Kind::Line));
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("A &amp; B &lt;test&gt;"));
        assert_eq!(svg.matches("<circle").count(), 5, "one dot per value");
        assert!(
            svg.contains(r#"stroke-dasharray="6 4""#),
            "published is dashed"
        );
        assert!(svg.contains("SLA 20"));
        // A gap starts a new sub-path.
        let first_path = svg.split(r#"<path d=""#).nth(1).unwrap_or("");
        let d = first_path.split('"').next().unwrap_or("");
        assert_eq!(d.matches('M').count(), 2, "{d}");
    }

    #[test]
    fn every_point_and_bar_names_its_value_on_hover() {
        for kind in [Kind::Line, Kind::Bar] {
            let svg = render(&chart(kind));
            assert_eq!(svg.matches("<title>").count(), 5, "{kind:?}: one per value");
            assert!(svg.contains("<title>adp · 4: 30.0 tok/s</title>"), "{svg}");
            assert!(svg.contains("<title>published · 2: 20.0 tok/s</title>"));
        }
    }

    #[test]
    fn draws_grouped_bars() {
        let svg = render(&chart(Kind::Bar));
        assert_eq!(
            svg.matches("<rect").count(),
            1 + 5 + 2,
            "background, bars, legend"
        );
    }

    #[test]
    fn picks_round_ticks() {
        assert_eq!(tick_step(100.0), 20.0);
        assert_eq!(tick_step(7.0), 2.0);
        assert_eq!(fmt_tick(20000.0, 5000.0), "20,000");
        assert_eq!(fmt_tick(0.5, 0.1), "0.5");
    }
}
