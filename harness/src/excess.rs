//! Why an adaptive run is slower than the static run of the variant it chose. For every input
//! where an adaptive comparator's fastest run (Adaptive-100's production runs, Online per
//! strategy) takes more than [`LISTED`] longer than the fastest static run of the combination
//! it ran most, its excess is split, from that run's report and `DECISIONS` line, into:
//!
//! - **exploration**: its exploring executions (re-measurements after a drift included) of
//!   other variants, each costing that variant's time per execution minus the chosen one's, at
//!   the run's feature vector (the report's medians); the first step (not in the measured part)
//!   takes one exploring execution per region out;
//! - **off its choice**: executions the model itself gave another variant, costed alike;
//! - **training in the run**: the fitting time of a model trained after the start (Online);
//! - **decision and timing**: what the runtime adds per execution (docs/performance.md, "The runtime's overhead": 22 ns
//!   per trained execution, 37 ns per exploring or timed one) — an upper bound, the static runs
//!   pay part of it too;
//! - **the rest**, against the runs' spread: within the larger of the static configuration's and
//!   the adaptive runs' spread (slowest − fastest) it is the machine's noise; beyond it,
//!   unexplained.
//!
//! Loading the store and training at start-up happen in the first step, outside the measured
//! part: [`Excess::first_step_extra_s`] shows them apart.

use super::measure::{fastest, KernelRun};
use super::runner::Output;

/// An adaptive run this much slower than the static run of its choice is explained.
pub const LISTED: f64 = 0.01;
/// One trained execution's cost in the runtime, ns (docs/performance.md, "The runtime's overhead": 21.4–22.2 ns).
const DECIDE_NS: f64 = 22.0;
/// One exploring or timed execution's cost, ns (docs/performance.md, "The runtime's overhead": 36.9 ns).
const TIMED_NS: f64 = 37.0;

/// One adaptive comparator at one input, slower than the static run of its choice.
#[derive(Clone, Debug, Default)]
pub struct Excess {
    pub kernel: String,
    pub input: u64,
    pub comparator: String,
    /// The combination it ran most (variants joined by `+` for several regions).
    pub chosen: String,
    /// Its fastest run's measured part, and the fastest static run's of that combination, s.
    pub run_s: f64,
    pub static_s: f64,
    /// Exploring executions in the measured part, those of other variants, and their cost, s.
    pub exploring: u64,
    pub exploring_other: u64,
    pub exploration_s: f64,
    /// Drifts detected in the run.
    pub drifts: usize,
    /// Model-chosen executions of other variants, and their cost, s.
    pub off_choice: u64,
    pub off_choice_s: f64,
    pub training_s: f64,
    /// Decision and timing, an upper bound, s.
    pub overhead_s: f64,
    /// The larger of the static configuration's and the adaptive runs' spread, s.
    pub spread_s: f64,
    /// First step of the adaptive run minus the static run's (fastest of each), s.
    pub first_step_extra_s: f64,
}

/// What an excess is mostly made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cause {
    Exploration,
    OffChoice,
    Training,
    Overhead,
    /// The rest, within the runs' spread.
    Noise,
    /// The rest, beyond it.
    Unexplained,
    /// The rest, with no spread to judge it by (one run of each).
    Unjudged,
}

impl Cause {
    pub const ALL: [Cause; 7] =
        [Cause::Exploration, Cause::OffChoice, Cause::Training, Cause::Overhead, Cause::Noise, Cause::Unexplained, Cause::Unjudged];

    pub fn label(self) -> &'static str {
        match self {
            Cause::Exploration => "exploration",
            Cause::OffChoice => "off its choice",
            Cause::Training => "training in the run",
            Cause::Overhead => "decision and timing",
            Cause::Noise => "machine noise",
            Cause::Unexplained => "unexplained",
            Cause::Unjudged => "one run: not judged",
        }
    }
}

impl Excess {
    /// The excess as a fraction of the static run.
    pub fn excess(&self) -> f64 {
        self.run_s / self.static_s - 1.0
    }

    /// What is not explained by the named parts, s.
    pub fn rest_s(&self) -> f64 {
        self.run_s - self.static_s - self.exploration_s - self.off_choice_s - self.training_s - self.overhead_s
    }

    /// What the rest is, judged by the runs' spread.
    fn rest_cause(&self) -> Cause {
        if self.spread_s.is_nan() {
            Cause::Unjudged
        } else if self.rest_s().abs() <= self.spread_s {
            Cause::Noise
        } else {
            Cause::Unexplained
        }
    }

    /// The part that makes most of the excess.
    pub fn cause(&self) -> Cause {
        let rest = self.rest_s();
        let rest_cause = self.rest_cause();
        [
            (Cause::Exploration, self.exploration_s),
            (Cause::OffChoice, self.off_choice_s),
            (Cause::Training, self.training_s),
            (Cause::Overhead, self.overhead_s),
            (rest_cause, rest),
        ]
        .into_iter()
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
        .map_or(Cause::Unexplained, |(c, _)| c)
    }

    /// The explanation in words: each part in ms, the rest against the spread.
    pub fn why(&self) -> String {
        let ms = |s: f64| format!("{:.2} ms", s * 1e3);
        let mut parts = Vec::new();
        if self.exploring > 0 || self.drifts > 0 {
            let drift = if self.drifts > 0 { format!(", after {} drift(s)", self.drifts) } else { String::new() };
            parts.push(format!(
                "exploration {} ({} executions, {} of other variants{drift})",
                ms(self.exploration_s),
                self.exploring,
                self.exploring_other
            ));
        }
        if self.off_choice > 0 {
            parts.push(format!("off its choice {} ({} executions)", ms(self.off_choice_s), self.off_choice));
        }
        if self.training_s > 0.0 {
            parts.push(format!("training {}", ms(self.training_s)));
        }
        parts.push(format!("decision and timing ≤ {}", ms(self.overhead_s)));
        let rest = ms(self.rest_s());
        parts.push(match self.rest_cause() {
            Cause::Unjudged => format!("rest {rest} (one run of each: no spread to judge it by)"),
            Cause::Noise => format!("rest {rest} (within the runs' spread of {})", ms(self.spread_s)),
            _ => format!("rest {rest} (beyond the runs' spread of {}: unexplained)", ms(self.spread_s)),
        });
        parts.join("; ")
    }
}

/// Every adaptive comparator's input of `r` listed (more than [`LISTED`] slower than the
/// static run of its choice), explained.
pub fn explain(r: &KernelRun) -> Vec<Excess> {
    let mut out = Vec::new();
    for ((comparator, n), runs) in &r.adaptive {
        let Some(e) = explain_one(r, comparator, *n, runs) else { continue };
        if e.excess() > LISTED {
            out.push(e);
        }
    }
    out.sort_by(|a, b| (a.input, &a.comparator).cmp(&(b.input, &b.comparator)));
    out
}

/// The parts of one comparator's excess at input `n` (`None` when its choice has no static run).
fn explain_one(r: &KernelRun, comparator: &str, n: u64, runs: &[Output]) -> Option<Excess> {
    let o = runs.iter().min_by(|a, b| a.steady_s.partial_cmp(&b.steady_s).unwrap_or(std::cmp::Ordering::Equal))?;
    let combo = o.majority();
    let statics = r.combos.get(&(n, combo.clone()))?;
    let times: Vec<f64> = runs.iter().map(|o| o.steady_s).collect();
    // slowest - fastest; NaN for one run (f64::max of NaN and a width is the width)
    let width = |v: &[f64]| if v.len() < 2 { f64::NAN } else { v.iter().copied().fold(f64::MIN, f64::max) - fastest(v) };
    let firsts: Vec<f64> = runs.iter().map(|o| o.time_s - o.steady_s).collect();
    let mut e = Excess {
        kernel: r.kernel.name.to_owned(),
        input: n,
        comparator: comparator.to_owned(),
        chosen: combo.iter().map(|&v| r.variants[v].as_str()).collect::<Vec<_>>().join("+"),
        run_s: o.steady_s,
        static_s: fastest(statics),
        spread_s: width(statics).max(width(&times)),
        first_step_extra_s: fastest(&firsts) - r.static_first.get(&(n, combo.clone())).map_or(f64::NAN, |f| fastest(f)),
        ..Excess::default()
    };
    for (i, region) in r.kernel.regions.iter().enumerate() {
        add_region(&mut e, o, i, region, combo[i]);
    }
    Some(e)
}

/// Adds region `i`'s exploration, executions off its choice `c`, training and overhead.
fn add_region(e: &mut Excess, o: &Output, i: usize, region: &str, c: usize) {
    let Some(f) = o.report.as_ref().and_then(|rep| rep.region(region)) else { return };
    let Some((_, counts)) = o.decisions.get(i) else { return };
    let t = |v: usize| f.per_execution_ns.get(v).copied().filter(|x| x.is_finite());
    let extra = |v: usize| match (t(v), t(c)) {
        (Some(tv), Some(tc)) => (tv - tc) * 1e-9,
        _ => 0.0,
    };
    let (mut explored, mut explored_other, mut cost) = (0u64, 0u64, 0.0);
    for (v, (_, executions)) in counts.iter().enumerate() {
        let model = f.model_runs.get(v).copied().unwrap_or(0);
        let exploring = executions.saturating_sub(model);
        explored += exploring;
        if v != c {
            explored_other += exploring;
            cost += exploring as f64 * extra(v);
            e.off_choice += model;
            e.off_choice_s += model as f64 * extra(v);
        }
    }
    // the first execution (the first step, outside the measured part) explored when any did
    let in_measured_part = |x: f64| if explored > 0 { x * (explored - 1) as f64 / explored as f64 } else { x };
    e.exploration_s += in_measured_part(cost);
    e.exploring_other += in_measured_part(explored_other as f64).round() as u64;
    e.exploring += explored.saturating_sub(1);
    e.drifts += f.drifts;
    e.training_s += f.train_ns_in_run * (1 + f.retrains) as f64 * 1e-9;
    let model_executions = f.executions.saturating_sub(f.exploring);
    e.overhead_s += (model_executions as f64 * DECIDE_NS + (f.exploring + f.model_timed) as f64 * (TIMED_NS - DECIDE_NS)) * 1e-9;
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use ompadapt_rt::model::ModelChoice;

    use super::*;
    use crate::kernels;
    use crate::run_report::{RegionFacts, RunReport};

    const VARIANTS: [&str; 4] = ["serial", "threads=0.5", "threads=1", "schedule=dynamic,16"];

    /// An Online run of jacobi2d (one region) that ran mostly `serial`: 100 executions, 13 of
    /// them exploring (5 serial, 5 threads=1, 3 dynamic), 2 dynamic ones chosen by its model.
    fn online_run(steady_s: f64) -> Output {
        let counts = [("serial", 90), ("threads=0.5", 0), ("threads=1", 5), ("schedule=dynamic,16", 5)];
        let facts = RegionFacts {
            region: "jacobi".into(),
            executions: 100,
            exploring: 13,
            model_runs: vec![85, 0, 0, 2],
            model_timed: 7,
            per_execution_ns: vec![1000.0, f64::NAN, 3000.0, 2000.0],
            drifts: 1,
            retrains: 0,
            train_ns_in_run: 50_000.0,
            unavailable: Vec::new(),
        };
        Output {
            time_s: steady_s + 0.001,
            steady_s,
            decisions: vec![("jacobi".into(), counts.iter().map(|(v, c)| (v.to_string(), *c)).collect())],
            steps: 100,
            report: Some(RunReport { regions: vec![facts] }),
        }
    }

    #[test]
    fn an_online_runs_excess_is_split_into_its_parts() {
        let k = kernels::find("jacobi2d").unwrap();
        let mut r = KernelRun::new(k, vec![64], BTreeMap::new(), ModelChoice::Tree { max_depth: 2 }, 2);
        r.variants = VARIANTS.map(str::to_owned).to_vec();
        r.combos.insert((64, vec![0]), vec![0.100, 0.101]);
        r.static_first.insert((64, vec![0]), vec![0.0005, 0.0006]);
        r.adaptive.insert(("Online (roundrobin)".into(), 64), vec![online_run(0.1015), online_run(0.1040)]);
        let cases = explain(&r);
        assert_eq!(cases.len(), 1, "{cases:?}");
        let e = &cases[0];
        assert_eq!((e.chosen.as_str(), e.run_s, e.static_s), ("serial", 0.1015, 0.100));
        // exploring: threads=1 5 x 2 us + dynamic 3 x 1 us = 13 us over 13 executions, one of
        // them in the first step
        assert_eq!((e.exploring, e.exploring_other, e.drifts), (12, 7, 1));
        assert!((e.exploration_s - 13e-6 * 12.0 / 13.0).abs() < 1e-12, "{}", e.exploration_s);
        // the model's own 2 dynamic executions, 1 us more each
        assert_eq!(e.off_choice, 2);
        assert!((e.off_choice_s - 2e-6).abs() < 1e-12);
        assert!((e.training_s - 50e-6).abs() < 1e-12);
        // 87 decided x 22 ns, 13 exploring + 7 timed x 15 ns more
        assert!((e.overhead_s - (87.0 * 22.0 + 20.0 * 15.0) * 1e-9).abs() < 1e-12, "{}", e.overhead_s);
        // spread: the adaptive runs' 2.5 ms, wider than the static's 1 ms
        assert!((e.spread_s - 0.0025).abs() < 1e-9);
        assert!((e.first_step_extra_s - 0.0005).abs() < 1e-9);
        // 1.5 ms, of which the parts make 0.07 ms: the rest is within the 2.5 ms spread
        let parts = e.exploration_s + e.off_choice_s + e.training_s + e.overhead_s;
        assert!((e.rest_s() - (0.0015 - parts)).abs() < 1e-12);
        assert_eq!(e.cause(), Cause::Noise, "{}", e.why());
        assert!(e.why().contains("after 1 drift(s)") && e.why().contains("training 0.05 ms"), "{}", e.why());
        // the same run with a static spread too narrow to hide the rest
        let steady = Excess { spread_s: 0.0005, ..e.clone() };
        assert_eq!(steady.cause(), Cause::Unexplained, "{}", steady.why());
    }

    #[test]
    fn within_one_percent_is_not_listed() {
        let k = kernels::find("jacobi2d").unwrap();
        let mut r = KernelRun::new(k, vec![64], BTreeMap::new(), ModelChoice::Tree { max_depth: 2 }, 1);
        r.variants = VARIANTS.map(str::to_owned).to_vec();
        r.combos.insert((64, vec![0]), vec![0.100]);
        r.adaptive.insert(("Adaptive-100".into(), 64), vec![online_run(0.1009)]);
        assert!(explain(&r).is_empty());
        r.adaptive.insert(("Adaptive-100".into(), 64), vec![online_run(0.1030)]);
        let once = explain(&r);
        assert!(once[0].spread_s.is_nan(), "one run of each has no spread: {once:?}");
    }

    fn case(exploration_s: f64, rest_s: f64, spread_s: f64) -> Excess {
        Excess {
            run_s: 0.100 + exploration_s + rest_s,
            static_s: 0.100,
            exploring: 10,
            exploring_other: 6,
            exploration_s,
            spread_s,
            ..Excess::default()
        }
    }

    #[test]
    fn the_largest_part_is_the_cause_and_the_rest_is_judged_by_the_spread() {
        let explored = case(0.004, 0.0005, 0.001);
        assert_eq!(explored.cause(), Cause::Exploration);
        assert!((explored.excess() - 0.045).abs() < 1e-9);
        assert!(explored.why().contains("exploration 4.00 ms (10 executions, 6 of other variants)"), "{}", explored.why());
        assert!(explored.why().contains("within the runs' spread"), "{}", explored.why());
        let noisy = case(0.0, 0.003, 0.005);
        assert_eq!(noisy.cause(), Cause::Noise);
        let odd = case(0.0, 0.003, 0.001);
        assert_eq!(odd.cause(), Cause::Unexplained);
        assert!(odd.why().contains("unexplained"), "{}", odd.why());
        let once = case(0.0, 0.003, f64::NAN);
        assert_eq!(once.cause(), Cause::Unjudged);
        assert!(once.why().contains("no spread to judge it by"), "{}", once.why());
    }
}
