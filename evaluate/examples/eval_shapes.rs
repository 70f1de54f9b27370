//! Prints the Adaptive-K table of every model on every controlled cost shape (several seeds).
//! `cargo run --release -p ompadapt-evaluate --example eval_shapes [shape] [seeds]`.
use ompadapt_evaluate::{
    self as evaluate,
    synthetic::{self, Noise, Shape},
    Method,
};
use ompadapt_rt::model::ModelChoice;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let only = args.get(1).cloned();
    let seeds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut models = vec![
        ModelChoice::Auto,
        ModelChoice::CostSelected,
        ModelChoice::Tree { max_depth: 2 },
        ModelChoice::Tree { max_depth: 4 },
        ModelChoice::Forest { trees: 10, max_depth: 4 },
        ModelChoice::LogisticRegression,
    ];
    models.extend(ompadapt_rt::model::select::candidates(ModelChoice::CostSelected));
    if std::env::var("ONLY_TREES").is_ok() {
        models =
            vec![ModelChoice::Tree { max_depth: 2 }, ModelChoice::Tree { max_depth: 4 }, ModelChoice::Forest { trees: 10, max_depth: 4 }];
    }
    if std::env::var("ONLY_AUTO").is_ok() {
        models.truncate(1);
    }
    let first_seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    for shape in Shape::ALL {
        if only.as_deref().is_some_and(|o| o != "all" && o != shape.name()) {
            continue;
        }
        for noise in [Noise::NONE, Noise::LOADED] {
            let mut agg: Vec<(String, f64, f64, f64)> = Vec::new();
            let mut chosen: std::collections::BTreeMap<String, usize> = Default::default();
            for seed in first_seed..first_seed + seeds {
                let s = synthetic::generate(shape, 40, noise, seed);
                let method = if std::env::var("ALL_FRACTIONS").is_ok() { Method::default() } else { Method::adaptive50() };
                let scores = evaluate::adaptive_k_against(&s.measured, &s.truth, &models, &method).unwrap();
                if std::env::var("ALL_FRACTIONS").is_ok() {
                    println!("{}", evaluate::table(&scores, 0.05));
                }
                for (m, c) in &scores[0].chosen {
                    *chosen.entry(m.clone()).or_default() += c;
                }
                for (i, sc) in scores.iter().enumerate() {
                    if agg.len() <= i {
                        agg.push((sc.model.clone(), 0.0, 0.0, 0.0));
                    }
                    agg[i].1 += sc.within / seeds as f64;
                    agg[i].2 += sc.mean_regret / seeds as f64;
                    agg[i].3 = agg[i].3.max(sc.worst_regret);
                }
            }
            println!("## {} noise={}", shape.name(), noise.sigma);
            println!("  auto chose: {chosen:?}");
            for (m, w, r, worst) in agg {
                println!("  {m:45} within {:5.1} %  mean {:6.2} %  worst {:7.1} %", w * 100.0, r * 100.0, worst * 100.0);
            }
        }
    }
}
