//! The harness's figures (SVG, and PNG unless `--no-png`): per kernel the speedup over its
//! baseline (Static GPU, thread_limit=256, coschedule=1) per input and comparator (Georgakoudis
//! et al.'s figures 2 and 4) and the distribution of the models' decisions per input (their
//! violin plots, figures 5 and 6); over all kernels the
//! accuracy against the oracle.

use std::path::Path;

use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::measure::KernelRun;
use super::report::{comparators, Comparator, Point, TOLERANCE};
use ompadapt_plot::{self as plot, pe, Figure};

/// Comparators drawn, with their colour index.
fn drawn(name: &str) -> Option<usize> {
    Some(match name {
        "Static CPU" => 1,
        n if n.starts_with("Static Best") => 7,
        "Online (roundrobin)" => 4,
        "Online (elimination)" => 6,
        n if n.starts_with("Online") => 3,
        "Adaptive-25" => 5,
        "Adaptive-50" => 2,
        "Adaptive-75" => 3,
        "Adaptive-100" => 0,
        _ => return None,
    })
}

/// The label at plot coordinate `x` of an axis with one slot per input: the input at a slot's
/// centre, nothing between.
fn input_label(r: &KernelRun, x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 0.01 && i >= 0.0 && (i as usize) < r.inputs.len() {
        plot::short(r.inputs[i as usize] as f64)
    } else {
        String::new()
    }
}

/// A comparator's line: the comparator, its colour, its points.
type Series<'a> = (&'a Comparator, usize, Vec<(f64, f64)>);

struct Speedup<'a> {
    run: &'a KernelRun,
    comps: Vec<Comparator>,
}

impl Figure for Speedup<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        let r = self.run;
        let base = |n: u64| r.base_time(n);
        let baseline = r.kernel.use_case.baseline().1;
        let series: Vec<Series> = self
            .comps
            .iter()
            .filter_map(|c| {
                let col = drawn(&c.name)?;
                let pts = c
                    .points
                    .iter()
                    .filter_map(|p| r.inputs.iter().position(|&n| n == p.input).map(|i| (i as f64, base(p.input) / p.time)))
                    .collect();
                Some((c, col, pts))
            })
            .collect();
        // a log axis once the speedups span more than 4x (one input can be 20x off)
        let all: Vec<f64> =
            series.iter().flat_map(|s| s.2.iter().map(|p| p.1)).filter(|y| y.is_finite() && *y > 0.0).chain([1.0]).collect();
        let (lo, hi) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        let ys = if hi / lo > 4.0 {
            plot::Span { lo: lo / 1.2, hi: hi * 1.2, log: true }
        } else {
            plot::Span { lo: (lo * 0.9).min(0.9), hi: hi * 1.1, log: false }
        };
        let n = r.inputs.len();
        let mut chart = ChartBuilder::on(root)
            .caption(format!("{}: speedup over {baseline} per input", r.kernel.name), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5..(n as f64 + 1.6), ys.range())
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc(r.kernel.input)
            .y_desc(if ys.log { format!("speedup ({baseline} = 1; log scale)") } else { format!("speedup ({baseline} = 1)") })
            .x_labels(4 * (n + 2))
            .x_label_formatter(&|x| input_label(r, *x))
            .y_label_formatter(&|y| format!("{:.2}", ys.inv(*y)))
            .draw()
            .map_err(pe)?;
        chart
            .draw_series(LineSeries::new([(-0.5, ys.fwd(1.0)), (n as f64 - 0.5, ys.fwd(1.0))], BLACK.mix(0.5).stroke_width(1)))
            .map_err(pe)?;
        let series: Vec<Series> =
            series.into_iter().map(|(c, col, pts)| (c, col, pts.into_iter().map(|(x, y)| (x, ys.fwd(y))).collect())).collect();
        // the legend sits in the empty band right of the last input
        for (c, col, pts) in &series {
            let color = plot::color(*col);
            chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2))).map_err(pe)?;
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(pe)?
                .label(c.name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
        }
        plot::legend(&mut chart, SeriesLabelPosition::UpperRight, 0.85)?;
        Ok(())
    }
}

struct Violins<'a> {
    run: &'a KernelRun,
    comps: Vec<Comparator>,
}

const VIOLIN: [&str; 4] = ["Adaptive-25", "Adaptive-50", "Adaptive-75", "Adaptive-100"];

impl Figure for Violins<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        let areas = root.split_evenly((self.run.kernel.regions.len(), 1));
        let shown: Vec<&Comparator> = VIOLIN.iter().filter_map(|name| self.comps.iter().find(|c| c.name == *name)).collect();
        for (reg, area) in areas.iter().enumerate() {
            self.draw_region(area, reg, &shown)?;
        }
        Ok(())
    }
}

impl Violins<'_> {
    /// Region `reg`'s panel: per input a violin per model, and the oracle's variant.
    fn draw_region<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, reg: usize, shown: &[&Comparator]) -> Result<()> {
        let r = self.run;
        let n = r.inputs.len();
        let nv = r.variants.len();
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{}: decisions of region '{}' per input (width: share of the models' decisions; black: oracle)",
                    r.kernel.name, r.kernel.regions[reg]
                ),
                ("sans-serif", 15),
            )
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(r.variants.iter().map(|v| 16 + 8 * v.len() as u32).max().unwrap_or(56).max(56))
            .build_cartesian_2d(-0.5..(n as f64 + 0.9), -0.6..(nv as f64 - 0.4))
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc(r.kernel.input)
            .x_labels(4 * (n + 1))
            .y_labels(nv)
            .disable_y_mesh()
            .x_label_formatter(&|x| input_label(r, *x))
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() < 0.01 && i >= 0.0 && (i as usize) < nv {
                    r.variants[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(pe)?;
        let slot = 0.8 / shown.len().max(1) as f64;
        for (ci, c) in shown.iter().enumerate() {
            let col = plot::color(drawn(&c.name).unwrap_or(ci));
            for p in &c.points {
                let Some(i) = r.inputs.iter().position(|&n| n == p.input) else { continue };
                let mut pts = self.outline(p, reg, i as f64 - 0.4 + slot * (ci as f64 + 0.5), slot);
                chart.draw_series(std::iter::once(Polygon::new(pts.clone(), col.mix(0.6).filled()))).map_err(pe)?;
                pts.push(pts[0]);
                chart.draw_series(std::iter::once(PathElement::new(pts, col.stroke_width(1)))).map_err(pe)?;
            }
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(pe)?
                .label(c.name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], col.mix(0.6).filled()));
        }
        for mark in self.oracle_marks(reg) {
            chart.draw_series(std::iter::once(PathElement::new(mark, BLACK.stroke_width(2)))).map_err(pe)?;
        }
        plot::legend(&mut chart, SeriesLabelPosition::MiddleRight, 0.85)?;
        Ok(())
    }

    /// The violin of `p`'s decisions for region `reg`, centred at `x` in a slot `slot` wide:
    /// the left side up the variants, the right side down; a variant nobody chose narrows the
    /// shape to a point.
    fn outline(&self, p: &Point, reg: usize, x: f64, slot: f64) -> Vec<(f64, f64)> {
        let nv = self.run.variants.len();
        let total = p.combos.len().max(1) as f64;
        let share: Vec<f64> = (0..nv).map(|v| p.combos.iter().filter(|c| c.get(reg) == Some(&v)).count() as f64 / total).collect();
        let w = |v: usize| share[v] * slot * 0.48;
        let mut pts: Vec<(f64, f64)> = (0..nv).map(|v| (x - w(v), v as f64)).collect();
        pts.extend((0..nv).rev().map(|v| (x + w(v), v as f64)));
        pts
    }

    /// The oracle's variant of region `reg` per input, as a line across the input's slot.
    fn oracle_marks(&self, reg: usize) -> Vec<Vec<(f64, f64)>> {
        let r = self.run;
        r.inputs
            .iter()
            .enumerate()
            .filter_map(|(i, &inp)| {
                let best = r.oracle(inp).0;
                best.get(reg).map(|&v| vec![(i as f64 - 0.45, v as f64), (i as f64 + 0.45, v as f64)])
            })
            .collect()
    }
}

struct Accuracy<'a> {
    results: &'a [KernelRun],
    strategies: &'a [String],
}

impl Figure for Accuracy<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        let names: Vec<String> = ["Adaptive-25", "Adaptive-50", "Adaptive-75", "Adaptive-100"]
            .iter()
            .map(|s| s.to_string())
            .chain(self.strategies.first().map(|s| format!("Online ({s})")))
            .chain(std::iter::once("Static Best".to_owned()))
            .collect();
        let nk = self.results.len();
        let mut chart = ChartBuilder::on(root)
            .caption(format!("decisions within {:.0} % of the oracle, per kernel and comparator", TOLERANCE * 100.0), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5..(nk as f64 + 0.7), 0.0..105.0)
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_labels(4 * (nk + 1))
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 0.01 && i >= 0.0 && (i as usize) < nk {
                    self.results[i as usize].kernel.name.to_owned()
                } else {
                    String::new()
                }
            })
            .y_desc("% of decisions")
            .disable_x_mesh()
            .draw()
            .map_err(pe)?;
        let width = 0.8 / names.len() as f64;
        for (ci, name) in names.iter().enumerate() {
            let col = plot::color(drawn(name).unwrap_or(ci));
            let mut bars = Vec::new();
            for (ki, r) in self.results.iter().enumerate() {
                let comps = comparators(r, self.strategies);
                let Some(c) = comps.iter().find(|c| c.name == *name || (name == "Static Best" && c.name.starts_with("Static Best"))) else {
                    continue;
                };
                let (w, d) = c.within();
                let v = 100.0 * w as f64 / d.max(1) as f64;
                let x0 = ki as f64 - 0.4 + width * ci as f64;
                bars.push(Rectangle::new([(x0, 0.0), (x0 + width * 0.9, v)], col.filled()));
            }
            chart
                .draw_series(bars)
                .map_err(pe)?
                .label(name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], col.filled()));
        }
        chart.draw_series(LineSeries::new([(-0.5, 95.0), (nk as f64 - 0.5, 95.0)], BLACK.mix(0.4).stroke_width(1))).map_err(pe)?;
        plot::legend(&mut chart, SeriesLabelPosition::MiddleRight, 0.9)?;
        Ok(())
    }
}

pub fn write_all(out: &Path, results: &[KernelRun], strategies: &[String], png: bool) -> Result<()> {
    let png_of = |name: &str| png.then(|| out.join(format!("{name}.png")));
    for r in results {
        let name = format!("speedup_{}", r.kernel.name);
        plot::write(
            &out.join(format!("{name}.svg")),
            png_of(&name).as_deref(),
            (900, 520),
            &Speedup { run: r, comps: comparators(r, strategies) },
        )?;
        let name = format!("decisions_{}", r.kernel.name);
        let h = 300 + 260 * r.kernel.regions.len() as u32;
        plot::write(
            &out.join(format!("{name}.svg")),
            png_of(&name).as_deref(),
            (900, h),
            &Violins { run: r, comps: comparators(r, strategies) },
        )?;
    }
    let width = (300 + 110 * results.len() as u32).max(1000);
    plot::write(&out.join("accuracy.svg"), png_of("accuracy").as_deref(), (width, 520), &Accuracy { results, strategies })?;
    Ok(())
}
