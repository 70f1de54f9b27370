//! The picture `ompadapt show --svg/--png` draws: measured time per variant over one feature
//! (top), the model's decision over the feature range (bottom: a map over two features that
//! vary apart from each other, a band along one that varies, words where none does:
//! [`Axes`]), and one legend column to the right of both, outside the data.
//!
//! The map is a grid of decisions drawn as merged rectangles (`plot::merged_cells`), so that
//! its size follows the number of regions of one decision, not of cells: a picture of a few
//! measurements is tens of kilobytes.
//!
//! Every variant has one style (colour, marker, dashes: `plot::variant_styles`, a hue family
//! per kind of variant) in both panels, so the band can be read against the times and eleven
//! or more variants stay apart. The times panel shows the spread of each pair's measurements,
//! so that noise is not mistaken for structure.

use std::collections::BTreeMap;

use anyhow::Result;
use ompadapt_plot::{self as plot, pe, Figure, LegendLayout, SeriesStyle, Span};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::axes::{self, Axes, Follower};
use super::Learned;

/// The picture of one region.
pub struct RegionFigure<'a> {
    pub learned: &'a Learned,
    /// The features the panels are drawn over.
    pub axes: Axes,
    /// The features that move along with the axes' (the others are held at their median).
    followers: Vec<Follower>,
}

/// Each feature's values over the region's measured vectors.
fn columns(l: &Learned) -> Vec<Vec<f64>> {
    let c = &l.costs;
    let p = l.file.features.len().clamp(1, c.p);
    (0..p).map(|j| (0..c.n()).map(|i| c.row(i)[j]).collect()).collect()
}

impl<'a> RegionFigure<'a> {
    /// The picture over the feature `asked` for on the horizontal axis (else the first that
    /// varies) and the axes `axes::choose` finds for it.
    pub fn new(learned: &'a Learned, asked: Option<usize>) -> Result<RegionFigure<'a>> {
        let cols = columns(learned);
        let axes = axes::choose(&cols, &learned.file.features, asked).map_err(anyhow::Error::msg)?;
        Ok(RegionFigure { learned, axes, followers: axes::followers(&cols, axes) })
    }
}

/// Width and height of the two panels, px (the legend column comes on top of the width).
const PANELS_W: u32 = 900;
const HEIGHT: u32 = 760;
/// Both panels leave this much on the left for the y axis, so that their x axes line up.
const Y_LABELS_W: u32 = 104;

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The spread of one (feature vector, variant) pair's measurements, ns.
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    pub min: f64,
    pub q1: f64,
    pub q3: f64,
    pub max: f64,
}

impl Spread {
    fn of(times: &mut [f64]) -> Option<Spread> {
        times.sort_by(f64::total_cmp);
        let n = times.len();
        let at = |f: f64| times[((n - 1) as f64 * f).round() as usize];
        (n > 0).then(|| Spread { min: times[0], q1: at(0.25), q3: at(0.75), max: times[n - 1] })
    }
}

impl RegionFigure<'_> {
    /// Where the panels and the legend go (the canvas is as wide as both).
    pub fn layout(&self) -> LegendLayout {
        LegendLayout::of(PANELS_W, HEIGHT, &self.learned.file.variants)
    }

    fn styles(&self) -> Vec<SeriesStyle> {
        let l = self.learned;
        let names: Vec<String> = (0..l.costs.k).map(|v| l.variant_name(v)).collect();
        plot::variant_styles(&names)
    }

    /// Per variant: (feature value on the axis, spread) of every measured vector, from the
    /// stored measurements (warm ones, else the cold ones, as `store::costs` labels by; only
    /// those after a drift where a drift superseded the older ones).
    pub fn spreads(&self) -> Vec<Vec<(f64, Spread)>> {
        let f = &self.learned.file;
        let mut pooled: BTreeMap<(usize, Vec<u64>), (bool, Vec<f64>)> = BTreeMap::new();
        for s in &f.samples {
            let Some(v) = f.variants.iter().position(|n| *n == s.variant) else { continue };
            if s.features.len() <= self.axes.x() {
                continue;
            }
            let times = if s.times_ns.is_empty() { &s.cold_ns } else { &s.times_ns };
            let key = (v, s.features.iter().map(|x| x.to_bits()).collect());
            let e = pooled.entry(key).or_insert((false, Vec::new()));
            if s.supersedes && !e.0 {
                *e = (true, Vec::new());
            }
            if s.supersedes || !e.0 {
                e.1.extend(times.iter().copied().filter(|t| t.is_finite() && *t > 0.0).map(|t| t.max(f64::MIN_POSITIVE)));
            }
        }
        let mut out = vec![Vec::new(); f.variants.len()];
        for ((v, key), (_, mut times)) in pooled {
            let x = f64::from_bits(key[self.axes.x()]);
            if let Some(s) = Spread::of(&mut times) {
                out[v].push((x, s));
            }
        }
        out
    }
}

impl Figure for RegionFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        let layout = self.layout();
        let (panels, legend) = root.split_horizontally(layout.panels.x1);
        let (top, bottom) = panels.split_vertically(layout.panels.y1 * 11 / 20);
        let styles = self.styles();
        self.times(&top, &styles)?;
        self.decisions(&bottom, &styles)?;
        let l = self.learned;
        let entries: Vec<(String, SeriesStyle)> = styles.iter().enumerate().map(|(v, s)| (l.variant_name(v), *s)).collect();
        let top = "Top: a mark is the lower quartile of a vector's measurements (what the model learns from); the bar spans min–max, its thick part the middle half.";
        let bottom = match self.axes {
            Axes::Map { .. } => "Bottom: colour is the model's decision; marks are the measured best at each measured vector.",
            Axes::Band { .. } => "Bottom: upper row, the model's decision; lower row, the measured best per measured vector.",
            Axes::Constant { .. } => "Bottom: no feature varies in the data, so there is nothing to draw the decisions over.",
        };
        plot::legend_column(&legend.margin(8, 0, 0, 0), "variants", &entries, &[top, bottom])
    }
}

/// Pixel position of `p` on the chart's plotting area (whose pixels `area` addresses).
fn px<DB: DrawingBackend>(chart: &Chart<'_, DB>, area: &DrawingArea<DB, Shift>, p: (f64, f64)) -> (i32, i32) {
    let (x, y) = chart.backend_coord(&p);
    let (bx, by) = area.get_base_pixel();
    (x - bx, y - by)
}

/// A feature axis' labels, one format on the axis (`plot::si`): rounded to two digits on a
/// log axis.
fn x_label(xs: Span, u: f64) -> String {
    if xs.log {
        plot::si2(xs.inv(u))
    } else {
        plot::si(xs.inv(u))
    }
}

impl RegionFigure<'_> {
    fn x_span(&self) -> Span {
        let c = &self.learned.costs;
        Span::of((0..c.n()).map(|i| c.row(i)[self.axes.x()]))
    }

    fn times<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, styles: &[SeriesStyle]) -> Result<()> {
        let l = self.learned;
        let c = &l.costs;
        let spreads = self.spreads();
        let xs = self.x_span();
        let ts = Span::of(
            c.t.iter().copied().filter(|t| *t > 0.0).chain(spreads.iter().flatten().flat_map(|(_, s)| [s.min, s.max])),
        );
        let ts = Span { log: ts.lo > 0.0 && ts.hi / ts.lo > 4.0, ..ts };
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{}: measured time per variant ({})", l.file.model, l.file.program), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(Y_LABELS_W)
            .build_cartesian_2d(xs.range(), ts.range())
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc(l.feature_name(self.axes.x()))
            .y_desc(if ts.log { "time per execution (log scale)" } else { "time per execution" })
            .x_label_formatter(&|u| x_label(xs, *u))
            .y_label_formatter(&|u| plot::time_label(ts.inv(*u)))
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(pe)?;
        let pa = chart.plotting_area().strip_coord_spec();
        let one_feature = self.axes.y().is_none();
        for v in 0..c.k {
            // side by side: a variant's marks move a few pixels so that bars at one x stay apart
            let dodge = ((v as f64 - (c.k as f64 - 1.0) / 2.0) * 2.0).round() as i32;
            let at = |x: f64, t: f64| {
                let (a, b) = px(&chart, &pa, (xs.fwd(x), ts.fwd(t)));
                (a + dodge, b)
            };
            for (x, s) in &spreads[v] {
                let col = styles[v].color;
                pa.draw(&PathElement::new(vec![at(*x, s.min), at(*x, s.max)], col.mix(0.7).stroke_width(1))).map_err(pe)?;
                pa.draw(&PathElement::new(vec![at(*x, s.q1), at(*x, s.q3)], col.mix(0.8).stroke_width(3))).map_err(pe)?;
            }
            let mut pts: Vec<(f64, f64)> = (0..c.n())
                .filter(|&i| c.times(i)[v].is_finite() && c.times(i)[v] > 0.0)
                .map(|i| (c.row(i)[self.axes.x()], c.times(i)[v]))
                .collect();
            pts.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            let pix: Vec<(i32, i32)> = pts.iter().map(|&(x, t)| at(x, t)).collect();
            if one_feature {
                plot::draw_line(&pa, &pix, &styles[v], 2)?;
            }
            for p in pix {
                plot::draw_marker(&pa, p, styles[v].marker, styles[v].color, 4)?;
            }
        }
        Ok(())
    }

    /// The panel's title: the model by name, and what decides (the stored model as a run
    /// uses it, or the model fitted here).
    fn decisions_title(&self) -> (String, String) {
        let l = self.learned;
        let mut notes: Vec<String> =
            self.followers.iter().map(|f| format!("{} along {}", l.feature_name(f.feature), l.feature_name(f.leader))).collect();
        let cols = columns(l);
        // constants need no word: their median is their value
        let drawn = |k: usize| k == self.axes.x() || Some(k) == self.axes.y() || self.followers.iter().any(|f| f.feature == k);
        if (0..cols.len()).any(|k| !drawn(k) && axes::varies(&cols[k])) {
            notes.push("other features at their median".to_owned());
        }
        let others = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join("; ")) };
        let over = match self.axes {
            Axes::Map { x, y } => format!("{} × {}{others}", l.feature_name(x), l.feature_name(y)),
            Axes::Band { x } => format!("{}{others}", l.feature_name(x)),
            Axes::Constant { .. } => "the one feature vector measured".to_owned(),
        };
        (format!("decisions of the {} over {over}", l.fitted.chosen.describe()), format!("decided by {}", l.decided_by()))
    }

    fn decisions<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, styles: &[SeriesStyle]) -> Result<()> {
        let (head, body) = area.split_vertically(44);
        let (title, sub) = self.decisions_title();
        let w = head.dim_in_pixel().0 as i32;
        let centred = |size: u32, c: RGBColor| anchored(size, plotters::style::text_anchor::HPos::Center, c);
        head.draw(&Text::new(title, (w / 2, 16), centred(16, BLACK))).map_err(pe)?;
        head.draw(&Text::new(sub, (w / 2, 34), centred(12, RGBColor(80, 80, 80)))).map_err(pe)?;
        match self.axes {
            Axes::Map { y, .. } => self.decision_map(&body, styles, y),
            Axes::Band { .. } => self.decision_band(&body, styles),
            Axes::Constant { .. } => self.no_decision_axis(&body),
        }
    }

    /// The decision at `x` on the axis (and `y` on the second feature), the features that
    /// follow them along, the others at their median (`base`).
    fn decide_at(&self, base: &mut [f64], x: f64, y: Option<(usize, f64)>) -> usize {
        base[self.axes.x()] = x;
        if let Some((j, v)) = y {
            base[j] = v;
        }
        for f in &self.followers {
            let lead = if f.leader == self.axes.x() { x } else { y.map_or(base[f.leader], |(_, v)| v) };
            base[f.feature] = f.at(lead);
        }
        self.learned.decide(base)
    }

    fn medians(&self) -> Vec<f64> {
        let c = &self.learned.costs;
        let p = self.learned.file.features.len().clamp(1, c.p);
        let median = |j: usize| ompadapt_rt::stats::median_f64(&(0..c.n()).map(|i| c.row(i)[j]).collect::<Vec<_>>()).unwrap_or(0.0);
        (0..p).map(median).collect()
    }
}

/// Text anchored at its `h` side, centred vertically.
fn anchored(size: u32, h: plotters::style::text_anchor::HPos, colour: RGBColor) -> TextStyle<'static> {
    use plotters::style::text_anchor::{Pos, VPos};
    ("sans-serif", size).into_font().color(&colour).pos(Pos::new(h, VPos::Center))
}

impl RegionFigure<'_> {
    /// One feature: the model's decision along the axis (upper row, a variant's name written
    /// on its stretch where it fits) and the measured best per vector (lower row). The rows
    /// are named on the y axis, which has no numeric ticks: it is not a quantity.
    fn decision_band<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, styles: &[SeriesStyle]) -> Result<()> {
        use plotters::style::text_anchor::HPos;
        let l = self.learned;
        let c = &l.costs;
        let xs = self.x_span();
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(Y_LABELS_W)
            .build_cartesian_2d(xs.range(), 0.0..2.0)
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc(l.feature_name(self.axes.x()))
            .x_label_formatter(&|u| x_label(xs, *u))
            .y_labels(0)
            .disable_mesh()
            .draw()
            .map_err(pe)?;
        let pa = chart.plotting_area().strip_coord_spec();
        let nx = 300;
        let ex = xs.edges(nx);
        let mut base = self.medians();
        let decided: Vec<usize> =
            (0..nx).map(|a| self.decide_at(&mut base, xs.inv((xs.fwd(ex[a]) + xs.fwd(ex[a + 1])) / 2.0), None)).collect();
        let mut a = 0;
        while a < nx {
            let v = decided[a];
            let b = (a..nx).take_while(|&b| decided[b] == v).last().unwrap_or(a);
            let (x0, y0) = px(&chart, &pa, (xs.fwd(ex[a]), 1.9));
            let (x1, y1) = px(&chart, &pa, (xs.fwd(ex[b + 1]), 1.1));
            let col = styles.get(v).map_or(BLACK, |s| s.color);
            // one rectangle and one name per stretch of one decision
            pa.draw(&Rectangle::new([(x0, y0), (x1.max(x0 + 1), y1)], col.filled())).map_err(pe)?;
            let name = l.variant_name(v);
            if x1 - x0 > name.chars().count() as i32 * 7 + 10 {
                pa.draw(&Text::new(name, ((x0 + x1) / 2, (y0 + y1) / 2), anchored(13, HPos::Center, plot::ink_on(col)))).map_err(pe)?;
            }
            a = b + 1;
        }
        for i in 0..c.n() {
            let v = c.y[i] as usize;
            let p = px(&chart, &pa, (xs.fwd(c.row(i)[self.axes.x()]), 0.5));
            halo_marker(&pa, p, styles[v])?;
        }
        // the rows' names, left of the plotting area
        let (bx, by) = (pa.get_base_pixel().0 - area.get_base_pixel().0, pa.get_base_pixel().1 - area.get_base_pixel().1);
        for (row, y) in [("model decides", 1.5), ("measured best", 0.5)] {
            let (_, py) = px(&chart, &pa, (xs.fwd(xs.lo), y));
            area.draw(&Text::new(row, (bx - 8, by + py), anchored(13, HPos::Right, BLACK))).map_err(pe)?;
        }
        Ok(())
    }

    /// Two features: the model's decision over both (the others at their median), and the
    /// measured best at each measured vector.
    fn decision_map<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, styles: &[SeriesStyle], j: usize) -> Result<()> {
        let l = self.learned;
        let c = &l.costs;
        let xs = self.x_span();
        let ys = Span::of((0..c.n()).map(|i| c.row(i)[j]));
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(Y_LABELS_W)
            .build_cartesian_2d(xs.range(), ys.range())
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc(l.feature_name(self.axes.x()))
            .y_desc(l.feature_name(j))
            .x_label_formatter(&|u| x_label(xs, *u))
            .y_label_formatter(&|u| x_label(ys, *u))
            .disable_mesh()
            .draw()
            .map_err(pe)?;
        let (nx, ny) = (200, 70);
        let (ex, ey) = (xs.edges(nx), ys.edges(ny));
        let mid = |s: Span, e: &[f64], a: usize| s.inv((s.fwd(e[a]) + s.fwd(e[a + 1])) / 2.0);
        let mut base = self.medians();
        let grid: Vec<Vec<usize>> =
            (0..ny).map(|b| (0..nx).map(|a| self.decide_at(&mut base, mid(xs, &ex, a), Some((j, mid(ys, &ey, b))))).collect()).collect();
        // a rectangle per region of one decision, not per cell
        let cells = plot::merged_cells(&grid).into_iter().map(|(cols, rows, v)| {
            let corner = |a: usize, b: usize| (xs.fwd(ex[a]), ys.fwd(ey[b]));
            Rectangle::new([corner(cols.start, rows.start), corner(cols.end, rows.end)], styles.get(v).map_or(BLACK, |s| s.color).filled())
        });
        chart.draw_series(cells).map_err(pe)?;
        let pa = chart.plotting_area().strip_coord_spec();
        for i in 0..c.n() {
            let p = px(&chart, &pa, (xs.fwd(c.row(i)[self.axes.x()]), ys.fwd(c.row(i)[j])));
            halo_marker(&pa, p, styles[c.y[i] as usize])?;
        }
        Ok(())
    }
}

impl RegionFigure<'_> {
    /// No feature varies: what every measurement had, and what the model decides and the
    /// measurements found best there, in words instead of an empty map.
    fn no_decision_axis<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        use plotters::style::text_anchor::HPos;
        let l = self.learned;
        let c = &l.costs;
        let p = l.file.features.len().clamp(1, c.p);
        let values: Vec<String> = (0..p)
            .map(|j| format!("{} = {}", l.feature_name(j), ompadapt_rt::feature_grid::shown(&l.feature_name(j), c.row(0)[j], &plot::short)))
            .collect();
        let best: std::collections::BTreeSet<String> = c.y.iter().map(|&v| l.variant_name(v as usize)).collect();
        let lines = [
            "No feature varies in the data: there is nothing to draw the decisions over.".to_owned(),
            format!("Every measurement had {}.", values.join(", ")),
            format!(
                "There the model decides {}; measured best: {}.",
                l.variant_name(l.decide(c.row(0))),
                best.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ];
        let (w, h) = area.dim_in_pixel();
        let top = h as i32 / 2 - 24;
        for (i, line) in lines.into_iter().enumerate() {
            let style = anchored(if i == 0 { 15 } else { 13 }, HPos::Center, BLACK);
            area.draw(&Text::new(line, (w as i32 / 2, top + 24 * i as i32), style)).map_err(pe)?;
        }
        Ok(())
    }
}

/// A marker with a black rim, readable on any fill (also on its own colour).
fn halo_marker<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: (i32, i32), s: SeriesStyle) -> Result<()> {
    plot::draw_marker(area, p, s.marker, BLACK, 8)?;
    plot::draw_marker(area, p, s.marker, s.color, 6)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The legend column never covers the panels, however many or long the variants' names.
    #[test]
    fn the_legend_column_lies_beside_the_panels() {
        for names in [
            vec!["cpu".to_owned(), "gpu".to_owned()],
            (0..11).map(|i| format!("num_threads={}", 1 << i)).collect(),
            vec!["schedule(dynamic, [1:64:63]) with a very long name indeed, longer than the column".to_owned()],
        ] {
            let l = LegendLayout::of(PANELS_W, HEIGHT, &names);
            assert!(!l.panels.overlaps(&l.legend), "{l:?}");
            assert!(l.legend.x0 >= l.panels.x1 && l.legend.x1 > l.legend.x0 + 100, "{l:?}");
            assert_eq!(l.size(), (l.legend.x1 as u32, HEIGHT));
        }
    }

    /// Eleven variants of five kinds: eleven colours, the kinds' members in one hue family.
    #[test]
    fn eleven_variants_have_eleven_colours() {
        let names: Vec<String> = ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1", "num_threads=2", "num_threads=4", "num_threads=8", "num_threads=16", "cpu", "gpu"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let styles = plot::variant_styles(&names);
        let colours: std::collections::BTreeSet<String> = styles.iter().map(|s| plot::hex(s.color)).collect();
        assert_eq!(colours.len(), 11);
        // members of one kind differ by marker too
        let markers: std::collections::BTreeSet<String> = styles[5..9].iter().map(|s| format!("{:?}", s.marker)).collect();
        assert_eq!(markers.len(), 4);
        // 40 variants of one kind: shapes and dashes keep every style distinct
        let many: Vec<String> = (0..40).map(|i| format!("num_threads={i}")).collect();
        let styles = plot::variant_styles(&many);
        let distinct: std::collections::BTreeSet<String> = styles.iter().map(|s| format!("{:?}", s)).collect();
        assert!(distinct.len() >= 25, "{} distinct styles of 40", distinct.len());
    }
}
