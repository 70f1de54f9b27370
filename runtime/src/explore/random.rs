//! `random`: a uniformly random wanted variant (Apollo's `Random`).

use crate::stats::XorShift;

/// A wanted variant drawn uniformly (`wanted` is not empty).
pub(super) fn pick(wanted: &[usize], rng: &mut XorShift) -> usize {
    wanted[rng.below(wanted.len())]
}

#[cfg(test)]
mod tests {
    use crate::explore::tests::{explore, params};
    use crate::explore::Strategy;

    /// Random order still measures every variant as the repeats ask, and finds the fastest.
    #[test]
    fn random_order_measures_every_variant_and_decides() {
        let (label, n) = explore(&[30.0, 10.0, 20.0], &params(Strategy::Random, 2), |_, _| 1.0);
        assert_eq!((label, n), (1, 6));
    }
}
