//! Controlled cost models: regions whose variants' times are known functions of the features,
//! for testing and benchmarking decision quality ([`crate::adaptive_k`]) without a machine's noise.
//!
//! Each [`Shape`] draws its own parameters from the seed (where it has any), so different seeds
//! give different crossovers; inputs are drawn from the seed too (sizes log-uniform, counts as
//! integers, categories uniform). [`Noise`] turns the true costs into what a run would store:
//! per execution a log-normal factor and, now and then, a preemption that multiplies the time;
//! the stored time of a pair is the median of its `repeats` executions (as the runtime's).
//!
//! The shapes (times in ns):
//! * [`Shape::CrossoverNk`] — serial, CPU-parallel and GPU variants over `(n, k)`: work `n·k`,
//!   fork/join and launch latencies, and a host-device transfer proportional to `n`, so the
//!   CPU/GPU crossover in `n` moves with `k` (fixed parameters);
//! * [`Shape::Linear1`], [`Shape::Linear3`] — affine costs with random latencies and slopes over
//!   1 feature, and over products of 3 features;
//! * [`Shape::Decades`] — `n` over 7 decades, variants `c·n²`, `L + c·n·log₂n`, `L + c·n`;
//! * [`Shape::CacheStep`] — a CPU variant whose per-element cost triples once its working set
//!   leaves a cache of random size, a blocked variant and a GPU variant;
//! * [`Shape::Categorical`] — `(n, layout)` with `layout ∈ {0,1,2,3}` scaling each variant's
//!   per-element cost by its own random factor;
//! * [`Shape::Threads`] — `(n, threads)`: static, dynamic and guided schedules with imbalance,
//!   per-chunk and per-thread overheads;
//! * [`Shape::Roofline`] — 4 variants, each `L + max(n·k·flop, n·byte)` with random latency,
//!   compute and memory costs.

use ompadapt_rt::model::rng::XorShift;
use ompadapt_rt::model::TrainingSet;

/// A controlled cost model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Serial, CPU-parallel and GPU variants over `(n, k)`.
    CrossoverNk,
    /// Affine costs over one feature.
    Linear1,
    /// Affine costs over products of three features.
    Linear3,
    /// `n` over seven decades: quadratic, `n log n` and linear variants.
    Decades,
    /// A CPU variant slowing down past a cache, a blocked variant and a GPU variant.
    CacheStep,
    /// A size and a categorical layout scaling each variant's cost.
    Categorical,
    /// Static, dynamic and guided schedules over `(n, threads)`.
    Threads,
    /// Four roofline variants: latency plus the larger of compute and memory time.
    Roofline,
}

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 8] = [
        Shape::CrossoverNk,
        Shape::Linear1,
        Shape::Linear3,
        Shape::Decades,
        Shape::CacheStep,
        Shape::Categorical,
        Shape::Threads,
        Shape::Roofline,
    ];

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Shape::CrossoverNk => "crossover-nk",
            Shape::Linear1 => "linear-1f",
            Shape::Linear3 => "linear-3f",
            Shape::Decades => "decades",
            Shape::CacheStep => "cache-step",
            Shape::Categorical => "categorical",
            Shape::Threads => "threads",
            Shape::Roofline => "roofline",
        }
    }
}

/// How stored times differ from the true costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// Standard deviation of the log of each execution's time factor (0.1 ≈ ±10 %).
    pub sigma: f64,
    /// Probability that an execution is preempted (its time × 1.5 to 4).
    pub outliers: f64,
    /// Executions per (input, variant); the stored time is their median.
    pub repeats: usize,
}

impl Noise {
    /// Exact times.
    pub const NONE: Noise = Noise { sigma: 0.0, outliers: 0.0, repeats: 1 };
    /// A loaded machine: ±10 % per execution, 5 % preempted, median of 5.
    pub const LOADED: Noise = Noise { sigma: 0.1, outliers: 0.05, repeats: 5 };
}

/// A generated region: stored (possibly noisy) times and the true costs of the same inputs.
#[derive(Clone, Debug)]
pub struct Synthetic {
    /// The shape generated.
    pub shape: Shape,
    /// What the runtime would have stored.
    pub measured: TrainingSet,
    /// The true costs.
    pub truth: TrainingSet,
}

fn uniform(r: &mut XorShift) -> f64 {
    (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn log_uniform(r: &mut XorShift, lo: f64, hi: f64) -> f64 {
    (lo.ln() + uniform(r) * (hi.ln() - lo.ln())).exp()
}

fn normal(r: &mut XorShift) -> f64 {
    // Box-Muller
    let u = uniform(r).max(1e-300);
    let v = uniform(r);
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

type Sampler = Box<dyn Fn(&mut XorShift) -> Vec<f64>>;
type CostFn = Box<dyn Fn(&[f64]) -> Vec<f64>>;

/// A shape with its parameters drawn: a feature sampler and a cost function.
struct Model {
    sample: Sampler,
    cost: CostFn,
}

/// `shape` with its parameters drawn from `r` (each shape draws its own, in its own order).
fn model(shape: Shape, r: &mut XorShift) -> Model {
    match shape {
        Shape::CrossoverNk => crossover_nk(),
        Shape::Linear1 => linear1(r),
        Shape::Linear3 => linear3(r),
        Shape::Decades => decades(r),
        Shape::CacheStep => cache_step(r),
        Shape::Categorical => categorical(r),
        Shape::Threads => threads(r),
        Shape::Roofline => roofline(r),
    }
}

/// Sizes drawn log-uniformly between `lo` and `hi`, rounded.
fn size(lo: f64, hi: f64) -> impl Fn(&mut XorShift) -> f64 {
    move |r: &mut XorShift| log_uniform(r, lo, hi).round()
}

/// Serial, CPU-parallel and GPU variants over `(n, k)` (fixed parameters).
fn crossover_nk() -> Model {
    let n = size(1e2, 1e6);
    let k = size(1.0, 128.0);
    Model {
        sample: Box::new(move |r| vec![n(r), k(r)]),
        cost: Box::new(|f| {
            let (n, k) = (f[0], f[1]);
            vec![100.0 + n * k, 5_000.0 + n * k / 12.0, 20_000.0 + 0.5 * n + n * k / 400.0]
        }),
    }
}

/// Affine costs over one feature.
fn linear1(r: &mut XorShift) -> Model {
    // latencies rise and slopes fall from variant to variant, so each one wins somewhere
    let mut lat = 100.0;
    let mut slope = log_uniform(r, 1.0, 10.0);
    let mut params = Vec::new();
    for _ in 0..3 {
        params.push((lat, slope));
        lat *= log_uniform(r, 5.0, 30.0);
        slope /= log_uniform(r, 5.0, 30.0);
    }
    let n = size(1e2, 1e7);
    Model { sample: Box::new(move |r| vec![n(r)]), cost: Box::new(move |f| params.iter().map(|(a, b)| a + b * f[0]).collect()) }
}

/// Affine costs over products of three features.
fn linear3(r: &mut XorShift) -> Model {
    let params: Vec<[f64; 4]> = (0..3)
        .map(|_| [log_uniform(r, 1e2, 1e5), log_uniform(r, 0.05, 2.0), log_uniform(r, 0.05, 2.0), log_uniform(r, 1.0, 100.0)])
        .collect();
    let (n, m, k) = (size(10.0, 3e3), size(10.0, 3e3), size(1.0, 100.0));
    Model {
        sample: Box::new(move |r| vec![n(r), m(r), k(r)]),
        cost: Box::new(move |f| params.iter().map(|p| p[0] + p[1] * f[0] * f[1] + p[2] * f[0] * f[2] + p[3] * f[1]).collect()),
    }
}

/// `n` over seven decades: `c·n²`, `L + c·n·log₂n`, `L + c·n`.
fn decades(r: &mut XorShift) -> Model {
    let c = [log_uniform(r, 0.001, 0.01), log_uniform(r, 0.2, 1.0), log_uniform(r, 1.0, 4.0)];
    let l = [0.0, log_uniform(r, 1e3, 1e4), log_uniform(r, 1e4, 1e5)];
    let n = size(10.0, 1e8);
    Model {
        sample: Box::new(move |r| vec![n(r)]),
        cost: Box::new(move |f| {
            let n = f[0];
            vec![l[0] + c[0] * n * n, l[1] + c[1] * n * n.log2(), l[2] + c[2] * n * 0.1]
        }),
    }
}

/// A CPU variant whose per-element cost triples past a cache, a blocked variant and a GPU variant.
fn cache_step(r: &mut XorShift) -> Model {
    let cache = log_uniform(r, 1e5, 1e6); // elements
    let per = log_uniform(r, 0.5, 1.0);
    let n = size(1e3, 1e7);
    Model {
        sample: Box::new(move |r| vec![n(r)]),
        cost: Box::new(move |f| {
            let n = f[0];
            let cpu = 2_000.0 + n * if n > cache { 3.0 * per } else { per };
            vec![cpu, 6_000.0 + 1.5 * per * n, 60_000.0 + 0.4 * n]
        }),
    }
}

/// A size and a layout scaling each variant's per-element cost.
fn categorical(r: &mut XorShift) -> Model {
    let factor: Vec<[f64; 4]> = (0..3).map(|_| [0; 4].map(|_| log_uniform(r, 0.3, 3.0))).collect();
    let base = [(500.0, 1.0), (8_000.0, 0.15), (40_000.0, 0.02)];
    let n = size(1e2, 1e7);
    Model {
        sample: Box::new(move |r| vec![n(r), r.below(4) as f64]),
        cost: Box::new(move |f| {
            let c = f[1] as usize;
            (0..3).map(|v| base[v].0 + base[v].1 * factor[v][c] * f[0]).collect()
        }),
    }
}

/// Static, dynamic and guided schedules over `(n, threads)`.
fn threads(r: &mut XorShift) -> Model {
    let imbalance = log_uniform(r, 1.1, 1.5);
    let chunk = log_uniform(r, 1.0, 5.0);
    let n = size(1e3, 1e7);
    Model {
        sample: Box::new(move |r| vec![n(r), (1u64 << r.below(7)) as f64]),
        cost: Box::new(move |f| {
            let (n, p) = (f[0], f[1]);
            let work = 2.0 * n / p;
            vec![
                500.0 + work * imbalance,
                500.0 + 300.0 * p + work * 1.02 + chunk * n / 16.0,
                500.0 + 800.0 * p + work * 1.05 + 40.0 * p * n.log2(),
            ]
        }),
    }
}

/// Four variants, each latency plus the larger of compute and memory time.
fn roofline(r: &mut XorShift) -> Model {
    let params: Vec<[f64; 3]> = (0..4).map(|_| [log_uniform(r, 1e2, 1e5), log_uniform(r, 1e-3, 1.0), log_uniform(r, 0.05, 5.0)]).collect();
    let (n, k) = (size(1e3, 1e7), size(1.0, 256.0));
    Model {
        sample: Box::new(move |r| vec![n(r), k(r)]),
        cost: Box::new(move |f| params.iter().map(|p| p[0] + (f[0] * f[1] * p[1]).max(f[0] * p[2])).collect()),
    }
}

/// Draws `inputs` distinct inputs of `shape` (parameters and inputs from `seed`) with their
/// true costs and their stored times under `noise`.
pub fn generate(shape: Shape, inputs: usize, noise: Noise, seed: u64) -> Synthetic {
    let mut r = XorShift::new(seed ^ 0x5eed_0000 ^ (shape as u64) << 40);
    let m = model(shape, &mut r);
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut tries = 0;
    while rows.len() < inputs && tries < inputs * 100 {
        tries += 1;
        let f = (m.sample)(&mut r);
        if !rows.contains(&f) {
            rows.push(f);
        }
    }
    let truth: Vec<Vec<f64>> = rows.iter().map(|f| (m.cost)(f)).collect();
    let measured: Vec<Vec<f64>> = truth
        .iter()
        .map(|ts| {
            ts.iter()
                .map(|&t| {
                    let mut xs: Vec<f64> = (0..noise.repeats.max(1))
                        .map(|_| {
                            let mut x = t * (noise.sigma * normal(&mut r)).exp();
                            if uniform(&mut r) < noise.outliers {
                                x *= 1.5 + 2.5 * uniform(&mut r);
                            }
                            x
                        })
                        .collect();
                    ompadapt_rt::stats::median_in_place(&mut xs).unwrap_or(t)
                })
                .collect()
        })
        .collect();
    let k = truth.first().map_or(1, Vec::len);
    Synthetic {
        shape,
        measured: TrainingSet::new(&rows, &measured, k).expect("synthetic costs are finite"),
        truth: TrainingSet::new(&rows, &truth, k).expect("synthetic costs are finite"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_has_crossovers() {
        for shape in Shape::ALL {
            for seed in 1..4 {
                let s = generate(shape, 40, Noise::NONE, seed);
                assert_eq!(s.truth.n(), 40, "{shape:?}");
                let mut wins = vec![0; s.truth.k];
                for &y in &s.truth.y {
                    wins[y as usize] += 1;
                }
                assert!(wins.iter().filter(|&&w| w > 0).count() >= 2, "{shape:?} seed {seed}: {wins:?}");
                assert_eq!(s.measured.y, s.truth.y, "no noise: same labels");
            }
        }
    }

    #[test]
    fn noise_is_seeded_and_bounded() {
        let a = generate(Shape::Linear1, 30, Noise::LOADED, 7);
        let b = generate(Shape::Linear1, 30, Noise::LOADED, 7);
        assert_eq!(a.measured, b.measured);
        let ratios: Vec<f64> = a.measured.t.iter().zip(&a.truth.t).map(|(m, t)| m / t).collect();
        assert!(ratios.iter().all(|r| (0.6..1.8).contains(r)), "{ratios:?}");
        assert!(ratios.iter().any(|r| (r - 1.0).abs() > 0.01));
    }
}
