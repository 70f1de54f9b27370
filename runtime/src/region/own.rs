//! The program's own variant, and when a trained region settles on it.
//!
//! A region rebuilt from an ordinary OpenMP construct has one variant that *is* the construct
//! as written: `gpu` for an offload (the `cpu` variant runs its host version), `threads=1` for
//! a host `parallel` region (the whole team it would have had). Leaving it is a bet that
//! another variant is faster; where the measurements cannot tell the difference from the
//! noise, the bet is a coin toss paid on every execution (and the other variant may carry
//! costs a measurement of the region alone does not see: the `cpu` variant's copies, a team
//! of another size for the code around it).
//!
//! So a trained region *settles on its own variant* when the measured benefit of its decisions
//! over that variant is inside the noise. Over the trained vectors where both were measured,
//! with `t` the robust times the labels were chosen by (the model's [`TimeModel`]) and σ the
//! region's measured timing noise (relative, of one measurement: the measurement table's, its
//! prior of 10 % until measured), the benefit `Δ = Σ t(own) − Σ t(label)` is inside the noise
//! when either
//! * `Δ < σ · Σ t(label)`: less than one measurement's noise on the whole (a run's time could
//!   not show it), or
//! * `Δ < K · σ · √Σ (t(own)² + t(label)²)`, summed over the vectors whose label is another
//!   variant: the difference is within `K` (the doubt test's 2.5, [`crate::explore::K`])
//!   standard deviations of what the measurements' noise makes of it.
//!
//! A settled region runs its own variant on every vector, measured or not, without evaluating
//! the model; vectors it goes on exploring (new recurring ones, drifts) are explored as
//! before, and the rule is judged again for each model trained. A region without such a
//! variant (explicit `variants(...)` lists, Apollo's policies), or whose own variant is
//! unavailable in this run, never settles.

use super::*;
use crate::drift::TimeModel;

/// The cached rule: `epoch << 8 | code` of the model it was judged for, `code` 0 for not
/// settled, else the own variant + 1; [`UNJUDGED`] before the first judgement.
pub(super) const UNJUDGED: u64 = u64::MAX;

/// The variant that runs the construct as written: `gpu` (an offload as written) or
/// `threads=1` (a host region's whole team), if the region has one.
pub fn own_variant(variants: &[String]) -> Option<usize> {
    variants.iter().position(|v| v == "gpu" || v == "threads=1")
}

/// The rule as the run that trained a model judged it, stored with the model
/// (`ModelRecord::own_variant`): a reader of the model decides as that run did, whatever noise
/// its own data would show (a run measures its noise from every repeat; a reader of the store
/// only from the warm times kept).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnJudgement {
    /// The model's decisions stand.
    Stands,
    /// Every vector runs this variant, the program's own.
    Settles(String),
}

/// The labels' measured benefit over always running the own variant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Benefit {
    /// Vectors compared (both times known).
    pub vectors: usize,
    /// `Σ t(own)`, ns.
    pub own_ns: f64,
    /// `Σ t(label)`, ns.
    pub label_ns: f64,
    /// `Σ (t(own)² + t(label)²)` over the vectors whose label is not the own variant, ns².
    pub spread: f64,
}

impl Benefit {
    /// `Σ t(own) / Σ t(label) − 1`.
    pub fn relative(&self) -> f64 {
        self.own_ns / self.label_ns - 1.0
    }

    /// Whether it is inside noise `sigma` (see the module documentation).
    pub fn inside(&self, sigma: f64) -> bool {
        let sigma = sigma.max(1e-3);
        let delta = self.own_ns - self.label_ns;
        delta < sigma * self.label_ns || delta < crate::explore::K * sigma * self.spread.sqrt()
    }
}

/// The benefit of `labels` over always running `own`, over the labelled vectors where both
/// times are known (None: no such vector).
pub fn measured_benefit(labels: &[(FeatureKey, usize)], time: &TimeModel, own: usize) -> Option<Benefit> {
    let mut b = Benefit::default();
    for (k, l) in labels {
        if let (Some(o), Some(t)) = (time.predict(k, own), time.predict(k, *l)) {
            b.vectors += 1;
            b.own_ns += o;
            b.label_ns += t;
            if *l != own {
                b.spread += o * o + t * t;
            }
        }
    }
    (b.vectors > 0 && b.label_ns > 0.0).then_some(b)
}

/// Whether a region whose labels and times are these, and whose noise is `sigma`, settles on
/// `own` (see the module documentation).
pub fn settles(labels: &[(FeatureKey, usize)], time: &TimeModel, own: usize, sigma: f64) -> bool {
    measured_benefit(labels, time, own).is_some_and(|b| b.inside(sigma))
}

impl Region {
    /// The variant `t` settles this region on (None: its decisions stand), judged once per
    /// model. Takes the region's lock the first time for a model: not to be called under it.
    #[inline]
    pub fn settled_on_own(&self, t: &Trained) -> Option<usize> {
        let c = self.own_rule.load(Relaxed);
        if c != UNJUDGED && c >> 8 == t.epoch {
            return (c & 0xff).checked_sub(1).map(|v| v as usize);
        }
        self.judge_own(t)
    }

    #[cold]
    #[inline(never)]
    fn judge_own(&self, t: &Trained) -> Option<usize> {
        let own = own_variant(&self.spec.variants).filter(|&o| o < 0xff && self.available(o) && self.judges_own(t));
        let own = own.filter(|&o| {
            let sigma = self.lock().measurements.sigma();
            settles(&t.labels, &t.time, o, sigma)
        });
        self.own_rule.store(t.epoch << 8 | own.map_or(0, |o| o as u64 + 1), Relaxed);
        own
    }

    /// Whether the rule applies to `t`: a model trained here or loaded, not a fixed variant
    /// (`Static`, a pin) or a constant a failed fit left.
    fn judges_own(&self, t: &Trained) -> bool {
        !matches!(t.origin, Origin::Fixed) && t.fallback.is_none() && !self.cycling.load(Relaxed)
    }

    /// The rule's judgement of `t`, to store with it (None: the rule does not apply: no own
    /// variant, or a model it does not judge). Takes the region's lock the first time for a
    /// model: not to be called under it.
    pub fn own_judgement(&self, t: &Trained) -> Option<OwnJudgement> {
        own_variant(&self.spec.variants)?;
        if !self.judges_own(t) {
            return None;
        }
        Some(match self.settled_on_own(t) {
            Some(v) => OwnJudgement::Settles(self.spec.variants[v].clone()),
            None => OwnJudgement::Stands,
        })
    }

    /// Takes the judgement stored with the model `t` was installed from, instead of judging it
    /// here; a variant that is not the region's own, or is unavailable in this run, leaves the
    /// judgement to this run (which then never settles on it).
    pub fn adopt_judgement(&self, t: &Trained, j: &OwnJudgement) {
        let code = match j {
            OwnJudgement::Stands => 0,
            OwnJudgement::Settles(name) => match own_variant(&self.spec.variants) {
                Some(o) if &self.spec.variants[o] == name && o < 0xff && self.available(o) => o as u64 + 1,
                _ => return,
            },
        };
        if self.judges_own(t) {
            self.own_rule.store(t.epoch << 8 | code, Relaxed);
        }
    }

    /// One line on the region's own variant deciding under `t` (None: the model decides).
    pub fn own_note(&self, t: &Trained) -> Option<String> {
        let own = self.settled_on_own(t)?;
        let name = &self.spec.variants[own];
        let sigma = self.lock().measurements.sigma();
        Some(match measured_benefit(&t.labels, &t.time, own) {
            Some(b) if b.own_ns > b.label_ns => format!(
                "every vector runs '{name}', the program's own variant: the decisions' measured benefit over it ({:.2} % over {} vectors) is inside the noise (σ {:.1} %)",
                b.relative() * 100.0,
                b.vectors,
                sigma * 100.0
            ),
            _ => format!("every vector runs '{name}', the program's own variant: it is the measured best wherever it was measured"),
        })
    }

    /// What decides `key` under `t`: the region's own variant where it settled on it, else
    /// the model (the variant it names, or its substitute where that is unavailable).
    pub fn decision(&self, key: &FeatureKey, t: &Trained) -> usize {
        let v = self.settled_on_own(t).unwrap_or_else(|| t.predict(key));
        self.usable(Some((key, t)), v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(x: f64) -> FeatureKey {
        FeatureKey::new(&[x])
    }

    /// Times of `cpu` (0) and `gpu` (1) on sizes 1..=n, and labels by the lower time.
    fn data(cpu: impl Fn(f64) -> f64, gpu: impl Fn(f64) -> f64, n: usize) -> (Vec<(FeatureKey, usize)>, TimeModel) {
        let mut times = Vec::new();
        let mut labels = Vec::new();
        for i in 1..=n {
            let x = i as f64 * 100.0;
            let (c, g) = (cpu(x), gpu(x));
            times.push((k(x), 0, c));
            times.push((k(x), 1, g));
            labels.push((k(x), usize::from(g < c)));
        }
        (labels, TimeModel::fit(&times, 2))
    }

    #[test]
    fn the_own_variant_is_the_construct_as_written() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(own_variant(&names(&["cpu", "gpu"])), Some(1));
        assert_eq!(own_variant(&names(&["serial", "threads=0.5", "threads=1"])), Some(2));
        assert_eq!(own_variant(&names(&["thread_limit=64", "thread_limit=128"])), None);
        assert_eq!(own_variant(&names(&["policy0", "policy1"])), None);
    }

    /// Controlled costs far apart: a benefit of 3× leaves the own variant at any noise; one of
    /// 2 % is inside a noise of 3 % but not of 1 % (where 10 vectors show it); where the labels
    /// are the own variant already the benefit is 0 and the region settles (unmeasured vectors
    /// run it too).
    #[test]
    fn settles_only_inside_the_noise() {
        let (labels, time) = data(|x| x, |x| 3.0 * x, 10);
        assert_eq!(measured_benefit(&labels, &time, 1).map(|b| (b.relative() * 100.0).round()), Some(200.0));
        assert!(!settles(&labels, &time, 1, 0.1), "3x faster: the decisions stand");
        let (labels, time) = data(|x| 0.98 * x, |x| x, 10);
        assert!(settles(&labels, &time, 1, 0.03), "2 % at 3 % noise: inside");
        assert!(!settles(&labels, &time, 1, 0.01), "2 % at 1 % noise, on 10 vectors: a benefit");
        let (labels, time) = data(|x| 2.0 * x, |x| x, 10);
        assert_eq!(measured_benefit(&labels, &time, 1).map(|b| b.relative()), Some(0.0));
        assert!(settles(&labels, &time, 1, 0.005));
        // a benefit on two small vectors, lost in the total
        let (labels, time) = data(|x| if x < 250.0 { 0.5 * x } else { x * 1.01 }, |x| x, 10);
        assert_eq!(labels.iter().filter(|l| l.1 == 0).count(), 2);
        assert!(settles(&labels, &time, 1, 0.05));
        // ... unless the noise is small enough to see it on the whole
        assert!(!settles(&labels, &time, 1, 0.01));
        // nothing measured of the own variant: no rule
        let only_cpu = TimeModel::fit(&[(k(1.0), 0, 1.0)], 2);
        assert_eq!(measured_benefit(&[(k(1.0), 0)], &only_cpu, 1), None);
        assert!(!settles(&[(k(1.0), 0)], &only_cpu, 1, 0.1));
    }

    /// A region with controlled costs (the start backdated by each variant's cost), trained on
    /// sizes 1000..=8000: the variants it runs afterwards, on the trained sizes and on new ones.
    fn trained_region(cost: impl Fn(f64, usize) -> f64) -> (Region, Vec<usize>) {
        let spec = crate::spec::parse("ompadapt1;model=sweep;features=trip_count(i);variants=cpu,gpu").unwrap().descriptor;
        let r = Region::builder().min_train(16).warmup(false).build(spec);
        // ±5 % of noise on every measurement (the region measures its σ from it)
        let rng = std::cell::RefCell::new(crate::stats::XorShift::new(7));
        let run = |n: f64| {
            let mut c = Ctx::zeroed();
            r.begin(&[n], &mut c);
            let v = c.variant as usize;
            let jitter = 1.0 + (rng.borrow_mut().below(1001) as f64 - 500.0) / 10_000.0;
            c.t0 = c.t0.with_time(clock::now().saturating_sub((cost(n, v) * jitter / clock::ns_per_tick()) as u64));
            r.end(&c);
            v
        };
        for n in (1..=8).map(|i| i as f64 * 1000.0) {
            while r.label(&[n]).is_none() {
                run(n);
            }
        }
        assert!(r.is_trained());
        let ran = [1000.0, 4000.0, 1500.0, 6500.0, 12000.0].into_iter().map(run).collect();
        (r, ran)
    }

    /// The rule in a region: `cpu` 1 % faster than `gpu` everywhere, measured with ±5 % of
    /// noise, runs `gpu`, the construct as written, on trained and new sizes alike, and the
    /// report says why; `cpu` three times faster runs `cpu`. Nothing is timed: the costs are
    /// set, far apart.
    #[test]
    fn a_region_settles_on_its_own_variant_only_inside_the_noise() {
        let (r, ran) = trained_region(|n, v| if v == 0 { 99.0 * n } else { 100.0 * n });
        assert_eq!(ran, vec![1; 5], "settled on gpu");
        assert_eq!(r.decide(&[3000.0]), Some(1));
        let t = r.trained().unwrap();
        assert_eq!(r.settled_on_own(&t), Some(1));
        assert!(r.own_note(&t).is_some_and(|n| n.contains("'gpu', the program's own variant")));
        let (r, ran) = trained_region(|n, v| if v == 0 { 30.0 * n } else { 100.0 * n });
        assert_eq!(ran, vec![0; 5], "3x: the decisions stand");
        assert_eq!(r.settled_on_own(&r.trained().unwrap()), None);
    }
}
