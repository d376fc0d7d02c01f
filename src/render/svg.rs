//! Draws a [`Chart`] as a self-contained SVG: axes with round ticks, lines or grouped
//! bars, reference lines and a legend.
//!
//! Text is set in a monospaced font (DejaVu Sans Mono, which Typst embeds; a browser
//! without it takes its own monospace, of about the same advance), so every text's
//! width is known before it is drawn: a title that would not fit is wrapped, a legend
//! that would not fit takes more rows, and the header grows to hold them.

use std::fmt::Write;

use crate::model::chart::{Chart, Kind};

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

/// How wide `text` is at `size` in [`FONT`].
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * ADVANCE * size
}

/// `text` in lines of at most `width` at `size`, broken between words (a word longer
/// than a line is cut, ending in `…`).
fn wrap(text: &str, width: f64, size: f64) -> Vec<String> {
    let max = ((width / (ADVANCE * size)).floor() as usize).max(8);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let word: String = if word.chars().count() > max {
            let mut w: String = word.chars().take(max - 1).collect();
            w.push('…');
            w
        } else {
            word.to_string()
        };
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A category's label in lines that fit `width` at `size`: broken after a `-`, `_` or
/// `/`, or at a space (`randwrite-8k-` / `qd64`), so neighbouring labels never run into
/// each other; a piece longer than a line is cut, ending in `…`. At most three lines.
fn label_lines(label: &str, width: f64, size: f64) -> Vec<String> {
    let max = ((width / (ADVANCE * size)).floor() as usize).max(3);
    if label.chars().count() <= max {
        return vec![label.to_string()];
    }
    // Pieces ending at a break: `randwrite-`, `8k-`, `qd64`; `adp `, `8 `, `clients`
    // (a space stays with the piece before it, and is dropped where a line ends).
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    for c in label.chars() {
        piece.push(c);
        if matches!(c, '-' | '_' | '/' | ' ') {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for p in pieces {
        let joined = line.chars().count() + p.trim_end().chars().count();
        if !line.trim_end().is_empty() && joined > max {
            lines.push(std::mem::take(&mut line).trim_end().to_string());
        }
        line.push_str(&p);
    }
    if !line.trim_end().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    for l in lines.iter_mut() {
        if l.chars().count() > max {
            *l = l.chars().take(max - 1).chain(['…']).collect();
        }
    }
    if lines.len() > 3 {
        lines.truncate(3);
        let last = &mut lines[2];
        let keep: String = last.chars().take(max.saturating_sub(1)).collect();
        *last = format!("{keep}…");
    }
    lines
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
struct Header {
    title: Vec<String>,
    legend: Vec<Vec<(usize, f64)>>,
}

impl Header {
    fn of(chart: &Chart) -> Header {
        Header {
            title: wrap(&chart.title, W - 2.0 * RIGHT, TITLE_SIZE),
            legend: legend_rows(chart),
        }
    }

    fn legend_top(&self) -> f64 {
        10.0 + self.title.len() as f64 * (TITLE_SIZE + 4.0)
    }

    /// Where the plot starts.
    fn height(&self) -> f64 {
        self.legend_top() + self.legend.len() as f64 * (TEXT_SIZE + 5.0) + 14.0
    }
}

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
        crate::model::units::grouped(&format!("{v:.0}"))
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
    /// Where the plot's top is, under the header.
    plot_top: f64,
    /// The whole drawing's height.
    h: f64,
    top: f64,
    step: f64,
    plot_w: f64,
    plot_h: f64,
    band: f64,
}

impl Geometry {
    fn of(chart: &Chart, header: &Header) -> Geometry {
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

    fn y(&self, v: f64) -> f64 {
        self.plot_top + self.plot_h * (1.0 - v / self.top)
    }

    fn x_mid(&self, i: usize) -> f64 {
        LEFT + self.band * (i as f64 + 0.5)
    }
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

/// Series `k`'s boxes, side by side with the other series' in each band: a whisker from
/// the smallest to the largest value, a box over the quartiles, a bar at the median; on
/// hover, the five numbers and how many values.
fn boxes(s: &mut String, chart: &Chart, k: usize, color: &str, g: &Geometry) {
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
fn line_width(chart: &Chart, k: usize) -> f64 {
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

/// The legend, under the title, right-aligned, in as many rows as its entries need.
fn legend(s: &mut String, chart: &Chart, header: &Header) {
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

    #[test]
    fn picks_round_ticks() {
        assert_eq!(tick_step(100.0), 20.0);
        assert_eq!(tick_step(7.0), 2.0);
        assert_eq!(fmt_tick(20000.0, 5000.0), "20,000");
        assert_eq!(fmt_tick(0.5, 0.1), "0.5");
    }
}
