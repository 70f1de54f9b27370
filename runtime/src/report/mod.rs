//! The exit report: what each region measured, learned and decides. `OMPADAPT_REPORT=1` prints
//! text on stderr; `OMPADAPT_REPORT=json:<file>` writes the same content as JSON ([`RegionReport`]).

use serde::Serialize;

use crate::config::Report;
use crate::region::Region;

mod data;
pub mod text;

pub use data::{
    region_report, DataMovementReport, DecisionReport, DriftReport, HostCopiesReport, ModelReport, RegionReport, TimingReport,
    UnavailableReport,
};

/// Formats a duration given in ns: `812 ns`, `12.3 µs`, `4.56 ms`, `1.23 s`.
pub fn fmt_ns(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if unit == "ns" || v >= 100.0 {
        format!("{v:.0} {unit}")
    } else if v >= 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.2} {unit}")
    }
}

/// Renders rows as a left-aligned table with two spaces between columns.
pub(crate) fn table(rows: &[Vec<String>], indent: &str) -> String {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..ncols).map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::from(indent);
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < r.len() {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The text report section of one region.
pub fn render(r: &Region) -> String {
    text::render(&region_report(r))
}

/// The whole text report of `program`'s `regions`.
pub fn render_all(program: &str, regions: &[&Region]) -> String {
    let mut out = format!(
        "ompadapt: report for '{}': {} adaptive region{} (clock: {})\n",
        program,
        regions.len(),
        if regions.len() == 1 { "" } else { "s" },
        crate::clock::source()
    );
    if let Some(o) = crate::whole_run::outcome() {
        out.push_str(&crate::whole_run::describe(&o));
    }
    for r in regions {
        out.push('\n');
        out.push_str(&render(r));
    }
    out
}

/// The whole JSON report.
pub fn render_json(program: &str, regions: &[&Region]) -> String {
    #[derive(Serialize)]
    struct Doc {
        format: &'static str,
        version: u32,
        program: String,
        clock: String,
        regions: Vec<RegionReport>,
        #[serde(skip_serializing_if = "Option::is_none")]
        whole_run: Option<WholeRun>,
    }
    /// The whole-run trial (see `whole_run`): what this run ran and what the next will.
    #[derive(Serialize)]
    struct WholeRun {
        side: &'static str,
        why: &'static str,
        recorded_s: Option<f64>,
        next_side: &'static str,
        next_why: &'static str,
        labels_median_s: Option<f64>,
        own_median_s: Option<f64>,
    }
    let whole_run = crate::whole_run::outcome().map(|o| WholeRun {
        side: o.this.side.key(),
        why: o.this.why.key(),
        recorded_s: o.recorded.map(|r| r.wall_ns as f64 * 1e-9),
        next_side: o.next.side.key(),
        next_why: o.next.why.key(),
        labels_median_s: o.next.medians.map(|m| m.0 * 1e-9),
        own_median_s: o.next.medians.map(|m| m.1 * 1e-9),
    });
    let doc = Doc {
        whole_run,
        format: "ompadapt-report",
        version: 1,
        program: program.to_owned(),
        clock: crate::clock::source().to_owned(),
        regions: regions.iter().map(|r| region_report(r)).collect(),
    };
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Prints the text report on stderr.
pub fn print(program: &str, regions: &[&Region]) {
    use std::io::Write;
    let text = render_all(program, regions);
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Emits the report `report` asks for.
pub fn emit(report: &Report, program: &str, regions: &[&Region]) {
    match report {
        Report::Off => {}
        Report::Stderr => print(program, regions),
        Report::Json(path) => {
            if let Err(e) = crate::safe_fs::write_file_atomic(path, render_json(program, regions).as_bytes()).map_err(|e| e.to_string()) {
                crate::diag::warn(&format!("OMPADAPT_REPORT: {e}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{self, Config, Directive};
    use crate::ctx::Ctx;
    use crate::region::RegionBuilder;

    /// A region as the runtime creates it from a descriptor, without persistence.
    fn region(text: &str, min_train: usize) -> &'static Region {
        let spec = crate::spec::parse(text).unwrap().descriptor;
        let c = Config { persist: false, warmup: false, ..Config::default() };
        let d = Directive { min_train: Some(min_train), model: config::directive_model(spec.model_type, [-1, -1]), ..Directive::default() };
        Box::leak(Box::new(RegionBuilder::from_settings(c.region_settings(&spec.model, &d)).build(spec)))
    }

    #[test]
    fn durations() {
        assert_eq!(fmt_ns(812.0), "812 ns");
        assert_eq!(fmt_ns(12_345.0), "12.3 µs");
        assert_eq!(fmt_ns(4_560_000.0), "4.56 ms");
        assert_eq!(fmt_ns(1.5e9), "1.50 s");
    }

    #[test]
    fn report_contents() {
        let r = region("ompadapt1;model=mm;loc=mm.c:42;features=N;variants=cpu,gpu;model_type=dtree", 4);
        for (f, cost) in [(1000.0, [10_000u64, 900_000]), (100000.0, [900_000, 10_000])] {
            // the second vector disagrees with its neighbour: its cpu is measured twice
            for _ in 0..3 {
                let mut c = Ctx::zeroed();
                r.begin(&[f], &mut c);
                c.t0 = crate::ctx::Start::exploring(
                    crate::clock::now() - (cost[c.variant as usize] as f64 / crate::clock::ns_per_tick()) as u64,
                    false,
                );
                r.end(&c);
            }
        }
        assert!(r.is_trained());
        let text = render_all("prog", &[r]);
        for needle in [
            "region 'mm' (mm.c:42)",
            "executions: 6",
            "training samples: 4",
            "if N < 50500",
            "-> cpu",
            "else",
            "-> gpu",
            "exploration: roundrobin",
        ] {
            assert!(text.contains(needle), "missing '{needle}' in:\n{text}");
        }
        let decision = |fv: &str| text.lines().find(|l| l.trim_start().starts_with(&format!("{fv} "))).unwrap_or("").to_owned();
        assert!(decision("N=1000").contains("-> cpu"), "{text}");
        assert!(decision("N=100000").contains("-> gpu"), "{text}");
        let json: serde_json::Value = serde_json::from_str(&render_json("prog", &[r])).unwrap();
        let r0 = &json["regions"][0];
        assert_eq!(r0["region"], "mm");
        assert_eq!(r0["executions"], 6);
        assert_eq!(r0["decisions"][1]["decision"], "gpu");
        assert!(r0["model"]["text"].as_str().unwrap().contains("if N < 50500"));
        // always cpu: 10 µs + 900 µs; the decisions: 10 µs + 10 µs, 45.5× faster
        assert_eq!(r0["payoff"]["vectors"], 2);
        let gain = r0["payoff"]["single_ns"].as_f64().unwrap() / r0["payoff"]["decided_ns"].as_f64().unwrap();
        assert!((40.0..50.0).contains(&gain), "{}", r0["payoff"]);
        assert!(text.contains("adaptation: over the 2 vectors with every variant measured") && text.contains("% faster"), "{text}");
    }

    /// Without a model type the region chooses by cross-validated regret, and the report says
    /// which model it chose and its estimated regret.
    #[test]
    fn report_names_the_chosen_model() {
        let r = region("ompadapt1;model=auto_mm;loc=mm.c:7;features=N;variants=cpu,gpu", 16);
        let cost = |n: f64| [2_000.0 + 1.0 * n, 40_000.0 + 0.05 * n];
        for n in [1e3, 3e3, 1e4, 2e4, 1e5, 3e5, 1e6, 3e6] {
            // each variant once, and once more where the label disagrees with the neighbours'
            while r.label(&[n]).is_none() {
                let mut c = Ctx::zeroed();
                r.begin(&[n], &mut c);
                c.t0 = c.t0.with_time(crate::clock::now() - (cost(n)[c.variant as usize] / crate::clock::ns_per_tick()) as u64);
                r.end(&c);
            }
        }
        assert!(r.trained().is_some_and(|t| t.labels.len() == 8));
        let text = render_all("prog", &[r]);
        // affine costs: the additive and the linear family fit them alike (which one wins the
        // tie depends on the few ns of real time each measured execution adds)
        // (a piecewise fit of either family ties with them too)
        assert!(text.contains("model: cost model (additive") || text.contains("model: cost model (linear"), "{text}");
        assert!(text.contains("asked for: automatic choice by cross-validated regret; cross-validated on 8 feature vectors"), "{text}");
        assert!(text.contains("time(gpu) = "), "{text}");
        // the crossover (n = 40000) lies between two measured sizes
        assert_eq!(r.decide(&[3.5e4]), Some(0));
        assert_eq!(r.decide(&[4.5e4]), Some(1));
        let json: serde_json::Value = serde_json::from_str(&render_json("prog", &[r])).unwrap();
        let m = &json["regions"][0]["model"];
        let kind = m["kind"].as_str().unwrap();
        assert!(kind.starts_with("cost model (additive") || kind.starts_with("cost model (linear"), "{m}");
        assert_eq!(m["asked"], "automatic choice by cross-validated regret");
        assert!(m["estimated_regret"].as_f64().unwrap() < 0.01, "{m}");
        assert!(m["estimated_within5"].as_f64().unwrap() > 0.99, "{m}");
    }
}

/// `1.5 MB`, `320 B`.
pub(crate) fn human_bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.2} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.1} kB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}
