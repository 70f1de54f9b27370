//! Exceptions: the training vectors a model gets wrong, answered from the measurements.
//!
//! A region's training set is one row per measured feature vector, labelled with the variant
//! measured fastest there. A model that mispredicts such a row would run a variant known to be
//! slower on an input seen before (Apollo's depth-2 tree does exactly that, Georgakoudis et al.'s
//! 4 features × 4 policies case). [`super::train`] therefore checks the fitted model on every
//! distinct training vector and keeps the ones it gets wrong, up to [`MAX_EXCEPTIONS`], in a
//! small table that inference checks first (exact match on the zero-padded features); every
//! other vector goes to the model. A model that fits its training set (the usual case for
//! trees) has no table and pays nothing; the report lists the exceptions.

use super::tree::fmt_number;
use super::Compiled;
use crate::ctx::MAX_FEATURES;

/// Most exceptions kept (each costs a 16-value comparison at inference).
pub const MAX_EXCEPTIONS: usize = 32;

/// One training vector and its measured best variant.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Exception {
    /// The zero-padded feature vector.
    pub x: [f64; MAX_FEATURES],
    /// Its number of features (for the report).
    pub len: usize,
    /// Its label.
    pub class: u32,
}

/// A model with exceptions.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Patched {
    /// The fitted model.
    pub model: Compiled,
    /// Training vectors the model mispredicts, with their labels.
    pub exceptions: Box<[Exception]>,
    /// Mispredicted training vectors beyond [`MAX_EXCEPTIONS`] (left to the model).
    pub unpatched: usize,
}

impl Patched {
    /// The exception's label if `x` is one, else the model's prediction.
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        for e in self.exceptions.iter() {
            if e.x == *x {
                return e.class as usize;
            }
        }
        self.model.predict(x)
    }

    /// The model, then the exceptions.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        let mut out = self.model.render(feature, class, indent);
        out.push_str(&format!("{pad}exceptions (trained-on vectors the model gets wrong, answered from the measurements):\n"));
        for e in self.exceptions.iter() {
            let fs: Vec<String> = (0..e.len).map(|j| format!("{}={}", feature(j), fmt_number(e.x[j]))).collect();
            out.push_str(&format!("{pad}  {} -> {}\n", fs.join(", "), class(e.class as usize)));
        }
        if self.unpatched > 0 {
            out.push_str(&format!("{pad}  ({} more left to the model)\n", self.unpatched));
        }
        out
    }
}
