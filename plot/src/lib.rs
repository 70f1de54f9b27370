//! Pictures with plotters: every figure is drawn once by a function generic over the backend
//! and written as SVG (and PNG where asked). Text uses a TrueType font found on the machine
//! (`OMPADAPT_FONT`, else DejaVu Sans or Liberation Sans in the usual places): plotters'
//! `ab_glyph` backend needs no freetype or fontconfig at build time.
//!
//! `ompadapt_plot`, a crate of its own apart from `ompadapt-harness`: the command's `ompadapt
//! show` and `ompadapt trace --html` draw with it without running any evaluation, and the
//! harness's figures draw with it too. Its only dependency is plotters (and anyhow), so the
//! command's pictures do not pull in the harness, and neither lives in `ompadapt-benchmarks`,
//! which holds benchmarks only.

#![deny(missing_docs)]

use std::ops::Range;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Series colours (colour-blind-safe Okabe–Ito order, then a grey).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(240, 228, 66),
    RGBColor(100, 100, 100),
];

/// The `i`-th series colour (the palette repeats).
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

const FONT_PLACES: [&str; 6] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
];

/// Registers a font for plotters once; the error says what to install.
pub fn ensure_font() -> Result<()> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        let wanted = std::env::var("OMPADAPT_FONT").ok();
        let places: Vec<String> = wanted.iter().cloned().chain(FONT_PLACES.iter().map(|s| s.to_string())).collect();
        for p in &places {
            if let Ok(bytes) = std::fs::read(p) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                for style in [FontStyle::Normal, FontStyle::Bold] {
                    if plotters::style::register_font("sans-serif", style, bytes).is_err() {
                        return Err(format!("{p} is not a TrueType font"));
                    }
                }
                return Ok(());
            }
        }
        Err("no TrueType font found for the pictures: install fonts-dejavu-core (scripts/bootstrap.sh does) or set OMPADAPT_FONT to a .ttf file".to_owned())
    })
    .clone()
    .map_err(anyhow::Error::msg)
}

/// A plotters error as one line.
pub fn pe<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing failed: {e:?}")
}

/// The series legend every figure draws: a framed, mostly opaque box at `pos`.
pub fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    pos: SeriesLabelPosition,
    opacity: f64,
) -> Result<()> {
    chart.configure_series_labels().background_style(WHITE.mix(opacity)).border_style(BLACK).position(pos).draw().map_err(pe)
}

/// A picture drawn on any plotters backend (SVG or bitmap).
pub trait Figure {
    /// Draws the picture on `root` (already filled white).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>;
}

/// Writes `fig` as SVG at `svg`, and as PNG at `png` when given.
pub fn write(svg: &Path, png: Option<&Path>, size: (u32, u32), fig: &impl Figure) -> Result<()> {
    ensure_font()?;
    for p in std::iter::once(svg).chain(png) {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| anyhow!("cannot create {}: {e}", dir.display()))?;
        }
    }
    {
        let root = SVGBackend::new(svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(pe)?;
        fig.draw(&root)?;
        root.present().map_err(pe)?;
    }
    if let Some(png) = png {
        let root = BitMapBackend::new(png, size).into_drawing_area();
        root.fill(&WHITE).map_err(pe)?;
        fig.draw(&root)?;
        root.present().map_err(pe)?;
    }
    let len = std::fs::metadata(svg)?.len();
    if len == 0 {
        bail!("{} came out empty", svg.display());
    }
    Ok(())
}

/// An axis range: logarithmic when the values are positive and span more than a decade.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// Lowest value shown.
    pub lo: f64,
    /// Highest value shown.
    pub hi: f64,
    /// A log10 axis.
    pub log: bool,
}

impl Span {
    /// The span of the finite `values`, padded (5 % on a linear span, ×1.3 on a log span).
    pub fn of(values: impl IntoIterator<Item = f64>) -> Span {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.into_iter().filter(|v| v.is_finite()) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            return Span { lo: 0.0, hi: 1.0, log: false };
        }
        let log = lo > 0.0 && hi / lo > 10.0;
        if log {
            return Span { lo: lo / 1.3, hi: hi * 1.3, log };
        }
        let pad = if hi > lo { (hi - lo) * 0.05 } else { lo.abs().max(1.0) * 0.5 };
        Span { lo: if lo >= 0.0 { (lo - pad).max(0.0) } else { lo - pad }, hi: hi + pad, log }
    }

    /// Plot coordinate of `x` (log10 on a log span: plotters then draws one linear axis type).
    pub fn fwd(&self, x: f64) -> f64 {
        if self.log {
            x.max(self.lo).log10()
        } else {
            x
        }
    }

    /// The value at plot coordinate `u`.
    pub fn inv(&self, u: f64) -> f64 {
        if self.log {
            10f64.powf(u)
        } else {
            u
        }
    }

    /// The axis range in plot coordinates.
    pub fn range(&self) -> std::ops::Range<f64> {
        self.fwd(self.lo)..self.fwd(self.hi)
    }

    /// `i`-th of `n` points spread evenly (geometrically on a log span).
    pub fn point(&self, i: usize, n: usize) -> f64 {
        let f = if n <= 1 { 0.5 } else { i as f64 / (n - 1) as f64 };
        if self.log {
            (self.lo.ln() + f * (self.hi.ln() - self.lo.ln())).exp()
        } else {
            self.lo + f * (self.hi - self.lo)
        }
    }

    /// Edges of `n` equal cells (n + 1 values).
    pub fn edges(&self, n: usize) -> Vec<f64> {
        (0..=n).map(|i| self.point(i, n + 1).max(self.lo)).map(|x| x.min(self.hi)).collect::<Vec<_>>()
    }
}

/// A number for axis labels and tables: integers as such (up to 10 million), others short, with
/// SI suffixes for large magnitudes.
pub fn short(x: f64) -> String {
    let a = x.abs();
    if x.fract() == 0.0 && a < 1e7 {
        return format!("{x:.0}");
    }
    let (v, suffix) = if a >= 1e9 {
        (x / 1e9, "G")
    } else if a >= 1e6 {
        (x / 1e6, "M")
    } else if a >= 1e4 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let digits = if v.abs() >= 100.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else if v.abs() >= 1.0 {
        2
    } else {
        3
    };
    let t = format!("{v:.digits$}");
    let t = if t.contains('.') { t.trim_end_matches('0').trim_end_matches('.').to_owned() } else { t };
    format!("{t}{suffix}")
}

/// A number for an axis' ticks, one format for every tick: three significant digits at most,
/// with an SI suffix from a thousand up (`512`, `1k`, `3.2M`, `10M`, `1.5G`), so that one
/// axis never shows `10M` beside `3200000`.
pub fn si(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { "0".to_owned() } else { format!("{x}") };
    }
    // round to three significant digits first, so that 999 999 becomes 1M, not 1000k
    let m = 10f64.powi(x.abs().log10().floor() as i32 - 2);
    let r = (x / m).round() * m;
    let (v, suffix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .iter()
        .find(|(scale, _)| r.abs() >= *scale)
        .map_or((r, ""), |&(scale, suffix)| (r / scale, suffix));
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let t = format!("{v:.digits$}");
    let t = if t.contains('.') { t.trim_end_matches('0').trim_end_matches('.').to_owned() } else { t };
    format!("{t}{suffix}")
}

/// [`si`] of `x` rounded to two significant digits: the ticks of a log axis, which fall
/// between powers of ten.
pub fn si2(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return si(x);
    }
    let m = 10f64.powi(x.abs().log10().floor() as i32 - 1);
    si((x / m).round() * m)
}

/// A grid of labels (`grid[row][column]`) as few rectangles, for pictures that colour a grid
/// of cells (a decision map): the runs of one label along each row, and a run repeated on the
/// next rows joined into one. Each is (columns, rows, label), half-open ranges of cells; every
/// cell lies in exactly one. A map whose labels change along a few lines takes a few
/// rectangles instead of one element per cell.
pub fn merged_cells(grid: &[Vec<usize>]) -> Vec<(Range<usize>, Range<usize>, usize)> {
    let mut done = Vec::new();
    // the rectangles the previous row may continue: (columns, first row, label)
    let mut open: Vec<(Range<usize>, usize, usize)> = Vec::new();
    for (r, row) in grid.iter().enumerate() {
        let mut next = Vec::new();
        let mut c = 0;
        while c < row.len() {
            let end = (c..row.len()).find(|&e| row[e] != row[c]).unwrap_or(row.len());
            let label = row[c];
            match open.iter().position(|(oc, _, ol)| *oc == (c..end) && *ol == label) {
                Some(i) => next.push(open.swap_remove(i)),
                None => next.push((c..end, r, label)),
            }
            c = end;
        }
        done.extend(open.drain(..).map(|(cols, r0, label)| (cols, r0..r, label)));
        open = next;
    }
    done.extend(open.into_iter().map(|(cols, r0, label)| (cols, r0..grid.len(), label)));
    done
}

/// Times in ns for humans.
pub fn time(ns: f64) -> String {
    if !ns.is_finite() {
        "—".to_owned()
    } else if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// A time axis label (two significant digits).
pub fn time_label(ns: f64) -> String {
    if !ns.is_finite() || ns <= 0.0 {
        return time(ns);
    }
    let e = ns.log10().floor() as i32 - 1;
    let m = 10f64.powi(e);
    let r = (ns / m).round() * m;
    let (v, unit) = if r >= 1e9 {
        (r / 1e9, "s")
    } else if r >= 1e6 {
        (r / 1e6, "ms")
    } else if r >= 1e3 {
        (r / 1e3, "µs")
    } else {
        (r, "ns")
    };
    format!("{} {unit}", short(v))
}

/// A point marker: with more variants than hue families, shape tells apart what colour alone
/// cannot (and it survives a black-and-white print).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// A filled disc.
    Circle,
    /// A filled square.
    Square,
    /// A filled triangle, point up.
    Triangle,
    /// A filled diamond.
    Diamond,
    /// An x.
    Cross,
}

const MARKERS: [Marker; 5] = [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond, Marker::Cross];

/// How one variant is drawn in every panel and page: colour, marker and line dashes (`None`:
/// solid; `Some((dash, gap))` in pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesStyle {
    /// Lines, marks and the decision band's fill.
    pub color: RGBColor,
    /// The mark at each measured point.
    pub marker: Marker,
    /// Dash and gap of its line, px (None: solid).
    pub dash: Option<(u32, u32)>,
}

/// Hue families, dark end and light end: the variants of one kind (`threads=…`,
/// `num_threads=…`) share a family and differ by shade, so related variants look related and
/// unrelated ones look different. Ten families of up to 5 shades give 30+ distinct colours.
const FAMILIES: [(RGBColor, RGBColor); 10] = [
    (RGBColor(8, 48, 107), RGBColor(107, 174, 214)),  // blue
    (RGBColor(140, 45, 4), RGBColor(253, 174, 97)),   // orange
    (RGBColor(0, 90, 50), RGBColor(116, 196, 118)),   // green
    (RGBColor(84, 39, 143), RGBColor(177, 160, 210)), // purple
    (RGBColor(153, 0, 13), RGBColor(251, 106, 74)),   // red
    (RGBColor(1, 108, 89), RGBColor(102, 194, 164)),  // teal
    (RGBColor(122, 1, 119), RGBColor(247, 104, 161)), // magenta
    (RGBColor(102, 76, 0), RGBColor(214, 180, 60)),   // ochre
    (RGBColor(84, 48, 5), RGBColor(191, 129, 45)),    // brown
    (RGBColor(0, 60, 48), RGBColor(128, 205, 193)),   // sea green
];

/// The family of `serial` (and of nothing else): neutral, it is the baseline.
const NEUTRAL: (RGBColor, RGBColor) = (RGBColor(40, 40, 40), RGBColor(150, 150, 150));

/// Dash patterns for the second and later rounds of families (more kinds than families).
const DASHES: [Option<(u32, u32)>; 3] = [None, Some((8, 4)), Some((2, 3))];

/// A variant's kind: its name up to `=`, `[` or `(` (`threads=0.25` → `threads`,
/// `schedule(dynamic, 4)` → `schedule`).
pub fn kind_of(name: &str) -> &str {
    name.find(['=', '[', '(']).map_or(name, |i| &name[..i]).trim()
}

fn shade((dark, light): (RGBColor, RGBColor), t: f64) -> RGBColor {
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
    RGBColor(mix(dark.0, light.0), mix(dark.1, light.1), mix(dark.2, light.2))
}

/// One style per variant name, in order: a hue family per kind (in the order kinds first
/// appear; `serial` grey), shades dark to light within a kind, a marker per member, and
/// dashes once the families are used up. Distinct colours for up to 5 variants of each of 10
/// kinds; past that, distinct colour-marker-dash styles.
pub fn variant_styles(names: &[String]) -> Vec<SeriesStyle> {
    let mut kinds: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let k = kind_of(n);
        match kinds.iter_mut().find(|(kk, _)| *kk == k) {
            Some((_, members)) => members.push(i),
            None => kinds.push((k, vec![i])),
        }
    }
    let mut out = vec![SeriesStyle { color: NEUTRAL.0, marker: Marker::Circle, dash: None }; names.len()];
    let mut next_family = 0;
    for (kind, members) in &kinds {
        let (family, dash) = if *kind == "serial" {
            (NEUTRAL, None)
        } else {
            let f = next_family;
            next_family += 1;
            (FAMILIES[f % FAMILIES.len()], DASHES[(f / FAMILIES.len()) % DASHES.len()])
        };
        // at most 5 shades: the next members repeat the shades with the markers shifted (25
        // distinct pairs), then with dashes
        let shades = members.len().min(5);
        for (j, &i) in members.iter().enumerate() {
            let t = if shades <= 1 { 0.2 } else { (j % shades) as f64 / (shades - 1) as f64 };
            let dash = if j >= 25 { Some((4, 4)) } else { dash };
            out[i] = SeriesStyle { color: shade(family, t), marker: MARKERS[(j + j / 5) % MARKERS.len()], dash };
        }
    }
    out
}

/// `#rrggbb`, for pages that use the same colours.
pub fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// Black or white, whichever reads better on `c`.
pub fn ink_on(c: RGBColor) -> RGBColor {
    let lum = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if lum > 140.0 {
        BLACK
    } else {
        WHITE
    }
}

/// Draws `m` centred on pixel `at` of `area` (pixel coordinates: one function for every
/// marker shape, whatever the chart's coordinates).
pub fn draw_marker<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, at: (i32, i32), m: Marker, c: RGBColor, r: i32) -> Result<()> {
    let fill = c.filled();
    let edge = WHITE.stroke_width(1);
    let (x, y) = at;
    match m {
        Marker::Circle => {
            area.draw(&Circle::new(at, r, fill)).map_err(pe)?;
            area.draw(&Circle::new(at, r, edge)).map_err(pe)
        }
        Marker::Square => {
            let s = r * 9 / 10;
            area.draw(&Rectangle::new([(x - s, y - s), (x + s, y + s)], fill)).map_err(pe)
        }
        Marker::Triangle => area.draw(&Polygon::new(vec![(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)], fill)).map_err(pe),
        Marker::Diamond => area.draw(&Polygon::new(vec![(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)], fill)).map_err(pe),
        Marker::Cross => {
            let s = c.stroke_width(3);
            area.draw(&PathElement::new(vec![(x - r, y - r), (x + r, y + r)], s)).map_err(pe)?;
            area.draw(&PathElement::new(vec![(x - r, y + r), (x + r, y - r)], s)).map_err(pe)
        }
    }
}

/// A line through pixel points in `style` (dashed where the style says).
pub fn draw_line<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, pts: &[(i32, i32)], style: &SeriesStyle, width: u32) -> Result<()> {
    let s = style.color.stroke_width(width);
    match style.dash {
        None => area.draw(&PathElement::new(pts.to_vec(), s)).map_err(pe),
        Some((d, g)) => area.draw(&plotters::element::DashedPathElement::new(pts.iter().copied(), d, g, s)).map_err(pe),
    }
}

/// Rectangles in pixels: where a figure's panels and its legend go, decided before drawing
/// so that the legend never covers data (and a test can check it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Left edge.
    pub x0: i32,
    /// Top edge.
    pub y0: i32,
    /// Right edge (exclusive).
    pub x1: i32,
    /// Bottom edge (exclusive).
    pub y1: i32,
}

impl Rect {
    /// Whether the two share any pixel.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// A figure with a legend column on the right: the panels' rectangle and the legend's.
#[derive(Clone, Copy, Debug)]
pub struct LegendLayout {
    /// Where the data panels go.
    pub panels: Rect,
    /// Where the legend column goes.
    pub legend: Rect,
}

/// Pixels per character of the legend's text (14 px DejaVu Sans averages under 8).
const LEGEND_CHAR_W: i32 = 8;

impl LegendLayout {
    /// A canvas `panels_w` wide for the panels plus a legend wide enough for `names`.
    pub fn of(panels_w: u32, height: u32, names: &[String]) -> LegendLayout {
        let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(4).max(12) as i32;
        let legend_w = (52 + longest * LEGEND_CHAR_W).clamp(210, 360);
        let pw = panels_w as i32;
        LegendLayout {
            panels: Rect { x0: 0, y0: 0, x1: pw, y1: height as i32 },
            legend: Rect { x0: pw, y0: 0, x1: pw + legend_w, y1: height as i32 },
        }
    }

    /// The whole canvas.
    pub fn size(&self) -> (u32, u32) {
        (self.legend.x1 as u32, self.panels.y1.max(self.legend.y1) as u32)
    }
}

/// The legend column: a title, then per entry a line sample in its style with its marker and
/// its name, then notes (wrapped to the column) saying how to read the marks.
pub fn legend_column<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, entries: &[(String, SeriesStyle)], notes: &[&str]) -> Result<()> {
    let (w, h) = area.dim_in_pixel();
    area.draw(&Text::new(title.to_owned(), (12, 14), ("sans-serif", 15).into_font().style(FontStyle::Bold))).map_err(pe)?;
    let mut y = 44;
    for (name, style) in entries {
        draw_line(area, &[(12, y), (42, y)], style, 2)?;
        draw_marker(area, (27, y), style.marker, style.color, 5)?;
        area.draw(&Text::new(name.clone(), (50, y - 8), ("sans-serif", 14))).map_err(pe)?;
        y += 22;
    }
    y += 8;
    // 12 px text averages about 6.5 px a character
    let per_line = ((w as usize).saturating_sub(24) * 2 / 13).max(10);
    for line in notes.iter().flat_map(|n| wrap(n, per_line)) {
        area.draw(&Text::new(line, (12, y), ("sans-serif", 12).into_font().color(&RGBColor(70, 70, 70)))).map_err(pe)?;
        y += 16;
    }
    let rule = RGBColor(200, 200, 200).stroke_width(1);
    area.draw(&PathElement::new(vec![(0, 4), (0, y.min(h as i32 - 4))], rule)).map_err(pe)?;
    Ok(())
}

/// `text` in lines of at most `width` characters, broken at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One format on an axis: SI suffixes from a thousand up, never a long integer beside a
    /// suffixed number (the issue's `10M` beside `3200000`).
    #[test]
    fn ticks_have_one_format() {
        let cases = [
            (0.0, "0"),
            (0.125, "0.125"),
            (2.5, "2.5"),
            (512.0, "512"),
            (1000.0, "1k"),
            (16384.0, "16.4k"),
            (999_999.0, "1M"),
            (3_200_000.0, "3.2M"),
            (10_000_000.0, "10M"),
            (1.5e9, "1.5G"),
            (-4_000.0, "-4k"),
        ];
        for (x, want) in cases {
            assert_eq!(si(x), want, "{x}");
        }
        // a log axis' ticks between 10^5 and 10^8 (plotters' steps on log10): all suffixed
        for i in 0..=30 {
            let label = si2(10f64.powf(5.0 + 0.1 * i as f64));
            let digits = label.trim_end_matches(['k', 'M', 'G']);
            assert!(label.ends_with(['k', 'M', 'G']) && digits.len() <= 3, "{label}");
        }
        assert_eq!(si2(3_162_277.0), "3.2M");
        assert_eq!(si2(31_622.0), "32k");
    }

    #[test]
    fn a_grid_of_labels_becomes_few_rectangles() {
        // a 100 × 40 grid split at column 30 and, right of it, at row 25: three rectangles
        let label = |r: usize, c: usize| usize::from(c >= 30) * (1 + usize::from(r >= 25));
        let grid: Vec<Vec<usize>> = (0..40).map(|r| (0..100).map(|c| label(r, c)).collect()).collect();
        let mut cells = merged_cells(&grid);
        cells.sort_by_key(|(c, r, _)| (c.start, r.start));
        assert_eq!(cells, vec![(0..30, 0..40, 0), (30..100, 0..25, 1), (30..100, 25..40, 2)]);
        // a diagonal boundary: at most two rectangles a row, and every cell covered once, with its label
        let diagonal: Vec<Vec<usize>> = (0..60).map(|r| (0..180).map(|c| usize::from(c > 3 * r)).collect()).collect();
        for g in [&grid, &diagonal] {
            let mut seen = vec![vec![None; g[0].len()]; g.len()];
            let cells = merged_cells(g);
            for (cols, rows, label) in &cells {
                for r in rows.clone() {
                    for c in cols.clone() {
                        assert!(seen[r][c].replace(*label).is_none(), "cell ({r}, {c}) twice");
                    }
                }
            }
            assert!(seen.iter().enumerate().all(|(r, row)| row.iter().enumerate().all(|(c, l)| *l == Some(g[r][c]))));
        }
        assert!(merged_cells(&diagonal).len() <= 120);
        assert!(merged_cells(&[]).is_empty());
    }
}
