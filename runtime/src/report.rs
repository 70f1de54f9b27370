//! The exit report: what each region measured, learned and decides. `OMPADAPT_REPORT=1` prints
//! text on stderr; `OMPADAPT_REPORT=json:<file>` writes the same content as JSON ([`RegionReport`]).

use serde::Serialize;

use crate::config::Report;
use crate::region::{Origin, Region, Snapshot};

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

fn fmt_value(x: f64) -> String {
    format!("{x}")
}

/// Renders rows as a left-aligned table with two spaces between columns.
fn table(rows: &[Vec<String>], indent: &str) -> String {
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

fn origin_text(o: &Origin) -> String {
    match o {
        Origin::Online => "trained in this run".into(),
        Origin::Explicit => "trained by an explicit train call".into(),
        Origin::Retrained => "retrained in this run on newly measured feature vectors".into(),
        Origin::Loaded => "trained at start-up from saved data".into(),
        Origin::Frozen => "stored model (frozen)".into(),
        Origin::Fixed => "fixed variant".into(),
        Origin::Pooled(n) => format!("trained on {n} measurements pooled over MPI ranks"),
    }
}

/// The JSON report of one region.
#[derive(Serialize, Debug)]
pub struct RegionReport {
    pub region: String,
    pub loc: String,
    pub variants: Vec<String>,
    pub features: Vec<String>,
    pub malformed: Option<String>,
    pub mode: String,
    pub explore: String,
    pub repeats: u32,
    pub min_train: usize,
    pub executions: u64,
    pub exploring: u64,
    pub chosen_by_model: u64,
    pub unrecorded: u64,
    pub training_samples: usize,
    pub stored_samples: usize,
    pub model: Option<ModelReport>,
    pub drift: Vec<DriftReport>,
    /// Variants that could not run in this process (their host version would have read data
    /// the device holds), in the order found; empty when every variant was available.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<UnavailableReport>,
    /// The `cpu` variant's copies (only for an offload's host version that ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_copies: Option<HostCopiesReport>,
    pub monitoring: bool,
    pub loaded_samples: u64,
    pub timings: Vec<TimingReport>,
    pub decisions: Vec<DecisionReport>,
    /// Per variant: bytes moved and transfer time per execution (only when the OMPT tool
    /// `libompadapt_dataperf.so` measured them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub data_movement: Vec<DataMovementReport>,
    /// The `declare adaptation` clauses: executions outside declared feature ranges; for an
    /// associated region, its primary, mapping and executions per variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<crate::region::declared::DeclaredReport>,
}

#[derive(Serialize, Debug)]
pub struct DataMovementReport {
    pub variant: String,
    #[serde(flatten)]
    pub per_execution: crate::dataflow::Movement,
}

#[derive(Serialize, Debug)]
pub struct ModelReport {
    /// The model fitted (for `auto`/`cost`: the one chosen).
    pub kind: String,
    /// The model asked for (`auto` when the directive names none).
    pub asked: String,
    /// For a selection: the chosen model's cross-validated mean regret and fraction of held-out
    /// vectors within 5 % of the best time.
    pub estimated_regret: Option<f64>,
    pub estimated_within5: Option<f64>,
    pub origin: String,
    pub trained_after_executions: u64,
    pub feature_vectors: usize,
    pub training_samples: usize,
    pub train_ns: u64,
    pub fallback: Option<String>,
    pub text: String,
}

#[derive(Serialize, Debug)]
pub struct DriftReport {
    pub at_execution: u64,
    /// The feature vector re-measured, the variant that ran slow, its label before and now.
    pub features: Vec<f64>,
    pub variant: String,
    pub label_before: Option<String>,
    pub label_now: Option<String>,
    pub slow: u32,
    pub window: u32,
}

#[derive(Serialize, Debug)]
pub struct UnavailableReport {
    pub variant: String,
    /// The variant the execution that found it ran instead (null: not recorded).
    pub replacement: Option<String>,
    pub at_execution: u64,
    pub reason: String,
}

/// What the `cpu` variant of an offload copied around its host version, per execution.
#[derive(Serialize, Debug)]
pub struct HostCopiesReport {
    pub executions: u64,
    /// Bytes moved between host and device (both ways) per execution.
    pub transferred_bytes: f64,
    /// Host bytes saved and restored (what the offload would not change) per execution.
    pub preserved_bytes: f64,
    /// Time of the copies per execution (part of the variant's measured time).
    pub ns: f64,
}

#[derive(Serialize, Debug)]
pub struct TimingReport {
    pub features: Vec<f64>,
    pub variant: String,
    pub exploring_runs: u64,
    pub model_runs: u64,
    /// Model-chosen executions that were timed (one in `OMPADAPT_SAMPLE`).
    pub model_timed: u64,
    pub median_ns: Option<f64>,
    pub mean_ns: Option<f64>,
    /// The robust time the label uses (lower quartile of the warm measurements, else the cold).
    pub estimate_ns: Option<f64>,
}

#[derive(Serialize, Debug)]
pub struct DecisionReport {
    pub features: Vec<f64>,
    /// Variant the model picks, or null while exploring.
    pub decision: Option<String>,
    /// Label exploration found for it (if decided).
    pub explored_best: Option<String>,
}

/// The report data of one region.
pub fn region_report(r: &Region) -> RegionReport {
    let spec = &r.spec;
    let snap: Option<Snapshot> = r.broken.is_none().then(|| r.snapshot());
    let vname = |v: usize| spec.variants.get(v).cloned().unwrap_or_else(|| format!("#{v}"));
    let trained = r.trained();
    let fname = |i: usize| spec.feature_name(i);
    let loaded = r.loaded_samples.load(std::sync::atomic::Ordering::Relaxed);
    let mut rep = RegionReport {
        region: spec.model.clone(),
        loc: spec.loc.clone(),
        variants: spec.variants.clone(),
        features: spec.features.clone(),
        malformed: r.broken.clone(),
        mode: if r.mode.frozen {
            "frozen".into()
        } else if r.mode.coarse {
            "coarse".into()
        } else if r.settings().explore_only {
            "explore-only".into()
        } else {
            "adaptive".into()
        },
        explore: r.params().strategy.name().into(),
        repeats: r.params().repeats,
        min_train: r.min_train(),
        executions: 0,
        exploring: 0,
        chosen_by_model: 0,
        unrecorded: 0,
        training_samples: 0,
        stored_samples: 0,
        model: trained.as_ref().map(|t| ModelReport {
            kind: t.chosen.describe(),
            asked: t.choice.describe(),
            estimated_regret: t.estimate.as_ref().map(|e| e.mean_regret),
            estimated_within5: t.estimate.as_ref().map(|e| e.within5),
            origin: origin_text(&t.origin),
            trained_after_executions: t.executions,
            feature_vectors: t.labels.len(),
            training_samples: t.training_samples,
            train_ns: t.train_ns,
            fallback: t.fallback.clone(),
            text: t.predictor.render(&fname, &vname, 0),
        }),
        drift: r
            .drift_events()
            .iter()
            .map(|d| DriftReport {
                at_execution: d.at_execution,
                features: d.key.values(),
                variant: vname(d.variant),
                label_before: d.label_before.map(vname),
                label_now: r.label(&d.key.values()).map(vname),
                slow: d.slow,
                window: d.window,
            })
            .collect(),
        unavailable: r
            .unavailable()
            .into_iter()
            .map(|u| UnavailableReport {
                variant: vname(u.variant),
                replacement: u.replacement.map(vname),
                at_execution: u.at_execution,
                reason: u.reason.clone(),
            })
            .collect(),
        host_copies: match r.host_copies.totals() {
            (0, ..) => None,
            (n, t, p, ns) => {
                let per = |x: u64| x as f64 / n as f64;
                Some(HostCopiesReport { executions: n, transferred_bytes: per(t), preserved_bytes: per(p), ns: per(ns) })
            }
        },
        monitoring: r.monitoring(),
        loaded_samples: loaded,
        timings: Vec::new(),
        decisions: Vec::new(),
        data_movement: (0..r.nvariants())
            .filter_map(|v| r.data_movement(v).map(|m| DataMovementReport { variant: vname(v), per_execution: m }))
            .collect(),
        declared: crate::region::declared::report(r),
    };
    let Some(snap) = snap else { return rep };
    rep.executions = snap.executions();
    rep.exploring = snap.recorded_explore;
    rep.chosen_by_model = snap.recorded_model;
    rep.unrecorded = snap.unrecorded;
    rep.training_samples = snap.training_samples;
    rep.stored_samples = snap.stored_samples;
    for e in &snap.entries {
        for (v, p) in e.per_variant.iter().enumerate() {
            rep.timings.push(TimingReport {
                features: e.key.values(),
                variant: vname(v),
                exploring_runs: p.count,
                model_runs: p.model_count,
                model_timed: p.model_timed,
                median_ns: p.median(),
                mean_ns: p.mean(),
                estimate_ns: p.estimate,
            });
        }
        rep.decisions.push(DecisionReport {
            features: e.key.values(),
            decision: trained.as_ref().map(|t| vname(r.usable(Some((&e.key, t)), t.predict(&e.key)))),
            explored_best: e.decided.map(vname),
        });
    }
    rep
}

/// The text report section of one region.
pub fn render(r: &Region) -> String {
    let spec = &r.spec;
    let mut out = format!("region '{}' ({})\n", spec.model, spec.loc);
    if let Some(why) = &r.broken {
        out.push_str(&format!("  malformed region descriptor ({why}): always ran its first variant\n"));
        return out;
    }
    if r.is_associated() {
        out.push_str(&crate::region::declared::render(r));
        return out;
    }
    let rep = region_report(r);
    let snap = r.snapshot();
    let nf = snap.entries.iter().map(|e| e.key.len()).max().unwrap_or(spec.features.len());
    let fname = |i: usize| spec.feature_name(i);
    let vname = |v: usize| spec.variants.get(v).cloned().unwrap_or_else(|| format!("#{v}"));
    let variants: Vec<String> = if spec.numeric {
        spec.variants.iter().zip(&spec.values).map(|(n, v)| format!("{n} (= {})", fmt_value(*v))).collect()
    } else {
        spec.variants.clone()
    };
    out.push_str(&format!("  variants: {}\n", variants.join(", ")));
    let feats: Vec<String> = (0..nf).map(fname).collect();
    out.push_str(&format!("  features: {}\n", if feats.is_empty() { "(none)".to_owned() } else { feats.join(", ") }));
    let repeats = match rep.repeats {
        crate::explore::ADAPTIVE => "adaptive repetition".to_owned(),
        1 => "1 measurement per pair".to_owned(),
        n => format!("{n} measurements per pair"),
    };
    out.push_str(&format!("  mode: {}; exploration: {}, {repeats}\n", rep.mode, rep.explore));
    let timed: u64 = rep.timings.iter().map(|t| t.model_timed).sum();
    out.push_str(&format!(
        "  executions: {} ({} exploring, {} chosen by the model of which {} timed{})\n",
        rep.executions,
        rep.exploring,
        rep.chosen_by_model,
        timed,
        if rep.unrecorded > 0 { format!(", {} not recorded", rep.unrecorded) } else { String::new() }
    ));
    out.push_str(&format!(
        "  training samples: {} measured (feature vector, variant) pairs; training needs {}\n",
        rep.training_samples, rep.min_train
    ));
    out.push_str(&crate::region::declared::render(r));
    if rep.loaded_samples > 0 {
        out.push_str(&format!("  loaded from earlier runs: {} measurements\n", rep.loaded_samples));
    }
    match (&rep.model, r.trained()) {
        (Some(m), Some(t)) => {
            out.push_str(&format!(
                "  model: {}, {} after {} executions on {} feature vectors ({} training samples) in {}\n",
                m.kind,
                m.origin,
                m.trained_after_executions,
                m.feature_vectors,
                m.training_samples,
                fmt_ns(m.train_ns as f64)
            ));
            if let Some(e) = &m.fallback {
                out.push_str(&format!("  (training failed: {e}; constant model)\n"));
            }
            if m.asked != m.kind {
                let estimate = match (&t.estimate, m.estimated_regret, m.estimated_within5) {
                    (Some(e), Some(r), Some(w)) => format!(
                        "; cross-validated on {} feature vectors ({} folds): mean regret {:.2} %, {:.0} % within 5 % of the best",
                        e.decisions,
                        e.folds,
                        r * 100.0,
                        w * 100.0
                    ),
                    _ => "; too few feature vectors with every variant measured to cross-validate".to_owned(),
                };
                out.push_str(&format!("  (asked for: {}{estimate})\n", m.asked));
            }
            out.push_str(&t.predictor.render(&fname, &vname, 2));
        }
        _ => out.push_str(&format!(
            "  model: {}, not trained yet (needs {} training samples and one decided feature vector)\n",
            r.settings().choice.describe(),
            rep.min_train
        )),
    }
    for d in &rep.drift {
        let fv: Vec<String> = d.features.iter().enumerate().map(|(i, x)| format!("{}={}", fname(i), fmt_value(*x))).collect();
        let outcome = match (&d.label_before, &d.label_now) {
            (Some(a), Some(b)) if a == b => format!("label kept ({b})"),
            (Some(a), Some(b)) => format!("label changed from {a} to {b}"),
            (_, Some(b)) => format!("labelled {b}"),
            (_, None) => "being re-measured".to_owned(),
        };
        out.push_str(&format!(
            "  drift: {} ran slower than its measured time in {} of {} timed executions (after execution {}); \
             re-measured: {outcome}\n",
            if fv.is_empty() { d.variant.clone() } else { format!("{} on {}", d.variant, fv.join(", ")) },
            d.slow,
            d.window,
            d.at_execution
        ));
    }
    for u in &rep.unavailable {
        out.push_str(&format!(
            "  unavailable: {} ({}; found at execution {}{}): not selected for the rest of the run\n",
            u.variant,
            u.reason,
            u.at_execution + 1,
            u.replacement.as_ref().map_or(String::new(), |r| format!(", which ran {r} instead"))
        ));
    }
    if let Some(h) = &rep.host_copies {
        out.push_str(&format!(
            "  cpu copies: {} per execution between host and device, {} saved and restored on the host, {:.1} us ({} executions)\n",
            human_bytes(h.transferred_bytes),
            human_bytes(h.preserved_bytes),
            h.ns / 1e3,
            h.executions
        ));
    }
    if r.retrains() > 0 {
        out.push_str(&format!("  retrained {} time(s) in this run on newly measured feature vectors\n", r.retrains()));
    }

    if !snap.entries.is_empty() {
        out.push_str("  timings per feature vector and variant:\n");
        let mut rows = vec![{
            let mut h: Vec<String> = (0..nf).map(fname).collect();
            h.extend(["variant", "runs", "mean", "median"].map(String::from));
            h
        }];
        for e in &snap.entries {
            for (v, s) in e.per_variant.iter().enumerate() {
                let mut row: Vec<String> =
                    (0..nf).map(|i| if v == 0 && i < e.key.len() { fmt_value(e.key.get(i)) } else { String::new() }).collect();
                row.push(vname(v));
                row.push(s.total().to_string());
                row.push(s.mean().map_or("-".to_owned(), fmt_ns));
                row.push(s.median().map_or("-".to_owned(), fmt_ns));
                rows.push(row);
            }
        }
        out.push_str(&table(&rows, "    "));

        out.push_str("  decisions:\n");
        let trained = r.trained();
        let labels: std::collections::HashMap<_, _> = trained.as_ref().map(|t| t.labels.iter().copied().collect()).unwrap_or_default();
        let mut rows = Vec::new();
        for e in &snap.entries {
            let fv: Vec<String> = (0..e.key.len()).map(|i| format!("{}={}", fname(i), fmt_value(e.key.get(i)))).collect();
            let fv = if fv.is_empty() { "(no features)".to_owned() } else { fv.join(", ") };
            let (decision, note) = match &trained {
                Some(t) => {
                    let d = t.predict(&e.key);
                    let note = match (labels.get(&e.key), e.decided) {
                        (Some(&l), _) if l == d => "(fastest when trained)".to_owned(),
                        (Some(&l), _) => format!("(fastest when trained: {})", vname(l)),
                        (None, Some(b)) if b == d => "(not in training set; fastest measured)".to_owned(),
                        (None, Some(b)) => format!("(not in training set; fastest measured: {})", vname(b)),
                        (None, None) => "(not in training set)".to_owned(),
                    };
                    (format!("-> {}", vname(d)), note)
                }
                None => match e.decided {
                    Some(b) => ("exploring".to_owned(), format!("(fastest measured: {})", vname(b))),
                    None => ("exploring".to_owned(), String::new()),
                },
            };
            rows.push(vec![fv, decision, note]);
        }
        out.push_str(&table(&rows, "    "));
    }
    if !rep.data_movement.is_empty() {
        out.push_str(
            "  data movement per execution (OMPT):
",
        );
        let rows: Vec<Vec<String>> = rep
            .data_movement
            .iter()
            .map(|d| {
                let m = &d.per_execution;
                vec![
                    d.variant.clone(),
                    format!("{:.0} B to device", m.to_device_bytes),
                    format!("{:.0} B from device", m.from_device_bytes),
                    format!("{} in transfers", fmt_ns(m.transfer_ns)),
                    format!("({} executions)", m.executions),
                ]
            })
            .collect();
        out.push_str(&table(&rows, "    "));
    }
    out
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
    }
    let doc = Doc {
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
        let d = Directive { min_train: Some(min_train), model: config::directive_model(spec.model_type, -1, -1), ..Directive::default() };
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
                c.t0 = crate::clock::now() - (cost[c.variant as usize] as f64 / crate::clock::ns_per_tick()) as u64;
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
                let flags = c.t0 & crate::region::T0_FLAGS;
                c.t0 = (crate::clock::now() - (cost(n)[c.variant as usize] / crate::clock::ns_per_tick()) as u64) | flags;
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
fn human_bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.2} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.1} kB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}
