//! The page `ompadapt trace --html` writes: a group of lanes per process (the traces of one
//! run's processes side by side, on one clock), and within it, per thread, a lane per region
//! (executions that nest stack downwards), so that a region of microseconds gets a row of its
//! own beside one of milliseconds. A box per execution coloured by its variant (the colours of
//! `ompadapt show`, one per variant, a hue family per kind) with its details on hover, a time
//! axis, a legend of the variants that ran, what exploration cost, and the summary; exploring
//! executions are pale, decided ones full. The axis and the tooltips count time from one
//! origin: the first execution on the page. Self-contained: inline SVG and a few lines of
//! script (wheel to zoom, drag to pan, double-click to reset), no network.
//!
//! Past `max_boxes` executions the boxes of one lane and depth that start in the same pixel
//! column are drawn as one box, coloured by the most frequent of them, so the page stays
//! small whatever the trace holds; every box says in `data-n` how many executions it stands for.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use ompadapt_plot as plot;

use super::{exploration, plural, us, Execution, Summary, Trace};

/// Width of the lane names, of the timeline, and the height of a box, a row, the gap between
/// lanes and of the axis, px.
const LABEL_W: f64 = 240.0;
const PLOT_W: f64 = 1200.0;
const BOX_H: f64 = 14.0;
const ROW_H: f64 = 17.0;
const LANE_GAP: f64 = 5.0;
const AXIS_H: f64 = 26.0;

/// One trace on the page: its file, what it holds, its summary.
pub struct Source<'a> {
    pub file: &'a Path,
    pub trace: &'a Trace,
    pub summary: &'a Summary,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// A colour per variant that ran (every region, every process), and the legend's entries:
/// (variant, colour, executions).
struct Colours(HashMap<String, String>, Vec<(String, String, u64)>);

impl Colours {
    fn of(sources: &[Source]) -> Colours {
        let mut ran: Vec<(String, u64)> = Vec::new();
        for v in sources.iter().flat_map(|s| &s.summary.regions).flat_map(|r| &r.variants).filter(|v| v.executions > 0) {
            match ran.iter_mut().find(|(n, _)| *n == v.variant) {
                Some((_, n)) => *n += v.executions,
                None => ran.push((v.variant.clone(), v.executions)),
            }
        }
        let names: Vec<String> = ran.iter().map(|(n, _)| n.clone()).collect();
        let styles = plot::variant_styles(&names);
        let legend: Vec<(String, String, u64)> = ran.into_iter().zip(&styles).map(|((n, k), s)| (n, plot::hex(s.color), k)).collect();
        Colours(legend.iter().map(|(n, c, _)| (n.clone(), c.clone())).collect(), legend)
    }

    fn get(&self, x: &Execution) -> &str {
        self.0.get(Trace::variant_name(x)).map_or("#888", String::as_str)
    }
}

/// One region's executions on one thread of one process, with their depth (0: outermost).
struct Lane<'a> {
    src: usize,
    name: String,
    rows: usize,
    execs: Vec<(&'a Execution, usize)>,
}

/// A process: its heading and its lanes.
struct Group<'a> {
    heading: String,
    lanes: Vec<Lane<'a>>,
}

/// Executions still open when one starts are around it: it goes one row lower.
fn stack(mut xs: Vec<&Execution>) -> (Vec<(&Execution, usize)>, usize) {
    xs.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
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
    (execs, rows)
}

/// What names a process: its pid, program and file (the trace holds no rank or host).
fn heading(src: &Source) -> String {
    let s = src.summary;
    let file = src.file.file_name().map_or_else(|| src.file.display().to_string(), |f| f.to_string_lossy().into_owned());
    let pid = src.trace.pid.map_or_else(|| "process".to_owned(), |p| format!("process {p}"));
    format!("{pid} · {} · {file} · {} · {}", s.program, plural(s.executions as usize, "execution"), exploration(s.exploring_us, s.region_us))
}

fn groups<'a>(sources: &[Source<'a>]) -> Vec<Group<'a>> {
    let mut out = Vec::new();
    for (src, s) in sources.iter().enumerate() {
        let t = s.trace;
        let mut by: BTreeMap<(i64, usize), Vec<&'a Execution>> = BTreeMap::new();
        for x in &t.executions {
            by.entry((x.tid, x.region)).or_default().push(x);
        }
        let mut lanes = Vec::new();
        for th in &t.threads {
            for r in 0..t.regions.len() {
                if let Some(xs) = by.remove(&(th.tid, r)) {
                    let (execs, rows) = stack(xs);
                    lanes.push(Lane { src, name: format!("{} · {}", th.name, t.regions[r]), rows, execs });
                }
            }
        }
        out.push(Group { heading: heading(s), lanes });
    }
    out
}

/// Maps time to the timeline's x: every process on one clock (their traces' starts, Unix
/// time, line them up), and one origin, the first execution on the page, for the axis and
/// the tooltips alike.
struct Scale {
    /// Per source: its trace's start after the earliest trace's, µs.
    offsets: Vec<f64>,
    t0: f64,
    px_per_us: f64,
}

impl Scale {
    fn of(sources: &[Source]) -> Scale {
        let starts: Option<Vec<u64>> = sources.iter().map(|s| s.trace.started_unix_ns).collect();
        let offsets: Vec<f64> = match starts {
            Some(st) if !st.is_empty() => {
                let first = *st.iter().min().unwrap_or(&0);
                st.iter().map(|&s| (s - first) as f64 / 1000.0).collect()
            }
            _ => vec![0.0; sources.len()],
        };
        let all = || sources.iter().zip(&offsets).flat_map(|(s, o)| s.trace.executions.iter().map(move |x| (o + x.ts, o + x.ts + x.dur)));
        let t0 = all().map(|(a, _)| a).fold(f64::INFINITY, f64::min);
        let t1 = all().map(|(_, b)| b).fold(f64::NEG_INFINITY, f64::max);
        let (t0, span) = match (t0.is_finite(), t1 > t0) {
            (true, true) => (t0, t1 - t0),
            (true, false) => (t0, 1.0),
            (false, _) => (0.0, 1.0),
        };
        Scale { offsets, t0, px_per_us: PLOT_W / span }
    }

    /// µs from the origin of an execution of source `src` that starts at `ts`.
    fn at(&self, src: usize, ts: f64) -> f64 {
        self.offsets[src] + ts - self.t0
    }

    fn x(&self, src: usize, ts: f64) -> f64 {
        self.at(src, ts) * self.px_per_us
    }
}

/// An execution's details; its start counted from the page's origin, as the axis counts.
fn tooltip(t: &Trace, x: &Execution, start_us: f64) -> String {
    let how = match &x.decided {
        None => "exploring".to_owned(),
        Some(by) => format!("decided ({by})"),
    };
    let features: Vec<String> = x.features.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut s = format!("{} · {} · {how}\nstart {} · {}", t.regions[x.region], Trace::variant_name(x), us(start_us), us(x.dur));
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
        // at least a pixel wide: a region of microseconds stays visible beside milliseconds
        let (x0, w) = (scale.x(lane.src, x.ts), (x.dur * scale.px_per_us).max(1.5));
        let _ = write!(
            out,
            r#"<rect class="exec" data-n="1" data-mode="{}" x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{BOX_H}" fill="{}"><title>{}</title></rect>"#,
            if x.decided.is_some() { "decided" } else { "exploring" },
            y + depth as f64 * ROW_H,
            colours.get(x),
            tooltip(t, x, scale.at(lane.src, x.ts))
        );
        out.push('\n');
    }
}

/// The executions of one depth of a lane grouped by the pixel column they start in.
fn columns<'a>(lane: &Lane<'a>, depth: usize, scale: &Scale) -> Vec<(i64, Vec<&'a Execution>)> {
    let mut columns: Vec<(i64, Vec<&Execution>)> = Vec::new();
    for &(x, _) in lane.execs.iter().filter(|(_, d)| *d == depth) {
        let col = scale.x(lane.src, x.ts).floor() as i64;
        match columns.last_mut() {
            Some((c, xs)) if *c == col => xs.push(x),
            _ => columns.push((col, vec![x])),
        }
    }
    columns
}

/// One box per pixel column and depth: the executions that start there, coloured by the most
/// frequent variant, adjacent columns of one colour merged.
fn boxes_merged(out: &mut String, t: &Trace, lane: &Lane, y: f64, scale: &Scale, colours: &Colours) {
    for depth in 0..lane.rows {
        let mut merged: Vec<(&str, f64, f64, Vec<&Execution>)> = Vec::new();
        for (_, xs) in columns(lane, depth, scale) {
            let mut counts: HashMap<&str, usize> = HashMap::new();
            for x in &xs {
                *counts.entry(colours.get(x)).or_default() += 1;
            }
            let colour = counts.iter().max_by_key(|(c, n)| (**n, std::cmp::Reverse(**c))).map_or("#888", |(c, _)| *c);
            let (x0, x1) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(scale.x(lane.src, x.ts)), b.max(scale.x(lane.src, x.ts + x.dur)))
            });
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
                (x1 - x0).max(1.5),
                merged_tooltip(t, &xs, scale.at(lane.src, xs[0].ts))
            );
            out.push('\n');
        }
    }
}

fn merged_tooltip(t: &Trace, xs: &[&Execution], start_us: f64) -> String {
    let mut counts: BTreeMap<String, usize> = Default::default();
    for x in xs {
        *counts.entry(format!("{} · {}", t.regions[x.region], Trace::variant_name(x))).or_default() += 1;
    }
    let parts: Vec<String> = counts.into_iter().map(|(k, n)| format!("{k} ×{n}")).collect();
    esc(&format!("{} executions from {}\n{}", xs.len(), us(start_us), parts.join("\n")))
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

/// One process: its heading over the full width, then its lanes' names on the left and its
/// lanes on the right (an SVG per process, zoomed and panned together by the script).
fn group_html(sources: &[Source], g: &Group, scale: &Scale, merge: bool, colours: &Colours) -> String {
    let mut names = String::new();
    let mut boxes = String::new();
    let mut y = 3.0;
    for (i, lane) in g.lanes.iter().enumerate() {
        let h = lane.rows as f64 * ROW_H;
        let shade = if i % 2 == 0 { "#f6f6f6" } else { "#ececec" };
        let _ = write!(boxes, r#"<rect class="lane" x="0" y="{:.1}" width="{PLOT_W}" height="{:.1}" fill="{shade}"/>"#, y - 2.0, h + 2.0);
        let _ = write!(names, r#"<text x="{:.0}" y="{:.1}" text-anchor="end">{}</text>"#, LABEL_W - 8.0, y + 11.0, esc(&lane.name));
        let t = sources[lane.src].trace;
        if merge {
            boxes_merged(&mut boxes, t, lane, y, scale, colours);
        } else {
            boxes_each(&mut boxes, t, lane, y, scale, colours);
        }
        y += h + LANE_GAP;
    }
    format!(
        r#"<div class="process"><div class="heading">{}</div><div class="timeline"><svg class="names" width="{LABEL_W}" height="{y:.0}">{names}</svg><svg class="lanes" width="{PLOT_W}" height="{y:.0}" viewBox="0 0 {PLOT_W} {y:.0}" preserveAspectRatio="none">{boxes}</svg></div></div>"#,
        esc(&g.heading)
    )
}

/// The timeline: the processes one under the other, the time axis under all of them.
fn timeline(sources: &[Source], groups: &[Group], scale: &Scale, max_boxes: usize, colours: &Colours) -> String {
    let merge = sources.iter().map(|s| s.trace.executions.len()).sum::<usize>() > max_boxes;
    let body: String = groups.iter().map(|g| group_html(sources, g, scale, merge, colours)).collect();
    format!(
        r#"<div class="plot">{body}<div class="timeline"><svg width="{LABEL_W}" height="{AXIS_H}"><text x="{:.0}" y="18" text-anchor="end">time</text></svg><svg id="axis" width="{PLOT_W}" height="{AXIS_H}" data-span="{:.3}" data-origin-us="0">{}</svg></div></div>"#,
        LABEL_W - 36.0,
        PLOT_W / scale.px_per_us,
        axis(scale)
    )
}

/// The variants that ran, with their executions (a variant that never ran is in the summary
/// table, not here).
fn legend(colours: &Colours) -> String {
    let mut out = String::from(r#"<ul class="legend"><li><small>colour: variant · lane: region · pale: exploring, full: decided</small></li>"#);
    for (v, c, n) in &colours.1 {
        let _ = write!(out, r#"<li class="variant"><span class="swatch" style="background:{c}"></span>{} <small>({n})</small></li>"#, esc(v));
    }
    out.push_str("</ul>");
    out
}

fn summary_table(s: &Summary) -> String {
    let mut out = String::from(
        "<table><tr><th>region</th><th>variant</th><th>executions</th><th>total</th><th>mean</th><th>share</th></tr>",
    );
    for r in &s.regions {
        let by: Vec<String> = r.decided_by.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = write!(
            out,
            r#"<tr class="region"><td>{}</td><td>all <small>(exploring {}, decided {}{}; {}; {})</small></td><td>{}</td><td>{}</td><td>{}</td><td></td></tr>"#,
            esc(&r.region),
            r.exploring,
            r.decided,
            if by.is_empty() { String::new() } else { format!(": {}", by.join(", ")) },
            plural(r.threads, "thread"),
            esc(&exploration(r.exploring_us, r.total_us)),
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

const STYLE: &str = "body{font:13px sans-serif;margin:16px;color:#222}h1{font-size:17px;margin:0 0 4px}h2{font-size:14px;margin:14px 0 0}\
.plot{border:1px solid #ccc;padding:4px 0;width:max-content}.timeline{display:flex;align-items:flex-start}\
.process .heading{font-weight:bold;background:#dde3ea;padding:3px 8px;margin:4px 0 3px}\
.names{flex:none}.names text,#axis text{font:11px sans-serif}svg.lanes{cursor:grab;display:block}#axis{overflow:visible}\
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}\
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:middle}\
table{border-collapse:collapse;margin-top:8px}td,th{padding:2px 10px;text-align:left}tr.region td{border-top:1px solid #ccc;font-weight:bold}\
small{color:#666;font-weight:normal}\
rect.exec{stroke:#fff;stroke-width:1px;vector-effect:non-scaling-stroke}rect[data-mode=exploring]{fill-opacity:0.45}";

/// Wheel zooms around the pointer, drag pans, double-click resets; every process' lanes and
/// the axis follow.
const SCRIPT: &str = r##"(function(){
const all=[...document.querySelectorAll('svg.lanes')],axis=document.getElementById('axis');
const W=+axis.getAttribute('width'),span=+axis.dataset.span;
let x0=0,w=W,drag=null;
function fmt(us){const ns=us*1e3;const [v,u]=ns<1e3?[ns,'ns']:ns<1e6?[ns/1e3,'µs']:ns<1e9?[ns/1e6,'ms']:[ns/1e9,'s'];
 return (u==='ns'||v>=100?v.toFixed(0):v>=10?v.toFixed(1):v.toFixed(2))+' '+u;}
function draw(){for(const l of all)l.setAttribute('viewBox',x0+' 0 '+w+' '+l.getAttribute('height'));
 const a=x0/W*span,b=(x0+w)/W*span,raw=Math.max((b-a)/8,1e-6),p=Math.pow(10,Math.floor(Math.log10(raw)));
 const step=[1,2,5,10].map(m=>m*p).find(s=>s>=raw);let s='';
 for(let t=Math.ceil(a/step)*step;t<=b+1e-9;t+=step){const x=(t-a)/(b-a)*W;
  s+='<line x1="'+x+'" x2="'+x+'" y1="0" y2="6" stroke="#555"/><text x="'+x+'" y="18" text-anchor="middle">'+fmt(t)+'</text>';}
 axis.innerHTML=s;}
for(const lanes of all){
lanes.addEventListener('wheel',e=>{e.preventDefault();const r=lanes.getBoundingClientRect(),f=(e.clientX-r.left)/r.width;
 const at=x0+f*w;w=Math.min(W,Math.max(W/1e6,w*(e.deltaY>0?1.25:0.8)));x0=Math.min(W-w,Math.max(0,at-f*w));draw();},{passive:false});
lanes.addEventListener('mousedown',e=>{drag={x:e.clientX,x0:x0,r:lanes.getBoundingClientRect()};});
lanes.addEventListener('dblclick',()=>{x0=0;w=W;draw();});}
window.addEventListener('mouseup',()=>{drag=null;});
window.addEventListener('mousemove',e=>{if(!drag)return;
 x0=Math.min(W-w,Math.max(0,drag.x0-(e.clientX-drag.x)/drag.r.width*w));draw();});
})();"##;

/// The page's opening lines: what it shows, what exploration cost, what was dropped or merged.
fn preamble(sources: &[Source], span_us: f64, max_boxes: usize) -> String {
    let n: u64 = sources.iter().map(|s| s.summary.executions).sum();
    let threads: usize = sources.iter().map(|s| s.summary.threads).sum();
    let (explored, total) = sources.iter().fold((0.0, 0.0), |(e, t), s| (e + s.summary.exploring_us, t + s.summary.region_us));
    let files: Vec<String> = sources.iter().map(|s| esc(&s.file.display().to_string())).collect();
    let mut out = format!(
        "<p>{} · {} on {} in {} · {} · wheel: zoom, drag: pan, double-click: reset</p>\n\
         <p class=\"exploration\"><b>{}</b>, all regions{}</p><p><small>time 0 is the first execution on the page, for the axis and the tooltips alike{}</small></p>",
        files.join(", "),
        plural(n as usize, "execution"),
        plural(threads, "thread"),
        if sources.len() == 1 { "1 process".to_owned() } else { format!("{} processes", sources.len()) },
        esc(&us(span_us)),
        esc(&exploration(explored, total)),
        if sources.len() > 1 { " of all processes" } else { "" },
        if sources.len() > 1 { "; the processes are lined up by the wall-clock time their traces started" } else { "" },
    );
    let dropped: u64 = sources.iter().map(|s| s.summary.dropped).sum();
    if dropped > 0 {
        out += &format!("<p><b>{dropped} executions past the trace's cap were not recorded</b>: the counts are of the recorded ones.</p>");
    }
    if n as usize > max_boxes {
        out += &format!("<p>{n} executions: those that start in the same pixel column are drawn as one box (hover for the counts).</p>");
    }
    out
}

/// The page for one or more traces (one group of lanes per trace: per process).
pub fn page(sources: &[Source], max_boxes: usize) -> String {
    let colours = Colours::of(sources);
    let groups = groups(sources);
    let scale = Scale::of(sources);
    let mut programs: Vec<&str> = sources.iter().map(|s| s.summary.program.as_str()).collect();
    programs.dedup();
    let tables: Vec<String> = sources
        .iter()
        .map(|s| {
            let h = if sources.len() > 1 { format!("<h2>{}</h2>", esc(&heading(s))) } else { String::new() };
            h + &summary_table(s.summary)
        })
        .collect();
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ompadapt timeline: {prog}</title><style>{STYLE}</style></head><body>\n\
         <h1>ompadapt timeline: {prog}</h1>{preamble}\n{timeline}\n{legend}\n{tables}\n<script>{SCRIPT}</script></body></html>\n",
        prog = esc(&programs.join(", ")),
        preamble = preamble(sources, PLOT_W / scale.px_per_us, max_boxes),
        timeline = timeline(sources, &groups, &scale, max_boxes, &colours),
        legend = legend(&colours),
        tables = tables.join("\n"),
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
