//! `roundrobin`: the wanted variants in turn (Apollo's `RoundRobin`, restricted to the wanted
//! ones), by a position that advances per execution; successive elimination measures its
//! survivors this way too.

/// The wanted variant at position `k` among those measured least (`wanted` is not empty;
/// `count(v)`: the vector's measurements of `v`). Least measured first, so that a process that
/// runs the region once, whose position is the same every run, still measures every wanted
/// variant in turn across runs.
pub(super) fn pick(wanted: &[usize], count: impl Fn(usize) -> u32, k: u64) -> usize {
    let least = wanted.iter().map(|&v| count(v)).min().unwrap_or(0);
    let fewest: Vec<usize> = wanted.iter().copied().filter(|&v| count(v) == least).collect();
    fewest[(k % fewest.len() as u64) as usize]
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
