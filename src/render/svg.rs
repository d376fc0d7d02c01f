//! Draws a [`Chart`] as a self-contained SVG: axes with round ticks, lines or grouped
//! bars, reference lines and a legend.
//!
//! Text is set in a monospaced font (DejaVu Sans Mono, which Typst embeds; a browser
//! without it takes its own monospace, of about the same advance), so every text's
//! width is known before it is drawn: a title that would not fit is wrapped, a legend
//! that would not fit takes more rows, and the header grows to hold them.

use std::fmt::Write;

use crate::model::chart::{Chart, Kind};

use super::num;

mod axes;
mod geometry;
mod header;
mod marks;
mod text;

use axes::axes;
use geometry::Geometry;
use header::{legend, Header};
use marks::{bars, boxes, line};
use text::esc;

/// Sized for two charts side by side on a landscape A4 page, text at about body size.
const W: f64 = 560.0;
const PLOT_H: f64 = 210.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 12.0;
const BOTTOM: f64 = 52.0;
const COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const FONT: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
/// The advance of one character of [`FONT`], in ems (DejaVu Sans Mono: 0.602; Menlo the
/// same, Consolas narrower), rounded up.
const ADVANCE: f64 = 0.61;
const TITLE_SIZE: f64 = 13.0;
const TEXT_SIZE: f64 = 11.0;

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

pub fn render(chart: &Chart) -> String {
    let header = Header::of(chart);
    let g = Geometry::of(chart, &header);
    let h = g.h;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h:.0}" viewBox="0 0 {W} {h:.0}" font-family="{FONT}" font-size="{TEXT_SIZE}">"#
    );
    let _ = write!(s, r#"<rect width="{W}" height="{h:.0}" fill="white"/>"#);
    for (i, line) in header.title.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text x="{RIGHT}" y="{:.1}" font-size="{TITLE_SIZE}" font-weight="bold">{}</text>"#,
            6.0 + TITLE_SIZE + i as f64 * (TITLE_SIZE + 4.0),
            esc(line)
        );
    }
    axes(&mut s, chart, &g);
    for k in 0..chart.series.len() {
        let color = COLORS[color_index(chart, k) % COLORS.len()];
        match chart.kind {
            Kind::Bar => bars(&mut s, chart, k, color, &g),
            Kind::Line => line(&mut s, chart, k, color, &g),
            Kind::Box => boxes(&mut s, chart, k, color, &g),
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
    legend(&mut s, chart, &header);
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::marks::line_width;
    use super::text::{label_lines, text_width};
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
                    spread: Vec::new(),
                },
                Series {
                    name: "published".into(),
                    values: vec![Some(12.0), Some(20.0), Some(25.0)],
                    published: true,
                    spread: Vec::new(),
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
    fn draws_a_box_per_distribution_and_the_axis_reaches_the_slowest_value() {
        let mut c = chart(Kind::Box);
        let spread = crate::model::chart::Spread::of(&[1.0, 2.0, 3.0, 4.0, 95.0]);
        c.series[0].spread = vec![spread, None, spread];
        c.series[1].spread = vec![None, None, None];
        let svg = render(&c);
        // Two boxes (the gaps and the series without spreads draw nothing).
        assert_eq!(svg.matches("<g><title>").count(), 2, "{svg}");
        assert!(
            svg.contains("median 3.00, quartiles 2.00 to 4.00, 1.00 to 95.0 "),
            "{svg}"
        );
        // The whisker's top (95) is inside the plot: the axis goes to 100.
        assert!(svg.contains(">100<"), "{svg}");
    }

    #[test]
    fn category_labels_wider_than_their_band_break_and_never_overlap() {
        let mut c = chart(Kind::Bar);
        c.categories = [
            "randwrite-8k-qd64",
            "randrw-8k-qd1024",
            "randread-8k-qd1024",
            "read-1m-qd32",
            "write-1m-qd32",
        ]
        .map(String::from)
        .to_vec();
        for s in c.series.iter_mut() {
            s.values = vec![Some(1.0); 5];
        }
        let one_line = render(&chart(Kind::Bar));
        let svg = render(&c);
        let band = (W - LEFT - RIGHT) / 5.0;
        let mut pieces = Vec::new();
        for cat in &c.categories {
            let lines = label_lines(cat, band - 6.0, TEXT_SIZE);
            let wide = text_width(cat, TEXT_SIZE) > band - 6.0;
            assert_eq!(lines.len() > 1, wide, "{cat}: {lines:?}");
            assert_eq!(lines.concat(), *cat, "nothing lost");
            for l in &lines {
                assert!(text_width(l, TEXT_SIZE) <= band - 6.0, "{l:?}");
                assert!(svg.contains(&format!(">{}</tspan>", esc(l))), "{l}");
            }
            pieces.extend(lines);
        }
        assert_eq!(pieces[..2], ["randwrite-8k-", "qd64"]);
        // The drawing grows by the extra label line.
        let height = |svg: &str| -> f64 {
            let at = svg.find("height=\"").expect("height") + 8;
            svg[at..]
                .split('"')
                .next()
                .unwrap_or("0")
                .parse()
                .expect("number")
        };
        assert!(height(&svg) > height(&one_line), "{svg}");
        // Words stay words: a space is kept inside a line and dropped where one ends.
        let spaced = label_lines("lmcache · 16 clients", 60.0, TEXT_SIZE);
        assert_eq!(spaced.join(" "), "lmcache · 16 clients", "{spaced:?}");
        assert!(
            spaced
                .iter()
                .all(|l| l.trim() == l && text_width(l, TEXT_SIZE) <= 60.0),
            "{spaced:?}"
        );
        // A label too long for three lines is cut, never drawn over its neighbours.
        let long = label_lines(&"x-".repeat(80), 60.0, TEXT_SIZE);
        assert_eq!(long.len(), 3);
        assert!(long[2].ends_with('…'));
    }

    #[test]
    fn a_long_title_wraps_and_a_wide_legend_takes_rows_inside_the_drawing() {
        let mut c = chart(Kind::Line);
        c.title = "randread 8k: mean latency against queue depth, every array and every run of the campaign, with the published figures".into();
        c.series = (0..4)
            .map(|i| Series {
                name: format!("a rather long series name number {i}"),
                values: vec![Some(1.0), Some(2.0), Some(3.0)],
                published: false,
                spread: Vec::new(),
            })
            .collect();
        let header = Header::of(&c);
        assert!(header.title.len() >= 2, "{:?}", header.title);
        for line in &header.title {
            assert!(RIGHT + text_width(line, TITLE_SIZE) <= W - RIGHT, "{line}");
        }
        assert!(header.legend.len() >= 2);
        for row in &header.legend {
            assert!(row.iter().all(|&(_, x)| x >= LEFT - 1.0));
        }
        let svg = render(&c);
        // Every text of the header fits the drawing.
        assert!(svg.contains(&format!(r#"width="{W}""#)));
        assert!(
            !svg.contains("against queue depth, every array and every run of the campaign, with")
        );
    }

    #[test]
    fn coinciding_lines_leave_the_one_underneath_visible() {
        let c = chart(Kind::Line);
        assert!(line_width(&c, 0) > line_width(&c, 1));
    }
}
