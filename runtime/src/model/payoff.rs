//! Does adaptation pay? The decisions' time against always running the best single variant,
//! over the feature vectors where every variant was measured (the report and `ompadapt show`
//! both say it, from the same times the runtime labels with).

use serde::Serialize;

/// The decisions against the best single variant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Payoff {
    /// Feature vectors compared (every variant measured there).
    pub vectors: usize,
    /// The single variant with the least total time over them.
    pub single_variant: usize,
    /// Total time of the decided variants, ns (one execution per vector).
    pub decided_ns: f64,
    /// Total time of the single variant, ns.
    pub single_ns: f64,
    /// Mean over the vectors of `t(decided) / t(best) - 1`.
    pub decided_regret: f64,
    /// Mean over the vectors of `t(single) / t(best) - 1`.
    pub single_regret: f64,
}

impl Payoff {
    /// `single / decided - 1`: positive when the decisions are faster.
    pub fn gain(&self) -> f64 {
        self.single_ns / self.decided_ns - 1.0
    }

    /// One line: `over N vectors the decisions take X, always 'v' Y: Z % faster (mean regret ...)`.
    pub fn describe(&self, variant: &dyn Fn(usize) -> String, time: &dyn Fn(f64) -> String) -> String {
        let g = self.gain();
        let verdict = if g.abs() < 0.005 {
            "the same".to_owned()
        } else if g > 0.0 {
            format!("{:.1} % faster", g * 100.0)
        } else {
            format!("{:.1} % slower", (self.decided_ns / self.single_ns - 1.0) * 100.0)
        };
        format!(
            "over the {} vectors with every variant measured, the decisions take {} against {} always running '{}' (the best single variant): {verdict}; mean regret {:.1} % against {:.1} %",
            self.vectors,
            time(self.decided_ns),
            time(self.single_ns),
            variant(self.single_variant),
            self.decided_regret * 100.0,
            self.single_regret * 100.0
        )
    }
}

/// The payoff of `decisions[i]` on vectors whose per-variant times are `times[i]` (NaN: not
/// measured; such vectors are left out). None without a complete vector or with a decision
/// outside the variants.
pub fn payoff(times: &[Vec<f64>], decisions: &[usize]) -> Option<Payoff> {
    let rows: Vec<(&[f64], usize)> = times
        .iter()
        .zip(decisions)
        .filter(|(t, &d)| !t.is_empty() && d < t.len() && t.iter().all(|x| x.is_finite() && *x > 0.0))
        .map(|(t, &d)| (t.as_slice(), d))
        .collect();
    let k = rows.first()?.0.len();
    if rows.iter().any(|(t, _)| t.len() != k) {
        return None;
    }
    let total = |v: usize| rows.iter().map(|(t, _)| t[v]).sum::<f64>();
    let single = (0..k).min_by(|&a, &b| total(a).total_cmp(&total(b)))?;
    let regret = |t: &[f64], v: usize| t[v] / t.iter().copied().fold(f64::INFINITY, f64::min) - 1.0;
    let n = rows.len() as f64;
    Some(Payoff {
        vectors: rows.len(),
        single_variant: single,
        decided_ns: rows.iter().map(|(t, d)| t[*d]).sum(),
        single_ns: total(single),
        decided_regret: rows.iter().map(|(t, d)| regret(t, *d)).sum::<f64>() / n,
        single_regret: rows.iter().map(|(t, _)| regret(t, single)).sum::<f64>() / n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_against_the_best_single_variant() {
        // cpu wins small, gpu large; gpu is the best single variant in total
        let times = vec![vec![10.0, 100.0], vec![1000.0, 200.0], vec![5000.0, 400.0], vec![f64::NAN, 1.0]];
        let p = payoff(&times, &[0, 1, 1, 0]).unwrap();
        assert_eq!((p.vectors, p.single_variant), (3, 1));
        assert_eq!((p.decided_ns, p.single_ns), (610.0, 700.0));
        assert!((p.gain() - (700.0 / 610.0 - 1.0)).abs() < 1e-12);
        assert_eq!(p.decided_regret, 0.0);
        assert!((p.single_regret - 9.0 / 3.0).abs() < 1e-12);
        let bad = payoff(&times, &[1, 0, 0, 0]).unwrap();
        assert!(bad.gain() < 0.0);
        let text = bad.describe(&|v| ["cpu", "gpu"][v].to_owned(), &|t| format!("{t} ns"));
        assert!(text.contains("slower") && text.contains("'gpu'"), "{text}");
        assert_eq!(payoff(&[vec![f64::NAN, 1.0]], &[0]), None);
    }
}
