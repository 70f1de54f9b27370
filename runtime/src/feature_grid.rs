//! Derived sizes on a grid. The trip counts and mapped bytes the pass derives
//! (`features(auto)`) change with every execution of a loop whose bounds depend on an
//! enclosing loop: a triangular solver's inner `parallel for` has a new trip count at each of
//! its thousands of steps. Kept exact, each value would be a feature vector of its own —
//! explored, stored and loaded on its own, though a neighbour 1 % larger already shows how it
//! runs — and the store would grow by every vector of every run. Above [`EXACT_UP_TO`] such
//! values are therefore rounded down to a logarithmic grid of [`STEPS_PER_OCTAVE`] points per
//! doubling (about 9 % apart, well inside the noise between two runs of a region), whose
//! points are whole numbers; powers of two are points. Features the user writes stay exact.

use ompadapt_abi::MAX_FEATURES;

/// Values up to this stay exact (loops this short differ by more than 9 % per iteration).
pub const EXACT_UP_TO: f64 = 32.0;
/// Grid points per doubling.
pub const STEPS_PER_OCTAVE: f64 = 8.0;

/// Whether a feature of this name is a size the pass derives: `trip_count(...)` or
/// `bytes_mapped`.
pub fn is_derived_size(name: &str) -> bool {
    let name = name.trim();
    name == "bytes_mapped" || (name.starts_with("trip_count(") && name.ends_with(')'))
}

/// The positions (bit i: feature i) among `names` whose values go on the grid.
pub fn derived_positions(names: &[String]) -> u32 {
    names.iter().take(MAX_FEATURES).enumerate().filter(|(_, n)| is_derived_size(n)).fold(0, |m, (i, _)| m | 1 << i)
}

/// How a value of feature `name` is shown: `~` before a derived size on the grid (the values it
/// stands for lie from it up to the next grid point, about 9 % above).
pub fn shown(name: &str, x: f64, plain: &dyn Fn(f64) -> String) -> String {
    if is_derived_size(name) && x.is_finite() && x.abs() > EXACT_UP_TO {
        format!("~{}", plain(x))
    } else {
        plain(x)
    }
}

/// `x` rounded down to the grid: the largest grid point ≤ x; exact up to [`EXACT_UP_TO`] and
/// for values that are not finite. Idempotent: a grid point maps to itself.
///
/// Every execution of a region with derived sizes asks this of each of them, so it is a table
/// lookup: the octave from the exponent's bits, then at most nine compares against the grid
/// points [`reference`] computes (the same values, [`POINTS`] of them; tested equal over every
/// whole number to 2^21 and random values up to 2^60). Beyond the table (≥ 2^53, where every
/// float is a whole number) it asks [`reference`].
#[inline]
pub fn on_grid(x: f64) -> f64 {
    let a = x.abs();
    if !(a > EXACT_UP_TO && a < TABLE_END) {
        return if a.is_finite() && a > EXACT_UP_TO { reference(x) } else { x };
    }
    let points = table();
    // 2^e ≤ a < 2^(e+1); the grid points of that octave are steps 8e .. 8e+7, and step 8e is
    // 2^e itself (a power of two is a point), so the search ends inside the octave
    let e = ((a.to_bits() >> 52) & 0x7ff) as usize - 1023;
    let mut k = 8 * e + 7 - FIRST_STEP;
    while points[k] > a {
        k -= 1;
    }
    points[k].max(EXACT_UP_TO.floor() + 1.0).min(a).copysign(x)
}

/// The first grid step in the table: 2^(40/8) = 32 = [`EXACT_UP_TO`].
const FIRST_STEP: usize = 40;
/// Grid points in the table: steps 40 ..= 431 (octaves 2^5 .. 2^53).
pub const POINTS: usize = 8 * 54 - FIRST_STEP;
/// Values from here on are left to [`reference`].
const TABLE_END: f64 = 9007199254740992.0; // 2^53

/// The grid points of steps [`FIRST_STEP`].. as [`reference`] computes them.
fn table() -> &'static [f64; POINTS] {
    static TABLE: std::sync::OnceLock<[f64; POINTS]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|i| point((i + FIRST_STEP) as f64)))
}

/// The grid point of step k, as a whole number: ceil(2^(k/8)) lies within the step, which is
/// wider than 1 above [`EXACT_UP_TO`].
fn point(k: f64) -> f64 {
    (2f64.powf(k / STEPS_PER_OCTAVE) - 1e-9).ceil()
}

/// [`on_grid`] computed from logarithms: the definition the table follows, and the answer
/// beyond it.
pub fn reference(x: f64) -> f64 {
    if !(x.is_finite() && x.abs() > EXACT_UP_TO) {
        return x;
    }
    let a = x.abs();
    let mut k = (a.log2() * STEPS_PER_OCTAVE).floor();
    // Rounding of log2 may put `a` one step off.
    if point(k) > a {
        k -= 1.0;
    } else if point(k + 1.0) <= a {
        k += 1.0;
    }
    point(k).max(EXACT_UP_TO.floor() + 1.0).min(a).copysign(x)
}

/// `features` with the positions of `mask` on the grid, in `buf` (or `features` itself when
/// `mask` is empty).
pub fn apply<'a>(mask: u32, features: &'a [f64], buf: &'a mut [f64; MAX_FEATURES]) -> &'a [f64] {
    if mask == 0 {
        return features;
    }
    let n = features.len().min(MAX_FEATURES);
    for (i, (b, &x)) in buf.iter_mut().zip(&features[..n]).enumerate() {
        *b = if mask & (1 << i) != 0 { on_grid(x) } else { x };
    }
    &buf[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounded_values_are_marked() {
        let plain = |x: f64| format!("{x}");
        assert_eq!(shown("trip_count(loop1)", on_grid(1003.0), &plain), "~940", "1003 lies on the step from 940");
        assert_eq!(shown("bytes_mapped", 4096.0, &plain), "~4096");
        assert_eq!(shown("trip_count(i)", 20.0, &plain), "20", "exact up to 32");
        assert_eq!(shown("n", 1003.0, &plain), "1003", "features the user writes stay exact");
    }

    #[test]
    fn small_values_and_powers_of_two_stay() {
        for x in [0.0, 1.0, 7.0, 32.0, -5.0, 64.0, 1024.0, 4096.0, 1048576.0, f64::NAN, f64::INFINITY] {
            let y = on_grid(x);
            assert!(y == x || (x.is_nan() && y.is_nan()), "{x} -> {y}");
        }
    }

    #[test]
    fn the_grid_is_whole_monotone_idempotent_and_about_nine_percent_wide() {
        let mut last = 0.0;
        let mut points = 0;
        for x in 33..2_000_000u64 {
            let x = x as f64;
            let y = on_grid(x);
            assert!(y <= x && y > 32.0 && y.fract() == 0.0, "{x} -> {y}");
            assert!(y >= last, "not monotone at {x}");
            assert_eq!(on_grid(y), y, "{x} -> {y} is not a grid point");
            assert!((x - y) / x < 0.095, "{x} -> {y}: more than a step below");
            if y != last {
                points += 1;
                last = y;
            }
        }
        // 33 .. 2^21: about 15 octaves of 8 points
        assert!((120..=130).contains(&points), "{points} grid points");
        assert_eq!(on_grid(-5000.0), -on_grid(5000.0));
    }

    /// The table gives what the logarithms give: every whole number to 2^21, values between
    /// them, and random values over the whole table (and beyond, where both are the reference).
    #[test]
    fn the_table_is_the_reference() {
        for x in 0..(1u64 << 21) {
            let x = x as f64;
            assert_eq!(on_grid(x).to_bits(), reference(x).to_bits(), "{x}");
            assert_eq!(on_grid(-x).to_bits(), reference(-x).to_bits(), "{}", -x);
            assert_eq!(on_grid(x + 0.5).to_bits(), reference(x + 0.5).to_bits(), "{}", x + 0.5);
        }
        let mut r = crate::stats::XorShift::new(44);
        for _ in 0..2_000_000 {
            let bits = r.below(61) as u32;
            let x = (r.below(1 << 30) as f64 / (1u64 << 30) as f64 + 1.0) * 2f64.powi(bits as i32);
            let x = if bits % 2 == 0 { x.floor() } else { x };
            assert_eq!(on_grid(x).to_bits(), reference(x).to_bits(), "{x}");
        }
        for i in 0..POINTS {
            let p = table()[i];
            assert_eq!(on_grid(p).to_bits(), reference(p).to_bits(), "grid point {p}");
            assert!(p <= 32.0 || on_grid(p) == p.max(33.0), "grid point {p}");
            assert_eq!(on_grid(p - 0.5).to_bits(), reference(p - 0.5).to_bits(), "below {p}");
        }
        for x in [32.5, 33.0, 2f64.powi(53) - 1.0, 2f64.powi(53), 2f64.powi(60), f64::MAX, f64::MIN_POSITIVE, -0.0] {
            assert_eq!(on_grid(x).to_bits(), reference(x).to_bits(), "{x}");
        }
    }

    #[test]
    fn only_derived_sizes_are_on_the_grid() {
        let names: Vec<String> = ["n", "trip_count(i)", "ops", "bytes_mapped", "trip_count(i,j)"].map(String::from).into();
        let mask = derived_positions(&names);
        assert_eq!(mask, 0b11010);
        let mut buf = [0.0; MAX_FEATURES];
        assert_eq!(apply(mask, &[5000.0, 5000.0, 5000.0, 100.0, 7.0], &mut buf), &[5000.0, on_grid(5000.0), 5000.0, on_grid(100.0), 7.0]);
        assert_eq!(apply(0, &[5000.0], &mut buf), &[5000.0]);
    }
}
