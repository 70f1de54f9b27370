//! The exit report (`OMPADAPT_REPORT=1`): what each region measured, learned and decides.

use crate::registry::Registry;
use crate::region::Region;

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

/// The report section of one region.
pub fn render(r: &Region) -> String {
    let spec = &r.spec;
    let mut out = format!("region '{}' ({})\n", spec.model, spec.loc);
    if let Some(why) = &r.broken {
        out.push_str(&format!("  malformed region descriptor ({why}): always ran its first variant\n"));
        return out;
    }
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
    out.push_str(&format!(
        "  executions: {} ({} exploring, {} chosen by the model, {} warm-up not recorded)\n",
        snap.executions(),
        snap.recorded_explore,
        snap.recorded_model,
        snap.unrecorded
    ));
    out.push_str(&format!(
        "  training samples: {} measured (feature vector, variant) pairs; training needs {}\n",
        snap.training_samples, r.min_train
    ));

    match r.trained() {
        Some(t) => {
            out.push_str(&format!(
                "  model: {}, trained after {} executions on {} feature vectors ({} training samples) in {}\n",
                t.choice.describe(),
                t.executions,
                t.labels.len(),
                t.training_samples,
                fmt_ns(t.train_ns as f64)
            ));
            if let Some(e) = &t.fallback {
                out.push_str(&format!("  (training failed: {e}; constant model)\n"));
            }
            out.push_str(&t.compiled.render(&fname, &vname, 2));
        }
        None => out.push_str(&format!(
            "  model: {}, not trained yet (needs {} training samples and one feature vector with every variant measured)\n",
            r.choice.describe(),
            r.min_train
        )),
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
                row.push(s.count.to_string());
                row.push(s.mean().map_or("-".to_owned(), fmt_ns));
                row.push(s.median().map_or("-".to_owned(), fmt_ns));
                rows.push(row);
            }
        }
        out.push_str(&table(&rows, "    "));

        out.push_str("  decisions:\n");
        let labels: std::collections::HashMap<_, _> =
            r.trained().map(|t| t.labels.iter().copied().collect()).unwrap_or_default();
        let mut rows = Vec::new();
        for e in &snap.entries {
            let fv: Vec<String> = (0..e.key.len()).map(|i| format!("{}={}", fname(i), fmt_value(e.key.get(i)))).collect();
            let fv = if fv.is_empty() { "(no features)".to_owned() } else { fv.join(", ") };
            let (decision, note) = match r.trained() {
                Some(t) => {
                    let d = t.compiled.predict(&e.key.padded());
                    let note = match (labels.get(&e.key), e.best_by_median()) {
                        (Some(&l), _) if l == d => "(fastest when trained)".to_owned(),
                        (Some(&l), _) => format!("(fastest when trained: {})", vname(l)),
                        (None, Some(b)) if b == d => "(not in training set; fastest measured)".to_owned(),
                        (None, Some(b)) => format!("(not in training set; fastest measured: {})", vname(b)),
                        (None, None) => "(not in training set)".to_owned(),
                    };
                    (format!("-> {}", vname(d)), note)
                }
                None => ("exploring".to_owned(), format!("(next: {})", vname((e.begun % r.nvariants() as u64) as usize))),
            };
            rows.push(vec![fv, decision, note]);
        }
        out.push_str(&table(&rows, "    "));
    }
    out
}

/// The whole report.
pub fn render_all(reg: &Registry) -> String {
    let regions = reg.regions();
    let mut out = format!(
        "ompadapt: report for '{}': {} adaptive region{}\n",
        reg.config().program,
        regions.len(),
        if regions.len() == 1 { "" } else { "s" }
    );
    for r in regions {
        out.push('\n');
        out.push_str(&render(r));
    }
    out
}

/// Prints the report on stderr.
pub fn print(reg: &Registry) {
    use std::io::Write;
    let text = render_all(reg);
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::ctx::Ctx;

    #[test]
    fn durations() {
        assert_eq!(fmt_ns(812.0), "812 ns");
        assert_eq!(fmt_ns(12_345.0), "12.3 µs");
        assert_eq!(fmt_ns(4_560_000.0), "4.56 ms");
        assert_eq!(fmt_ns(1.5e9), "1.50 s");
    }

    #[test]
    fn report_contents() {
        let reg = Registry::new(Config { persist: false, warmup: false, ..Config::default() });
        let r = reg.lookup(Some("ompadapt1;model=mm;loc=mm.c:42;features=N;variants=cpu,gpu"), 4, -1, -1);
        for (f, cost) in [(1000.0, [10u64, 900]), (100000.0, [900, 10])] {
            for _ in 0..2 {
                let mut c = Ctx::zeroed();
                r.begin(&[f], &mut c);
                c.t0 = crate::clock::now() - cost[c.variant as usize];
                r.end(&c);
            }
        }
        assert!(r.is_trained());
        let text = render_all(&reg);
        for needle in [
            "region 'mm' (mm.c:42)",
            "executions: 4",
            "training samples: 4",
            "if N < 50500",
            "-> cpu",
            "else",
            "-> gpu",
        ] {
            assert!(text.contains(needle), "missing '{needle}' in:\n{text}");
        }
        let decision = |fv: &str| {
            text.lines().find(|l| l.trim_start().starts_with(&format!("{fv} "))).unwrap_or("").to_owned()
        };
        assert!(decision("N=1000").contains("-> cpu"), "{text}");
        assert!(decision("N=100000").contains("-> gpu"), "{text}");
    }
}
