//! `roundrobin`: the wanted variants in turn (Apollo's `RoundRobin`, restricted to the wanted
//! ones), by a position that advances per execution; successive elimination measures its
//! survivors this way too.

/// The wanted variant at position `k` (`wanted` is not empty).
pub(super) fn pick(wanted: &[usize], k: u64) -> usize {
    wanted[(k % wanted.len() as u64) as usize]
}

#[cfg(test)]
mod tests {
    use crate::explore::tests::{explore, params};
    use crate::explore::Strategy;

    #[test]
    fn fixed_repeats_round_robin_order_and_decision() {
        let p = params(Strategy::RoundRobin, 2);
        let (label, n) = explore(&[30.0, 10.0, 20.0], &p, |_, _| 1.0);
        assert_eq!((label, n), (1, 6));
    }
}
