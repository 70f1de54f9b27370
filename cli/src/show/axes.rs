//! Which features the picture of `ompadapt show --svg` draws the decisions over.
//!
//! Only features that vary in the data are worth an axis: a compile-time constant (`ops`) is
//! one value in every measurement, and a feature that follows another (`bytes_mapped`, eight
//! times the trip count) puts every measurement on one line of the map, so that the map shows
//! the model's guesses off that line and nothing measured. So the horizontal axis is the
//! feature asked for (else the first that varies), the vertical one the first other feature
//! that varies apart from it; without one the decisions are a band along the horizontal axis,
//! and where no feature varies at all the picture says so instead of drawing. A feature that
//! follows an axis' feature moves along with it in the picture ([`Follower`]).

use ompadapt_plot::Span;

/// What the decision panel draws over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axes {
    /// Two features that vary apart from each other: a map over both (`x` horizontal).
    Map {
        /// The feature on the horizontal axis.
        x: usize,
        /// The feature on the vertical axis.
        y: usize,
    },
    /// One feature varies (the others are constant or follow it): a band along it.
    Band {
        /// The feature along the band.
        x: usize,
    },
    /// No feature varies: there is nothing to draw the decisions over.
    Constant {
        /// The feature on the times panel's horizontal axis.
        x: usize,
    },
}

impl Axes {
    /// The feature on the horizontal axis.
    pub fn x(&self) -> usize {
        match *self {
            Axes::Map { x, .. } | Axes::Band { x } | Axes::Constant { x } => x,
        }
    }

    /// The feature on the map's vertical axis (None: a band, or nothing).
    pub fn y(&self) -> Option<usize> {
        match *self {
            Axes::Map { y, .. } => Some(y),
            _ => None,
        }
    }

    /// `map`, `band` or `none`, for JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Axes::Map { .. } => "map",
            Axes::Band { .. } => "band",
            Axes::Constant { .. } => "none",
        }
    }
}

/// Whether the finite values of `column` take two values or more.
pub fn varies(column: &[f64]) -> bool {
    let mut finite = column.iter().filter(|v| v.is_finite());
    finite.next().is_some_and(|first| finite.any(|v| v != first))
}

/// Where a value lies on its axis: log10 where the picture's axis is logarithmic (positive
/// values over more than a decade, as `plot::Span` decides), else the value.
fn on_axis(column: &[f64]) -> Vec<f64> {
    let span = Span::of(column.iter().copied());
    column.iter().map(|&v| span.fwd(v)).collect()
}

/// Pearson's correlation of two equally long series (0 where either is constant).
fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len()) as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        ab += (x - ma) * (y - mb);
        aa += (x - ma) * (x - ma);
        bb += (y - mb) * (y - mb);
    }
    if aa <= 0.0 || bb <= 0.0 {
        0.0
    } else {
        ab / (aa * bb).sqrt()
    }
}

/// Whether `b` is a strictly monotone function of `a` over the measurements (and so `a` of
/// `b`): sorted by `a`, the distinct pairs have distinct `a`s and `b`s that only rise or only fall.
fn monotone_function(a: &[f64], b: &[f64]) -> bool {
    let mut pairs: Vec<(f64, f64)> = a.iter().copied().zip(b.iter().copied()).collect();
    pairs.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.1.total_cmp(&q.1)));
    pairs.dedup();
    let steps: Vec<(f64, f64)> = pairs.windows(2).map(|w| (w[1].0 - w[0].0, w[1].1 - w[0].1)).collect();
    steps.iter().all(|&(da, db)| da > 0.0 && db > 0.0) || steps.iter().all(|&(da, db)| da > 0.0 && db < 0.0)
}

/// Whether two features tell the same thing over the measurements, so that a map over both
/// would put every measurement on one line: one is a monotone function of the other, or they
/// are correlated to |r| >= 0.99 as the picture places them (log scale where it draws one).
/// Fewer than three distinct points always lie on a line.
pub fn collinear(a: &[f64], b: &[f64]) -> bool {
    let (a, b): (Vec<f64>, Vec<f64>) = a.iter().zip(b).filter(|(x, y)| x.is_finite() && y.is_finite()).map(|(x, y)| (*x, *y)).unzip();
    let mut distinct: Vec<(u64, u64)> = a.iter().zip(&b).map(|(x, y)| (x.to_bits(), y.to_bits())).collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() < 3 || monotone_function(&a, &b) || correlation(&on_axis(&a), &on_axis(&b)).abs() >= 0.99
}

/// The axes for the features' `columns` (each feature's values over the measured vectors):
/// horizontal the feature `asked` (else the first that varies), vertical the first other
/// varying feature not collinear with it. Asking for a feature that does not vary while
/// another does is an error, which names those that vary.
pub fn choose(columns: &[Vec<f64>], names: &[String], asked: Option<usize>) -> Result<Axes, String> {
    let varying: Vec<usize> = (0..columns.len()).filter(|&j| varies(&columns[j])).collect();
    let name = |j: usize| names.get(j).cloned().unwrap_or_else(|| format!("f{j}"));
    let x = match asked {
        Some(a) if !varying.is_empty() && !varying.contains(&a) => {
            let value = columns.get(a).and_then(|c| c.first()).map_or("—".to_owned(), |v| ompadapt_plot::si(*v));
            let those: Vec<String> = varying.iter().map(|&j| name(j)).collect();
            return Err(format!(
                "--axis {}: the feature is {value} in every measurement; the features that vary: {}",
                name(a),
                those.join(", ")
            ));
        }
        Some(a) => a,
        None => varying.first().copied().unwrap_or(0),
    };
    if !varying.contains(&x) {
        return Ok(Axes::Constant { x });
    }
    Ok(match varying.iter().copied().find(|&j| j != x && !collinear(&columns[x], &columns[j])) {
        Some(y) => Axes::Map { x, y },
        None => Axes::Band { x },
    })
}

/// A feature that follows one of the axes' features over the data (`bytes_mapped` along the
/// trip count): where the picture moves along that axis it moves along, so that the decisions
/// drawn are those of inputs like the measured ones (a model may have split on it instead of
/// on the axis' feature). Its value is interpolated between the measurements on the picture's
/// scales, and held beyond them.
#[derive(Clone, Debug)]
pub struct Follower {
    /// The feature that follows.
    pub feature: usize,
    /// The axis' feature it follows.
    pub leader: usize,
    scales: (Span, Span),
    /// (leader, feature) on their scales, by the leader, one point per leader value.
    points: Vec<(f64, f64)>,
}

impl Follower {
    fn new(leader: usize, leader_values: &[f64], feature: usize, values: &[f64]) -> Follower {
        let scales = (Span::of(leader_values.iter().copied()), Span::of(values.iter().copied()));
        let mut pairs: Vec<(f64, f64)> = leader_values
            .iter()
            .zip(values)
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .map(|(&a, &b)| (scales.0.fwd(a), scales.1.fwd(b)))
            .collect();
        pairs.sort_by(|p, q| p.0.total_cmp(&q.0));
        // one point per leader value: the mean of what the feature was there
        let mut points: Vec<(f64, f64)> = Vec::new();
        for group in pairs.chunk_by(|p, q| p.0 == q.0) {
            points.push((group[0].0, group.iter().map(|p| p.1).sum::<f64>() / group.len() as f64));
        }
        Follower { feature, leader, scales, points }
    }

    /// The feature's value where the leader is `at`.
    pub fn at(&self, at: f64) -> f64 {
        let u = self.scales.0.fwd(at);
        let i = self.points.partition_point(|p| p.0 < u);
        let v = match (i.checked_sub(1).and_then(|j| self.points.get(j)), self.points.get(i)) {
            (Some(a), Some(b)) => a.1 + (b.1 - a.1) * (u - a.0) / (b.0 - a.0),
            (Some(p), None) | (None, Some(p)) => p.1,
            (None, None) => 0.0,
        };
        self.scales.1.inv(v)
    }
}

/// The features other than the axes' that vary collinear with one of them (`collinear`), as
/// followers of it (of the horizontal one first).
pub fn followers(columns: &[Vec<f64>], axes: Axes) -> Vec<Follower> {
    let leaders: Vec<usize> =
        [Some(axes.x()), axes.y()].into_iter().flatten().filter(|&a| a < columns.len() && varies(&columns[a])).collect();
    let mut out = Vec::new();
    for k in (0..columns.len()).filter(|&k| !leaders.contains(&k) && varies(&columns[k])) {
        if let Some(&a) = leaders.iter().find(|&&a| collinear(&columns[a], &columns[k])) {
            out.push(Follower::new(a, &columns[a], k, &columns[k]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        ["n", "ops", "bytes_mapped", "m"].iter().take(n).map(|s| s.to_string()).collect()
    }

    /// The region: `n` varies, `ops` is a constant, `bytes_mapped` is 8 n + 64; a
    /// fourth feature `m` varies apart from `n`.
    fn columns(with_m: bool) -> Vec<Vec<f64>> {
        let n: Vec<f64> = (0..12).map(|i| 1000.0 * 2f64.powi(i)).collect();
        let ops = vec![12.0; 12];
        let bytes: Vec<f64> = n.iter().map(|n| 8.0 * n + 64.0).collect();
        let mut cols = vec![n, ops, bytes];
        if with_m {
            cols.push((0..12).map(|i| [3.0, 50.0, 700.0][i % 3]).collect());
        }
        cols
    }

    #[test]
    fn the_map_leaves_out_constants_and_features_that_follow_the_axis() {
        // n, a constant and a feature collinear with n: a band along n
        assert_eq!(choose(&columns(false), &names(3), None), Ok(Axes::Band { x: 0 }));
        // asking for the collinear one: a band along it (n follows it)
        assert_eq!(choose(&columns(false), &names(3), Some(2)), Ok(Axes::Band { x: 2 }));
        // with a feature that varies apart from n: the map over n and it, whatever comes between
        assert_eq!(choose(&columns(true), &names(4), None), Ok(Axes::Map { x: 0, y: 3 }));
        assert_eq!(choose(&columns(true), &names(4), Some(3)), Ok(Axes::Map { x: 3, y: 0 }));
        // the constant first: the horizontal axis is the first that varies
        let mut cols = columns(true);
        cols.swap(0, 1);
        assert_eq!(choose(&cols, &names(4), None), Ok(Axes::Map { x: 1, y: 3 }));
        // asking for the constant is an error that names the features that vary
        let e = choose(&columns(true), &names(4), Some(1)).unwrap_err();
        assert!(e.contains("--axis ops") && e.contains("12 in every measurement") && e.contains("n, bytes_mapped, m"), "{e}");
        // nothing varies: nothing to map
        assert_eq!(choose(&[vec![4096.0; 5], vec![12.0; 5]], &names(2), None), Ok(Axes::Constant { x: 0 }));
    }

    #[test]
    fn collinear_means_one_line_in_the_picture() {
        let n: Vec<f64> = (0..10).map(|i| 100.0 * 3f64.powi(i)).collect();
        // proportional, affine, a power, decreasing: one line (or curve) each
        for follows in
            [n.iter().map(|n| 8.0 * n).collect::<Vec<_>>(), n.iter().map(|n| n * n + 5.0).collect(), n.iter().map(|n| 1e9 / n).collect()]
        {
            assert!(collinear(&n, &follows), "{follows:?}");
        }
        // nearly proportional (±1 %, two measurements a size: not a function) on a log axis:
        // still one line
        let twice: Vec<f64> = n.iter().flat_map(|&n| [n, n]).collect();
        let noisy: Vec<f64> = twice.iter().enumerate().map(|(i, n)| 4.0 * n * if i % 2 == 0 { 1.01 } else { 0.99 }).collect();
        assert!(!monotone_function(&twice, &noisy) && collinear(&twice, &noisy));
        // a grid of two features: not collinear; nor a feature that cycles
        let (a, b): (Vec<f64>, Vec<f64>) = (0..16).map(|i| (10f64.powi(i / 4), 2f64.powi(i % 4))).unzip();
        assert!(!collinear(&a, &b));
        assert!(!collinear(&n, &(0..10).map(|i| [1.0, 7.0, 3.0][i % 3]).collect::<Vec<_>>()));
        // two distinct points lie on a line
        assert!(collinear(&[1.0, 2.0, 1.0], &[5.0, 3.0, 5.0]));
        assert!(!varies(&[3.0, 3.0, f64::NAN]) && varies(&[3.0, 4.0]));
    }

    #[test]
    fn a_feature_that_follows_the_axis_moves_along_it() {
        let cols = columns(true);
        let f = followers(&cols, Axes::Map { x: 0, y: 3 });
        // bytes_mapped follows n; ops (constant) and the axes' own features do not
        assert_eq!(f.iter().map(|f| (f.feature, f.leader)).collect::<Vec<_>>(), vec![(2, 0)]);
        // at a measured n, the measured bytes; between two, between them (log scale); held beyond
        let at = |n: f64| f[0].at(n);
        assert!((at(4000.0) - 32_064.0).abs() < 1e-6, "{}", at(4000.0));
        assert!(at(5000.0) > 32_064.0 && at(5000.0) < 64_064.0);
        assert!((at(1.0) - 8064.0).abs() < 1e-6 && (at(1e12) - cols[2][11]).abs() < 1e-3);
    }
}
