//! Whether a run measured the models or the machine: per kernel, the shortest measured part of
//! a static run (the calibration's target is 20 ms), the run-to-run spread of each static
//! configuration (slowest / fastest − 1), the gap between each input's two fastest
//! configurations, and the inputs **in doubt**: those whose gap is smaller than the spread of
//! either of the two (their ranking can flip from one set of runs to the next).

use std::fmt::Write as _;

use ompadapt_rt::stats::median_f64;
use serde_json::{json, Value};

use super::measure::{fastest, spread, KernelRun};
use super::runner::csv_field;

/// One kernel's measurement quality.
pub struct Quality {
    /// The shortest measured part of any static configuration (its fastest run), s.
    pub shortest_s: f64,
    /// Median and largest spread over the configurations with at least two runs.
    pub spread_median: f64,
    pub spread_max: f64,
    /// Median gap between the two fastest configurations.
    pub gap_median: f64,
    /// Inputs in doubt, and inputs judged (both fastest configurations ran at least twice).
    pub in_doubt: Vec<u64>,
    pub judged: usize,
}

impl Quality {
    pub fn of(r: &KernelRun) -> Quality {
        let spreads: Vec<f64> = r.combos.values().map(|t| spread(t)).filter(|s| !s.is_nan()).collect();
        let gaps: Vec<f64> = r
            .inputs
            .iter()
            .filter_map(|&n| {
                let ranked = r.ranked(n);
                ranked.get(1).map(|second| second.1 / ranked[0].1 - 1.0)
            })
            .collect();
        let judged: Vec<(u64, bool)> = r.inputs.iter().filter_map(|&n| r.in_doubt(n).map(|d| (n, d))).collect();
        Quality {
            shortest_s: r.combos.values().map(|t| fastest(t)).fold(f64::NAN, f64::min),
            spread_median: median_f64(&spreads).unwrap_or(f64::NAN),
            spread_max: spreads.iter().copied().fold(f64::NAN, f64::max),
            gap_median: median_f64(&gaps).unwrap_or(f64::NAN),
            in_doubt: judged.iter().filter(|j| j.1).map(|j| j.0).collect(),
            judged: judged.len(),
        }
    }

    /// "3 of 8" (judged inputs), or why none was judged.
    pub fn in_doubt_text(&self) -> String {
        if self.judged == 0 {
            "— (one run per configuration)".to_owned()
        } else {
            format!("{} of {}", self.in_doubt.len(), self.judged)
        }
    }

    pub fn json(&self) -> Value {
        json!({
            "shortest_measured_s": self.shortest_s,
            "run_spread_median": self.spread_median,
            "run_spread_max": self.spread_max,
            "best_two_gap_median": self.gap_median,
            "inputs_in_doubt": self.in_doubt,
            "inputs_judged": self.judged,
        })
    }
}

/// `configurations.csv`'s lines of one kernel: every static configuration's runs, fastest,
/// median, slowest and spread, and whether its input is in doubt.
pub fn configuration_lines(r: &KernelRun, csv: &mut String) {
    for ((n, combo), t) in &r.combos {
        let name: Vec<&str> = combo.iter().map(|&v| r.variants[v].as_str()).collect();
        let doubt = r.in_doubt(*n).map_or(String::new(), |d| d.to_string());
        let _ = writeln!(
            csv,
            "{},{n},{},{},{},{:.9},{:.9},{:.9},{:.4},{doubt}",
            r.kernel.name,
            r.steps.get(n).copied().unwrap_or(0),
            csv_field(&name.join("+")),
            t.len(),
            fastest(t),
            median_f64(t).unwrap_or(f64::NAN),
            t.iter().copied().fold(f64::NAN, f64::max),
            spread(t)
        );
    }
}

/// The header of `configurations.csv`.
pub const CONFIGURATIONS_HEADER: &str = "kernel,input,steps,configuration,runs,fastest_s,median_s,slowest_s,spread,input_in_doubt\n";

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use ompadapt_rt::model::ModelChoice;

    use super::*;
    use crate::kernels;

    /// jacobi2d (one region) with synthetic static times: variant index -> runs, per input.
    fn measured(times: &[(u64, &[(usize, &[f64])])]) -> KernelRun {
        let k = kernels::find("jacobi2d").unwrap();
        let inputs = times.iter().map(|t| t.0).collect();
        let mut r = KernelRun::new(k, inputs, BTreeMap::new(), ModelChoice::Tree { max_depth: 2 }, 2);
        r.variants = ["serial", "threads=0.5", "threads=1", "schedule=dynamic,16"].map(str::to_owned).to_vec();
        for (n, configs) in times {
            for (v, runs) in *configs {
                r.combos.insert((*n, vec![*v]), runs.to_vec());
            }
        }
        r
    }

    #[test]
    fn an_input_is_in_doubt_when_its_best_two_are_closer_than_their_spread() {
        let r = measured(&[
            // 50 % apart, spreads 2 % and 6.7 %: clear
            (16, &[(0, &[0.020, 0.0204]), (2, &[0.030, 0.032])]),
            // 5 % apart, serial's runs 10 % apart: in doubt
            (64, &[(0, &[0.020, 0.022]), (2, &[0.021, 0.0212])]),
            // one run each: not judged
            (128, &[(0, &[0.040]), (2, &[0.025])]),
        ]);
        assert_eq!(r.in_doubt(16), Some(false));
        assert_eq!(r.in_doubt(64), Some(true));
        assert_eq!(r.in_doubt(128), None);
        let q = Quality::of(&r);
        assert_eq!((q.in_doubt.clone(), q.judged), (vec![64], 2));
        assert_eq!(q.in_doubt_text(), "1 of 2");
        assert_eq!(q.shortest_s, 0.020);
        assert!((q.spread_max - 0.1).abs() < 1e-9, "{}", q.spread_max);
        // spreads 0.02, 0.0667, 0.1, 0.00952 (single runs have none): median of four
        assert!((q.spread_median - (0.02 + 0.2 / 3.0) / 2.0).abs() < 1e-3, "{}", q.spread_median);
        // gaps 50 %, 5 %, 60 %
        assert!((q.gap_median - 0.5).abs() < 1e-9, "{}", q.gap_median);
    }

    #[test]
    fn with_one_run_per_configuration_nothing_is_judged() {
        let q = Quality::of(&measured(&[(16, &[(0, &[0.02]), (2, &[0.03])]), (64, &[(0, &[0.02]), (2, &[0.021])])]));
        assert_eq!(q.judged, 0);
        assert_eq!(q.in_doubt_text(), "— (one run per configuration)");
        assert!(q.spread_max.is_nan());
    }

    #[test]
    fn configuration_lines_quote_variant_names_with_commas() {
        let mut r = measured(&[(16, &[(3, &[0.02, 0.021]), (0, &[0.03, 0.031])])]);
        r.steps.insert(16, 400);
        let mut csv = String::new();
        configuration_lines(&r, &mut csv);
        let line = csv.lines().find(|l| l.contains("dynamic")).unwrap();
        assert!(line.starts_with("jacobi2d,16,400,\"schedule=dynamic,16\",2,0.020000000,"), "{line}");
        assert!(line.ends_with(",0.0500,false"), "{line}");
    }
}
