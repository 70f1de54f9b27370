//! Pictures with plotters: every figure is drawn once by a function generic over the backend
//! and written as SVG (and PNG where asked). Text uses a TrueType font found on the machine
//! (`OMPADAPT_FONT`, else DejaVu Sans or Liberation Sans in the usual places): plotters'
//! `ab_glyph` backend needs no freetype or fontconfig at build time. Used by the harness's
//! figures and by `ompadapt show`.

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

/// An axis label on a log axis: two significant digits (the ticks fall between powers of ten).
pub fn sig2(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return short(x);
    }
    let e = x.abs().log10().floor() as i32 - 1;
    let m = 10f64.powi(e);
    short((x / m).round() * m)
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
