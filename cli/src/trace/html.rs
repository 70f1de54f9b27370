//! The page `ompadapt trace --html` writes: one lane per thread (executions that nest stack
//! downwards), a box per execution coloured by region and variant with its details on hover, a
//! time axis, a legend and the summary; exploring executions are pale, decided ones full.
//! Self-contained: inline SVG and a few lines of script
//! (wheel to zoom, drag to pan, double-click to reset), no network.
//!
//! Past `max_boxes` executions the boxes of one lane and depth that start in the same pixel
//! column are drawn as one box, coloured by the most frequent of them, so the page stays
//! small whatever the trace holds; every box says in `data-n` how many executions it stands for.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use super::{plural, us, Execution, Summary, Trace};

/// Width of the thread names, of the timeline, and the height of a box and of the axis, px.
const LABEL_W: f64 = 150.0;
const PLOT_W: f64 = 1200.0;
const BOX_H: f64 = 16.0;
const ROW_H: f64 = 19.0;
const LANE_GAP: f64 = 10.0;
const AXIS_H: f64 = 26.0;

const PALETTE: [&str; 12] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1b9e77", "#d95f02"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// Colours of (region, variant), in the summary's order.
struct Colours(HashMap<(usize, String), String>, Vec<(usize, String, String, u64)>);

impl Colours {
    fn of(s: &Summary) -> Colours {
        let mut map = HashMap::new();
        let mut legend = Vec::new();
        for (r, rs) in s.regions.iter().enumerate() {
            for v in &rs.variants {
                let i = legend.len();
                let c = match PALETTE.get(i) {
                    Some(c) => c.to_string(),
                    None => format!("hsl({}, 55%, 55%)", (i as f64 * 137.508) % 360.0),
                };
                map.insert((r, v.variant.clone()), c.clone());
                legend.push((r, v.variant.clone(), c, v.executions));
            }
        }
        Colours(map, legend)
    }

    fn get(&self, x: &Execution) -> &str {
        self.0.get(&(x.region, Trace::variant_name(x).to_owned())).map_or("#888", String::as_str)
    }
}

/// One thread's executions with their depth (0: outermost), and the lane's rows.
struct Lane<'a> {
    name: &'a str,
    rows: usize,
    execs: Vec<(&'a Execution, usize)>,
}

fn lanes(t: &Trace) -> Vec<Lane<'_>> {
    let mut by_tid: HashMap<i64, Vec<&Execution>> = HashMap::new();
    for x in &t.executions {
        by_tid.entry(x.tid).or_default().push(x);
    }
    t.threads
        .iter()
        .map(|th| {
            let mut xs = by_tid.remove(&th.tid).unwrap_or_default();
            xs.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
            // executions still open when one starts are around it: it goes one row lower
            let mut open: Vec<f64> = Vec::new();
            let mut rows = 1;
            let execs = xs
                .into_iter()
                .map(|x| {
                    while open.last().is_some_and(|&end| end <= x.ts) {
                        open.pop();
                    }
                    let depth = open.len();
                    open.push(x.ts + x.dur);
                    rows = rows.max(depth + 1);
                    (x, depth)
                })
                .collect();
            Lane { name: &th.name, rows, execs }
        })
        .collect()
}

/// Maps time (µs) to the timeline's x.
struct Scale {
    t0: f64,
    px_per_us: f64,
}

impl Scale {
    fn of(t: &Trace) -> Scale {
        let t0 = t.executions.iter().map(|x| x.ts).fold(f64::INFINITY, f64::min);
        let t1 = t.executions.iter().map(|x| x.ts + x.dur).fold(f64::NEG_INFINITY, f64::max);
        let (t0, span) = match (t0.is_finite(), t1 > t0) {
            (true, true) => (t0, t1 - t0),
            (true, false) => (t0, 1.0),
            (false, _) => (0.0, 1.0),
        };
        Scale { t0, px_per_us: PLOT_W / span }
    }

    fn x(&self, ts: f64) -> f64 {
        (ts - self.t0) * self.px_per_us
    }
}

fn tooltip(t: &Trace, x: &Execution) -> String {
    let how = match &x.decided {
        None => "exploring".to_owned(),
        Some(by) => format!("decided ({by})"),
    };
    let features: Vec<String> = x.features.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut s = format!("{} · {} · {how}\nstart {} · {}", t.regions[x.region], Trace::variant_name(x), us(x.ts), us(x.dur));
    if !features.is_empty() {
        s.push_str(&format!("\n{}", features.join(" ")));
    }
    if x.cold {
        s.push_str("\ncold (the variant's first execution)");
    }
    if let Some(d) = x.device {
        s.push_str(&format!("\ndevice {d}"));
    }
    esc(&s)
}

/// One box per execution.
fn boxes_each(out: &mut String, t: &Trace, lane: &Lane, y: f64, scale: &Scale, colours: &Colours) {
    for &(x, depth) in &lane.execs {
        let (x0, w) = (scale.x(x.ts), (x.dur * scale.px_per_us).max(0.5));
        let _ = write!(
            out,
            r#"<rect class="exec" data-n="1" data-mode="{}" x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{BOX_H}" fill="{}"><title>{}</title></rect>"#,
            if x.decided.is_some() { "decided" } else { "exploring" },
            y + depth as f64 * ROW_H,
            colours.get(x),
            tooltip(t, x)
        );
        out.push('\n');
    }
}

/// One box per pixel column and depth: the executions that start there, coloured by the most
/// frequent (region, variant), adjacent columns of one colour merged.
fn boxes_merged(out: &mut String, t: &Trace, lane: &Lane, y: f64, scale: &Scale, colours: &Colours) {
    for depth in 0..lane.rows {
        let mut columns: Vec<(i64, Vec<&Execution>)> = Vec::new();
        for &(x, _) in lane.execs.iter().filter(|(_, d)| *d == depth) {
            let col = scale.x(x.ts).floor() as i64;
            match columns.last_mut() {
                Some((c, xs)) if *c == col => xs.push(x),
                _ => columns.push((col, vec![x])),
            }
        }
        let mut merged: Vec<(&str, f64, f64, Vec<&Execution>)> = Vec::new();
        for (_, xs) in columns {
            let mut counts: HashMap<&str, usize> = HashMap::new();
            for x in &xs {
                *counts.entry(colours.get(x)).or_default() += 1;
            }
            let colour = counts.iter().max_by_key(|(c, n)| (**n, std::cmp::Reverse(**c))).map_or("#888", |(c, _)| *c);
            let (x0, x1) =
                xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(scale.x(x.ts)), b.max(scale.x(x.ts + x.dur))));
            match merged.last_mut() {
                Some(m) if m.0 == colour => {
                    m.2 = m.2.max(x1);
                    m.3.extend(xs);
                }
                _ => merged.push((colour, x0, x1, xs)),
            }
        }
        for (colour, x0, x1, xs) in merged {
            let _ = write!(
                out,
                r#"<rect class="exec" data-n="{}" x="{x0:.2}" y="{:.1}" width="{:.2}" height="{BOX_H}" fill="{colour}"><title>{}</title></rect>"#,
                xs.len(),
                y + depth as f64 * ROW_H,
                (x1 - x0).max(0.5),
                merged_tooltip(t, &xs)
            );
            out.push('\n');
        }
    }
}

fn merged_tooltip(t: &Trace, xs: &[&Execution]) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for x in xs {
        *counts.entry(format!("{} · {}", t.regions[x.region], Trace::variant_name(x))).or_default() += 1;
    }
    let parts: Vec<String> = counts.into_iter().map(|(k, n)| format!("{k} ×{n}")).collect();
    esc(&format!("{} executions from {}\n{}", xs.len(), us(xs[0].ts), parts.join("\n")))
}

/// Tick spacing: 1, 2 or 5 times a power of ten, about `ticks` over `span` µs.
fn tick_step(span: f64, ticks: f64) -> f64 {
    let raw = (span / ticks).max(1e-6);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * p).find(|s| *s >= raw).unwrap_or(10.0 * p)
}

fn axis(scale: &Scale) -> String {
    let span = PLOT_W / scale.px_per_us;
    let step = tick_step(span, 8.0);
    let mut out = String::new();
    let mut k = 0.0;
    while k * step <= span + 1e-9 {
        let x = k * step * scale.px_per_us;
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="0" y2="6" stroke="#555"/><text x="{x:.1}" y="18" text-anchor="middle">{}</text>"##,
            esc(&us(k * step))
        );
        k += 1.0;
    }
    out
}

/// The timeline: names on the left, lanes and axis on the right.
fn timeline(t: &Trace, lanes: &[Lane], max_boxes: usize, colours: &Colours) -> String {
    let scale = Scale::of(t);
    let merge = t.executions.len() > max_boxes;
    let mut names = String::new();
    let mut boxes = String::new();
    let mut y = 4.0;
    for (i, lane) in lanes.iter().enumerate() {
        let h = lane.rows as f64 * ROW_H;
        let shade = if i % 2 == 0 { "#f4f4f4" } else { "#ebebeb" };
        let _ = write!(boxes, r#"<rect x="0" y="{:.1}" width="{PLOT_W}" height="{:.1}" fill="{shade}"/>"#, y - 3.0, h + 6.0);
        let _ = write!(names, r#"<text x="{:.0}" y="{:.1}" text-anchor="end">{}</text>"#, LABEL_W - 8.0, y + 12.0, esc(lane.name));
        if merge {
            boxes_merged(&mut boxes, t, lane, y, &scale, colours);
        } else {
            boxes_each(&mut boxes, t, lane, y, &scale, colours);
        }
        y += h + LANE_GAP;
    }
    let height = y;
    format!(
        r#"<div class="timeline"><svg class="names" width="{LABEL_W}" height="{height:.0}">{names}</svg><div class="plot"><svg id="lanes" width="{PLOT_W}" height="{height:.0}" viewBox="0 0 {PLOT_W} {height:.0}" preserveAspectRatio="none">{boxes}</svg><svg id="axis" width="{PLOT_W}" height="{AXIS_H}" data-span="{:.3}">{}</svg></div></div>"#,
        PLOT_W / scale.px_per_us,
        axis(&scale)
    )
}

fn legend(t: &Trace, colours: &Colours) -> String {
    let mut out = String::from(r#"<ul class="legend"><li><small>pale: exploring, full: decided</small></li>"#);
    for (r, v, c, n) in &colours.1 {
        let _ = write!(
            out,
            r#"<li><span class="swatch" style="background:{c}"></span>{} · {} <small>({n})</small></li>"#,
            esc(&t.regions[*r]),
            esc(v)
        );
    }
    out.push_str("</ul>");
    out
}

fn summary_table(s: &Summary) -> String {
    let mut out =
        String::from("<table><tr><th>region</th><th>variant</th><th>executions</th><th>total</th><th>mean</th><th>share</th></tr>");
    for r in &s.regions {
        let by: Vec<String> = r.decided_by.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = write!(
            out,
            r#"<tr class="region"><td>{}</td><td>all <small>(exploring {}, decided {}{}; {})</small></td><td>{}</td><td>{}</td><td>{}</td><td></td></tr>"#,
            esc(&r.region),
            r.exploring,
            r.decided,
            if by.is_empty() { String::new() } else { format!(": {}", by.join(", ")) },
            plural(r.threads, "thread"),
            r.executions,
            esc(&us(r.total_us)),
            esc(&us(r.mean_us))
        );
        for v in &r.variants {
            let _ = write!(
                out,
                "<tr><td></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1} %</td></tr>",
                esc(&v.variant),
                v.executions,
                esc(&us(v.total_us)),
                esc(&us(v.mean_us)),
                100.0 * v.share
            );
        }
    }
    out.push_str("</table>");
    out
}

const STYLE: &str = "body{font:13px sans-serif;margin:16px;color:#222}h1{font-size:17px;margin:0 0 4px}\
.timeline{display:flex;align-items:flex-start;border:1px solid #ccc;padding:6px 0;overflow:hidden}\
.names{flex:none}.names text,#axis text{font:11px sans-serif}.plot{cursor:grab}.plot svg{display:block}#axis{overflow:visible}\
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}\
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:middle}\
table{border-collapse:collapse;margin-top:8px}td,th{padding:2px 10px;text-align:left}tr.region td{border-top:1px solid #ccc;font-weight:bold}\
small{color:#666;font-weight:normal}\
rect.exec{stroke:#fff;stroke-width:1px;vector-effect:non-scaling-stroke}rect[data-mode=exploring]{fill-opacity:0.5}";

/// Wheel zooms around the pointer, drag pans, double-click resets; the axis follows.
const SCRIPT: &str = r##"(function(){
const lanes=document.getElementById('lanes'),axis=document.getElementById('axis');
const W=+lanes.getAttribute('width'),H=+lanes.getAttribute('height'),span=+axis.dataset.span;
let x0=0,w=W,drag=null;
function fmt(us){const ns=us*1e3;const [v,u]=ns<1e3?[ns,'ns']:ns<1e6?[ns/1e3,'µs']:ns<1e9?[ns/1e6,'ms']:[ns/1e9,'s'];
 return (u==='ns'||v>=100?v.toFixed(0):v>=10?v.toFixed(1):v.toFixed(2))+' '+u;}
function draw(){lanes.setAttribute('viewBox',x0+' 0 '+w+' '+H);
 const a=x0/W*span,b=(x0+w)/W*span,raw=Math.max((b-a)/8,1e-6),p=Math.pow(10,Math.floor(Math.log10(raw)));
 const step=[1,2,5,10].map(m=>m*p).find(s=>s>=raw);let s='';
 for(let t=Math.ceil(a/step)*step;t<=b+1e-9;t+=step){const x=(t-a)/(b-a)*W;
  s+='<line x1="'+x+'" x2="'+x+'" y1="0" y2="6" stroke="#555"/><text x="'+x+'" y="18" text-anchor="middle">'+fmt(t)+'</text>';}
 axis.innerHTML=s;}
lanes.addEventListener('wheel',e=>{e.preventDefault();const r=lanes.getBoundingClientRect(),f=(e.clientX-r.left)/r.width;
 const at=x0+f*w;w=Math.min(W,Math.max(W/1e6,w*(e.deltaY>0?1.25:0.8)));x0=Math.min(W-w,Math.max(0,at-f*w));draw();},{passive:false});
lanes.addEventListener('mousedown',e=>{drag={x:e.clientX,x0:x0};});
window.addEventListener('mouseup',()=>{drag=null;});
window.addEventListener('mousemove',e=>{if(!drag)return;const r=lanes.getBoundingClientRect();
 x0=Math.min(W-w,Math.max(0,drag.x0-(e.clientX-drag.x)/r.width*w));draw();});
lanes.addEventListener('dblclick',()=>{x0=0;w=W;draw();});
})();"##;

/// The page.
pub fn page(file: &Path, t: &Trace, s: &Summary, max_boxes: usize) -> String {
    let colours = Colours::of(s);
    let lanes = lanes(t);
    let dropped = if s.dropped > 0 {
        format!(r#"<p><b>{} executions past the trace's cap were not recorded</b>: the counts are of the recorded ones.</p>"#, s.dropped)
    } else {
        String::new()
    };
    let merged = if t.executions.len() > max_boxes {
        format!(
            "<p>{} executions: those that start in the same pixel column are drawn as one box (hover for the counts).</p>",
            t.executions.len()
        )
    } else {
        String::new()
    };
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ompadapt timeline: {prog}</title><style>{STYLE}</style></head><body>\n\
         <h1>ompadapt timeline: {prog}</h1><p>{file} · {n} on {threads} over {span} · wheel: zoom, drag: pan, double-click: reset</p>{dropped}{merged}\n\
         {timeline}\n{legend}\n{table}\n<script>{SCRIPT}</script></body></html>\n",
        prog = esc(&s.program),
        file = esc(&file.display().to_string()),
        n = plural(s.executions as usize, "execution"),
        threads = plural(s.threads, "thread"),
        span = esc(&us(s.span_us)),
        timeline = timeline(t, &lanes, max_boxes, &colours),
        legend = legend(t, &colours),
        table = summary_table(s),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(1000.0, 8.0), 200.0);
        assert_eq!(tick_step(80.0, 8.0), 10.0);
        assert_eq!(tick_step(7.0, 8.0), 1.0);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }
}
