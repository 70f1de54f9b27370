//! `elimination`: successive elimination. Alive variants are measured in turn (as round-robin
//! does); from the second round on, a variant whose *fastest* measurement is slower than the
//! best variant's robust *slowest* one by more than the margin is dropped. Decided when one
//! variant is left or the survivors have the rounds' measurements each.

use super::view::VectorView;
use super::{Labeling, Params};

impl Params {
    /// Rounds successive elimination measures before it decides (adaptive: 3).
    pub(super) fn elimination_rounds(&self) -> u32 {
        if self.adaptive() {
            3
        } else {
            self.repeats
        }
    }
}

impl VectorView<'_> {
    /// The label once every survivor has its rounds, else wants them.
    pub(super) fn elimination_label(&mut self, p: &Params, cands: &[usize]) -> Result<usize, u32> {
        let r = p.elimination_rounds() as usize;
        let mut buf = Vec::new();
        for &v in cands {
            self.rec.estimate_samples(v, &mut buf);
            if buf.len() < r {
                self.counts[v].want = self.counts[v].want.max((r - buf.len()).min(255) as u8);
            }
        }
        if self.wants_any() {
            return Err(0);
        }
        self.rec.label_among(cands, p.labeling).ok_or(0)
    }

    /// Drops the variants clearly slower than the best (see the module documentation).
    pub(super) fn eliminate(&mut self, p: &Params) {
        let alive: Vec<usize> = (0..self.nv().min(64)).filter(|&v| self.rec.alive >> v & 1 == 1).collect();
        if self.nv() > 64 {
            return; // elimination tracks 64 candidates
        }
        // Needs two measurements of every survivor (one is never enough to rule out noise),
        // unless a single measurement is all the region asks for.
        let rounds = p.elimination_rounds().min(2) as usize;
        let mut buf = Vec::new();
        let mut series = Vec::with_capacity(alive.len());
        for &v in &alive {
            self.rec.estimate_samples(v, &mut buf);
            if buf.len() < rounds {
                return;
            }
            series.push(buf.clone());
        }
        if alive.len() < 2 {
            return;
        }
        let Some(best) = self.rec.label_among(&alive, Labeling::Median) else { return };
        let bi = alive.iter().position(|&v| v == best).unwrap_or(0);
        let bar = robust_slowest(&series[bi]) * (1.0 + p.margin);
        for (i, &v) in alive.iter().enumerate() {
            let fastest = series[i].iter().copied().fold(f64::INFINITY, f64::min);
            if v != best && fastest > bar {
                self.rec.alive &= !(1u64 << v);
                self.counts[v].want = 0;
            }
        }
    }
}

/// The largest value, ignoring the single largest once there are 3 (one preempted
/// measurement must not stop eliminations).
fn robust_slowest(times: &[f64]) -> f64 {
    let mut v = times.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::INFINITY,
        1 | 2 => v[v.len() - 1],
        n => v[n - 2],
    }
}

#[cfg(test)]
mod tests {
    use crate::explore::tests::{explore, params};
    use crate::explore::Strategy;

    #[test]
    fn elimination_needs_fewer_executions() {
        let costs = [40.0, 10.0, 25.0, 80.0];
        let rr = explore(&costs, &params(Strategy::RoundRobin, 5), |_, _| 1.0);
        let se = explore(&costs, &params(Strategy::Elimination, 5), |_, _| 1.0);
        assert_eq!(rr.0, 1);
        assert_eq!(se.0, 1);
        assert_eq!(rr.1, 20);
        assert_eq!(se.1, 8, "two rounds of 4, then one survivor");
    }
}
