//! The pictures: `ompadapt show --svg` of a region with eleven variants gives each its own
//! colour and keeps the legend beside the data; `ompadapt trace --html` of two processes' traces
//! draws one group per process and a lane per region, lists only the variants that ran, and
//! measures the axis and the tooltips from one origin. Checked on the SVG and HTML text (no
//! timing). `OMPADAPT_PICTURES_OUT=DIR` keeps the pictures (how docs/images/ were made).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use ompadapt_benchmarks::plot;
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
