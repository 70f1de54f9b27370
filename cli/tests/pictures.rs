//! The pictures: `ompadapt show --svg` of a region with eleven variants gives each its own
//! colour and keeps the legend beside the data; `ompadapt trace --html` of two processes' traces
//! draws one group per process and a lane per region, lists only the variants that ran, and
//! measures the axis and the tooltips from one origin. Checked on the SVG and HTML text (no
//! timing). `OMPADAPT_PICTURES_OUT=DIR` keeps the pictures (how docs/images/ were made).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use ompadapt_plot as plot;
use serde_json::json;

fn ompadapt(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_ompadapt")).args(args).env_remove("OMPADAPT_DIR").output().expect("runs");
    assert!(o.status.success(), "ompadapt {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Copies `file` to `$OMPADAPT_PICTURES_OUT` when set.
fn keep(file: &Path) {
    if let Some(dir) = std::env::var_os("OMPADAPT_PICTURES_OUT") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(file, Path::new(&dir).join(file.file_name().unwrap())).unwrap();
    }
}

const ELEVEN: [&str; 11] = [
    "serial",
    "threads=0.125",
    "threads=0.25",
    "threads=0.5",
    "threads=1",
    "num_threads=2",
    "num_threads=4",
    "num_threads=8",
    "num_threads=16",
    "cpu",
    "gpu",
];

/// A controlled cost per variant (ns) for `n` elements: serial wins small, teams of threads
/// in the middle, the GPU on large inputs.
fn cost(v: &str, n: f64) -> f64 {
    match v.split_once('=') {
        None if v == "serial" => 200.0 + 2.0 * n,
        None if v == "cpu" => 8000.0 + 0.3 * n,
        None => 40_000.0 + 0.06 * n,
        Some(("threads", f)) => {
            let t = 16.0 * f.parse::<f64>().unwrap();
            1500.0 + 300.0 * t + 2.1 * n / t
        }
        Some((_, t)) => {
            let t: f64 = t.parse().unwrap();
            1400.0 + 320.0 * t + 2.05 * n / t
        }
    }
}

/// A store with region `step` of program `heat`: the eleven variants on 16 sizes, nine
/// measurements each, spread by a deterministic ±10 % (one slow outlier a pair).
fn eleven_variant_store(root: &Path) {
    let dir = root.join("heat").join("step");
    std::fs::create_dir_all(&dir).unwrap();
    let mut samples = Vec::new();
    for e in 6..=21 {
        let n = (1u64 << e) as f64;
        for (v, name) in ELEVEN.iter().enumerate() {
            let t = cost(name, n);
            let mut times: Vec<f64> = (0..8).map(|r| t * (1.0 + 0.025 * (((r * 7 + v * 3 + e) % 9) as f64 - 2.0))).collect();
            times.push(t * 1.6);
            samples.push(json!({"features": [n], "variant": name, "count": 9, "times_ns": times}));
        }
    }
    let doc = json!({
        "format": "ompadapt-samples", "version": 2, "program": "heat", "model": "step",
        "loc": "heat.c:10", "features": ["n"], "variants": ELEVEN,
        "written_unix_ns": 1, "writer": {"host": "h", "pid": 1, "rank": null, "size": null, "run": "r"},
        "samples": samples,
    });
    std::fs::write(dir.join("part-1-h-1-0.json"), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

/// The points of every `<polyline>` drawn in `stroke`.
fn polylines<'a>(svg: &'a str, stroke: &'a str) -> impl Iterator<Item = Vec<(f64, f64)>> + 'a {
    svg.lines().filter(move |l| l.starts_with("<polyline") && l.contains(&format!("stroke=\"{stroke}\""))).map(|l| {
        let pts = l.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
        pts.split_whitespace()
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    })
}

/// The x of every `<text>` whose content is `s`.
fn text_x(svg: &str, s: &str) -> Vec<f64> {
    let needle = format!(">\n{s}\n</text>");
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find(&needle) {
        let tag = &rest[rest[..i].rfind("<text").unwrap()..i];
        out.push(tag.split("x=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap());
        rest = &rest[i + needle.len()..];
    }
    out
}

#[test]
fn show_gives_eleven_variants_eleven_colours_and_the_legend_beside_the_data() {
    let d = tempfile::tempdir().unwrap();
    eleven_variant_store(d.path());
    let svg = d.path().join("show-11-variants.svg");
    let png = d.path().join("show-11-variants.png");
    let dir = d.path().to_str().unwrap();
    ompadapt(&["--dir", dir, "show", "step", "--svg", svg.to_str().unwrap(), "--png", png.to_str().unwrap()]);
    keep(&png);
    let pic = std::fs::read_to_string(&svg).unwrap();
    let names: Vec<String> = ELEVEN.iter().map(|s| s.to_string()).collect();
    let colours: BTreeSet<String> = plot::variant_styles(&names).iter().map(|s| plot::hex(s.color).to_uppercase()).collect();
    assert_eq!(colours.len(), 11, "eleven distinct colours: {colours:?}");
    // each variant's line in its colour, through its 16 sizes
    for c in &colours {
        assert!(polylines(&pic, c).any(|pts| pts.len() == 16), "a line of 16 points in {c}");
    }
    // the legend column starts at its rule; the axes, the data lines and the decision band lie
    // left of it, and each variant is named right of it
    let rule = polylines(&pic, "#C8C8C8").next().expect("the legend's rule")[0].0;
    let axes_right = polylines(&pic, "#000000").flatten().map(|p| p.0).fold(0.0, f64::max);
    assert!(axes_right < rule, "axes end at {axes_right}, the legend starts at {rule}");
    for c in &colours {
        let right = polylines(&pic, c).filter(|p| p.len() > 2).flatten().map(|p| p.0).fold(0.0, f64::max);
        assert!(right < rule, "data in {c} reach {right}, the legend starts at {rule}");
    }
    for n in &names {
        assert_eq!(text_x(&pic, n).iter().filter(|&&x| x > rule).count(), 1, "{n} once in the legend");
    }
    // the band's rows are named, not numbered; the model is named in the decisions' title
    assert!(pic.contains("\nmodel decides\n</text>") && pic.contains("\nmeasured best\n</text>"), "the band's rows");
    assert!(pic.contains("decisions of the "), "the model named");
}

/// A trace in the runtime's format (`runtime/src/trace.rs`): process `pid`, its clock's zero
/// at `started` Unix ns, executions (region, variant, ts µs, dur µs, tid, exploring).
fn write_trace(path: &Path, pid: i64, started: u64, xs: &[(&str, &str, f64, f64, i64, bool)]) {
    let mut events = vec![json!({"name": "process_name", "ph": "M", "pid": pid, "tid": pid, "args": {"name": "sim"}})];
    for (region, variant, ts, dur, tid, exploring) in xs {
        let mut args = json!({"variant": variant, "features": {"n": 1}, "mode": if *exploring { "exploring" } else { "decided" }});
        if !exploring {
            args["decision"] = json!("trained");
        }
        events.push(json!({"name": region, "cat": "ompadapt", "ph": "X", "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args}));
    }
    let doc = json!({
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"format": "ompadapt-trace", "version": 1, "program": "sim", "started_unix_ns": started,
            "events": xs.len(), "dropped": 0, "max_events": 1000000, "threads": 2,
            "regions": [{"name": "big", "variants": ["x", "z", "never"]}, {"name": "tiny", "variants": ["y", "unused"]}]},
    });
    std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
}

/// Two processes' traces: the first starts recording 15 ms before its first execution; the
/// second's clock starts 1 ms later (wall clock), its first execution 500 µs after the first's.
fn two_traces(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (a, b) = (dir.join("run.100.json"), dir.join("run.200.json"));
    let t0 = 1_700_000_000_000_000_000;
    write_trace(
        &a,
        100,
        t0,
        &[("big", "x", 15_000.0, 3000.0, 1, true), ("tiny", "y", 15_500.0, 2.0, 1, false), ("big", "z", 18_100.0, 2000.0, 1, false)],
    );
    write_trace(&b, 200, t0 + 1_000_000, &[("big", "x", 14_500.0, 1000.0, 5, true), ("tiny", "y", 16_000.0, 3.0, 6, false)]);
    (a, b)
}

/// A time the page prints (`fmt_ns`: "500 µs", "1.00 ms"), in µs.
fn parse_time(s: &str) -> f64 {
    let (v, unit) = s.split_once(' ').unwrap();
    let scale = match unit {
        "ns" => 1e-3,
        "µs" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        _ => panic!("unit of {s}"),
    };
    v.parse::<f64>().unwrap() * scale
}

fn attr(tag: &str, name: &str) -> String {
    tag.split(&format!(" {name}=\"")).nth(1).unwrap_or_else(|| panic!("{name} in {tag}")).split('"').next().unwrap().to_owned()
}

#[test]
fn trace_of_two_processes_draws_a_group_each_and_a_lane_per_region() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = two_traces(d.path());
    let page = d.path().join("timeline.html");
    let text = ompadapt(&["trace", a.to_str().unwrap(), b.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(text.contains("exploration: 3.00 ms of 5.00 ms region time (60.0 %)"), "{text}");
    assert!(text.contains("2 traces: exploration: 4.00 ms of 6.00 ms region time (66.6 %), all processes"), "{text}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches(r#"<div class="process">"#).count(), 2, "a group per process");
    assert!(html.contains("process 100 · sim · run.100.json") && html.contains("process 200 · sim · run.200.json"));
    // within each thread a lane per region: the short region has its own
    assert_eq!(html.matches(r#"class="lane""#).count(), 4);
    for lane in [">thread 1 · big<", ">thread 1 · tiny<", ">thread 5 · big<", ">thread 6 · tiny<"] {
        assert!(html.contains(lane), "{lane}");
    }
    assert_eq!(html.matches(r#"class="exec""#).count(), 5, "a box per execution");
    // a directory stands for its traces
    let doc: serde_json::Value = serde_json::from_str(&ompadapt(&["--json", "trace", d.path().to_str().unwrap()])).unwrap();
    assert_eq!(doc["traces"].as_array().unwrap().len(), 2, "{doc}");
    assert_eq!(doc["exploring_us"], json!(4000.0));
}

#[test]
fn trace_legend_lists_only_the_variants_that_ran() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = two_traces(d.path());
    let page = d.path().join("timeline.html");
    ompadapt(&["trace", "--html", page.to_str().unwrap(), a.to_str().unwrap(), b.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    let legend = html.split(r#"<ul class="legend">"#).nth(1).unwrap().split("</ul>").next().unwrap();
    let entries: Vec<&str> = legend.split(r#"<li class="variant">"#).skip(1).collect();
    let names: Vec<String> = entries.iter().map(|e| e.split("</span>").nth(1).unwrap().split(" <small>").next().unwrap().to_owned()).collect();
    assert_eq!(names, ["x", "z", "y"], "{legend}");
    // the variants that never ran are still in the summary table, with 0 executions
    assert!(html.contains("<td>never</td><td>0</td>") && html.contains("<td>unused</td><td>0</td>"));
}

#[test]
fn trace_axis_and_tooltips_count_from_one_origin() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = two_traces(d.path());
    let page = d.path().join("timeline.html");
    ompadapt(&["trace", "--html", page.to_str().unwrap(), a.to_str().unwrap(), b.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    let axis = &html[html.find(r#"<svg id="axis""#).unwrap()..];
    let (width, span): (f64, f64) = (attr(axis, "width").parse().unwrap(), attr(axis, "data-span").parse().unwrap());
    assert_eq!(span, 5100.0, "from the first start (15 ms into process 100) to the last end");
    // the axis' first tick is at x = 0 and reads 0
    let first_tick = axis.split("<text").nth(1).unwrap();
    assert_eq!(attr(first_tick, "x").parse::<f64>().unwrap(), 0.0);
    assert!(first_tick.contains(">0 ns</text>"), "{first_tick}");
    // every box starts where its tooltip says, on the axis' scale
    let mut starts = Vec::new();
    for tag in html.split(r#"<rect class="exec""#).skip(1) {
        let x: f64 = attr(tag, "x").parse().unwrap();
        let title = tag.split("<title>").nth(1).unwrap().split("</title>").next().unwrap();
        let start = parse_time(title.split("start ").nth(1).unwrap().split(" · ").next().unwrap());
        assert!((x / width * span - start).abs() <= 0.01 * start.max(1.0), "box at {x} px, tooltip {title}");
        starts.push(start);
    }
    starts.sort_by(f64::total_cmp);
    assert_eq!(starts, [0.0, 500.0, 500.0, 2000.0, 3100.0], "process 200's clock started 1 ms after process 100's");
}

/// A region `name` of program `prog` with the features named and two variants (cpu, gpu)
/// measured at each of `rows` (five measurements a pair, ±1 %): the cpu costs 1 µs + 2 ns per
/// unit of the first feature, the gpu 2 ms + 0.2 ns (crossover near 1.1 M).
fn two_variant_region(root: &Path, name: &str, features: &[&str], rows: &[Vec<f64>]) {
    let dir = root.join("prog").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut samples = Vec::new();
    for x in rows {
        for (v, t) in [("cpu", 1000.0 + 2.0 * x[0]), ("gpu", 2_000_000.0 + 0.2 * x[0])] {
            let times: Vec<f64> = (0..5).map(|r| t * (1.0 + 0.01 * (r as f64 - 2.0))).collect();
            samples.push(json!({"features": x, "variant": v, "count": 5, "times_ns": times}));
        }
    }
    let doc = json!({
        "format": "ompadapt-samples", "version": 2, "program": "prog", "model": name,
        "loc": "prog.c:10", "features": features, "variants": ["cpu", "gpu"],
        "written_unix_ns": 1, "writer": {"host": "h", "pid": 1, "rank": null, "size": null, "run": "r"},
        "samples": samples,
    });
    std::fs::write(dir.join("part-1-h-1-0.json"), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

/// The issue's region: the trip count `n` at 5 sizes from 100 k to 10 M, `ops` a compile-time
/// constant, `bytes_mapped` 8 n (collinear with n); with `m`, a fourth feature that varies
/// apart from n.
fn issue_rows(with_m: bool) -> Vec<Vec<f64>> {
    [1e5, 3.2e5, 1e6, 3.2e6, 1e7]
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let mut x = vec![n, 12.0, 8.0 * n];
            if with_m {
                x.push([4.0, 300.0, 20.0, 9000.0, 60.0][i]);
            }
            x
        })
        .collect()
}

/// The content of every `<text>` element.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text").skip(1).map(|t| t.split_once('>').unwrap().1.split("</text>").next().unwrap().trim().to_owned()).collect()
}

/// The labels of numeric ticks: texts that are a number with an optional SI suffix.
fn numeric_ticks(svg: &str) -> Vec<String> {
    texts(svg)
        .into_iter()
        .filter(|t| {
            let digits = t.trim_end_matches(['k', 'M', 'G', 'T']);
            !digits.is_empty() && digits.starts_with(|c: char| c.is_ascii_digit()) && digits.parse::<f64>().is_ok()
        })
        .collect()
}

/// Shows `region` with `extra` arguments, drawing `<region>.svg`: (JSON, SVG text).
fn show_picture(root: &Path, region: &str, extra: &[&str]) -> (serde_json::Value, String) {
    let svg = root.join(format!("{region}.svg"));
    let mut args = vec!["--dir", root.to_str().unwrap(), "--json", "show", region, "--svg", svg.to_str().unwrap()];
    args.extend_from_slice(extra);
    let doc: serde_json::Value = serde_json::from_str(&ompadapt(&args)).unwrap();
    keep(&svg);
    (doc, std::fs::read_to_string(&svg).unwrap())
}

/// One feature varies (the others a constant and a multiple of it): a band along it, not a
/// map over the constant or the multiple; a picture of 5 measured vectors of a few tens of
/// kilobytes (the map per cell was 1.2 MB); its ticks in one format.
#[test]
fn show_draws_a_band_along_the_one_feature_that_varies() {
    let d = tempfile::tempdir().unwrap();
    two_variant_region(d.path(), "issue", &["n", "ops", "bytes_mapped"], &issue_rows(false));
    let (doc, pic) = show_picture(d.path(), "issue", &[]);
    assert_eq!(doc["picture"]["decisions"], "band", "{}", doc["picture"]);
    assert_eq!((doc["picture"]["x"].as_str(), doc["picture"]["y"].as_str()), (Some("n"), None));
    // the band: its two rows named, the measured points on it, both decisions drawn (once each)
    assert!(pic.contains("\nmodel decides\n</text>") && pic.contains("\nmeasured best\n</text>"), "the band's rows");
    let title = texts(&pic).into_iter().find(|t| t.starts_with("decisions of the ")).unwrap();
    assert!(title.ends_with(" over n (bytes_mapped along n)"), "{title}");
    // cpu up to 1 M, gpu from 3.2 M: one rectangle each (the legend and the marks are discs)
    for style in plot::variant_styles(&["cpu".to_owned(), "gpu".to_owned()]) {
        let fill = format!("fill=\"{}\"", plot::hex(style.color).to_uppercase());
        assert_eq!(pic.split("<rect").skip(1).filter(|r| r.split("/>").next().unwrap().contains(&fill)).count(), 1, "{fill}");
    }
    assert!(pic.len() < 40_000, "an SVG of 5 vectors is {} bytes", pic.len());
    // one tick format: suffixed from a thousand up, never 3200000 beside 10M
    let ticks = numeric_ticks(&pic);
    assert!(ticks.iter().any(|t| t.ends_with('M')), "{ticks:?}");
    for t in &ticks {
        assert!(t.parse::<f64>().map_or(true, |v| v < 1000.0), "{t} among {ticks:?}");
    }
    // the text says what the picture shows
    let svg = d.path().join("issue.svg");
    let text = ompadapt(&["--dir", d.path().to_str().unwrap(), "show", "issue", "--svg", svg.to_str().unwrap()]);
    assert!(text.contains("(decisions along n; no other feature varies apart from it)"), "{text}");
}

/// Two features that vary apart: a map over them, the constant and the multiple left out, of
/// a few rectangles (merged runs of one decision) rather than a cell each.
#[test]
fn show_maps_two_features_that_vary_apart_in_few_rectangles() {
    let d = tempfile::tempdir().unwrap();
    two_variant_region(d.path(), "issue4", &["n", "ops", "bytes_mapped", "m"], &issue_rows(true));
    let (doc, pic) = show_picture(d.path(), "issue4", &[]);
    assert_eq!(doc["picture"]["decisions"], "map", "{}", doc["picture"]);
    assert_eq!((doc["picture"]["x"].as_str(), doc["picture"]["y"].as_str()), (Some("n"), Some("m")));
    assert!(pic.len() < 60_000, "an SVG of 5 vectors is {} bytes", pic.len());
    assert!(pic.matches("<rect").count() < 200, "{} rectangles", pic.matches("<rect").count());
    for t in numeric_ticks(&pic) {
        assert!(t.parse::<f64>().map_or(true, |v| v < 1000.0), "{t}");
    }
    // asked for m: the map turns; asked for the constant: an error naming those that vary
    let (doc, _) = show_picture(d.path(), "issue4", &["--axis", "m"]);
    assert_eq!((doc["picture"]["x"].as_str(), doc["picture"]["y"].as_str()), (Some("m"), Some("n")));
    let o = Command::new(env!("CARGO_BIN_EXE_ompadapt"))
        .args(["--dir", d.path().to_str().unwrap(), "show", "issue4", "--svg", "/dev/null", "--axis", "ops"])
        .env_remove("OMPADAPT_DIR")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("--axis ops: the feature is 12 in every measurement; the features that vary: n, bytes_mapped, m"),
        "{err}"
    );
}

/// No feature varies: the picture says so in words instead of an empty map.
#[test]
fn show_says_so_when_no_feature_varies() {
    let d = tempfile::tempdir().unwrap();
    two_variant_region(d.path(), "fixed", &["n", "ops"], &[vec![4096.0, 12.0]]);
    let (doc, pic) = show_picture(d.path(), "fixed", &[]);
    assert_eq!(doc["picture"]["decisions"], "none", "{}", doc["picture"]);
    let t = texts(&pic);
    assert!(t.iter().any(|t| t == "No feature varies in the data: there is nothing to draw the decisions over."), "{t:?}");
    assert!(t.iter().any(|t| t == "Every measurement had n = 4096, ops = 12."), "{t:?}");
    assert!(t.iter().any(|t| t == "There the model decides cpu; measured best: cpu."), "{t:?}");
    assert!(!pic.contains("\nmodel decides\n</text>"), "no band");
    assert!(pic.len() < 40_000, "{} bytes", pic.len());
}
