//! Which model a region trains: from the directive's `model_type(...)`, or overridden by the
//! environment (`OMPADAPT_MODEL`, for every region or per region — `dtree,3;mm:logistic` — read
//! by [`crate::config`] with [`ModelChoice::parse_override`]).

use super::cost_model::{CostForm, Family, MAX_PIECE_DEPTH};
use crate::spec::ModelType;

/// Default max depth of a decision tree (`model_type(dtree)` without a parameter).
pub const DEFAULT_TREE_DEPTH: usize = 2;
/// Default number of trees of a forest.
pub const DEFAULT_FOREST_TREES: usize = 10;
/// Default max depth of a forest's trees.
pub const DEFAULT_FOREST_DEPTH: usize = 2;
/// Largest accepted max depth (larger requests are clamped).
pub const MAX_DEPTH: usize = 32;
/// Largest accepted forest (larger requests are clamped).
pub const MAX_TREES: usize = 1000;

/// Which model to train, with its hyper-parameters resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    /// One decision tree.
    Tree {
        /// Most levels of splits.
        max_depth: usize,
    },
    /// A random forest: bagged trees on random feature subsets, majority vote.
    Forest {
        /// Number of trees.
        trees: usize,
        /// Most levels of splits of each tree.
        max_depth: usize,
    },
    /// Multinomial logistic regression on standardised (and, for size-like features,
    /// log-scaled) features (HPX smart executors, hpxML).
    LogisticRegression,
    /// A per-variant cost model of one form (see [`super::cost_model`]).
    Cost(CostForm),
    /// The cost model form with the lowest cross-validated regret.
    CostSelected,
    /// The model with the lowest cross-validated regret among cost models and classifiers
    /// (the default when the directive names no model type; see [`super::select`]).
    Auto,
    /// The measured table: every measured vector its measured best, any other vector the best
    /// single variant (least total time over the vectors with every variant measured). What
    /// `auto` falls back to where no model can tell the vectors apart (every feature constant)
    /// or none beats always running the best single variant on held-out vectors.
    Table,
}

impl ModelChoice {
    /// Resolves `model_type(kind, a, b)` with `params = [a, b]`; a parameter ≤ 0 (the plugin
    /// passes -1 when it is absent) takes the default.
    pub fn resolve(kind: ModelType, params: [i64; 2]) -> ModelChoice {
        let [p1, p2] = params;
        let pick = |p: i64, default: usize, max: usize| {
            if p > 0 {
                (p as usize).min(max)
            } else {
                default
            }
        };
        match kind {
            ModelType::DecisionTree => ModelChoice::Tree { max_depth: pick(p1, DEFAULT_TREE_DEPTH, MAX_DEPTH) },
            ModelType::RandomForest => ModelChoice::Forest {
                trees: pick(p1, DEFAULT_FOREST_TREES, MAX_TREES),
                max_depth: pick(p2, DEFAULT_FOREST_DEPTH, MAX_DEPTH),
            },
            ModelType::Logistic => ModelChoice::LogisticRegression,
            ModelType::Auto => ModelChoice::Auto,
        }
    }

    /// Parses one override (an `OMPADAPT_MODEL` entry):
    /// `auto`, `cost[,additive|linear|loglinear|logquadratic[,piecewise depth]]`, `dtree[,depth]`,
    /// `rfc[,trees[,depth]]` or `logistic`. Apollo's spellings
    /// `DecisionTree`, `RandomForest` and `LogisticRegression` (any case) are accepted too.
    pub fn parse_override(s: &str) -> Result<ModelChoice, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let num = |i: usize| -> Result<i64, String> {
            match parts.get(i) {
                None => Ok(-1),
                Some(p) => match p.parse::<i64>() {
                    Ok(v) if v > 0 => Ok(v),
                    _ => Err(format!("'{p}' is not a positive integer")),
                },
            }
        };
        let too_many = |max: usize| if parts.len() > max { Err("too many parameters".to_owned()) } else { Ok(()) };
        match parts[0].to_ascii_lowercase().as_str() {
            "dtree" | "decisiontree" => {
                too_many(2)?;
                Ok(ModelChoice::resolve(ModelType::DecisionTree, [num(1)?, -1]))
            }
            "rfc" | "randomforest" => {
                too_many(3)?;
                Ok(ModelChoice::resolve(ModelType::RandomForest, [num(1)?, num(2)?]))
            }
            "logistic" | "logisticregression" => {
                too_many(1)?;
                Ok(ModelChoice::LogisticRegression)
            }
            "auto" => {
                too_many(1)?;
                Ok(ModelChoice::Auto)
            }
            "cost" => {
                too_many(3)?;
                let Some(f) = parts.get(1) else { return Ok(ModelChoice::CostSelected) };
                let family = Family::parse(f)
                    .ok_or_else(|| format!("unknown cost model '{f}' (expected additive, linear, loglinear or logquadratic)"))?;
                let depth = match parts.get(2) {
                    None => 0,
                    Some(d) => match d.parse::<u8>() {
                        Ok(d) if d <= MAX_PIECE_DEPTH => d,
                        _ => return Err(format!("piecewise depth '{d}' is not 0 to {MAX_PIECE_DEPTH}")),
                    },
                };
                Ok(ModelChoice::Cost(CostForm::new(family, depth)))
            }
            k => Err(format!(
                "unknown model '{k}' (expected auto, cost[,family[,depth]], dtree[,depth], \
                 rfc[,trees[,depth]] or logistic)"
            )),
        }
    }

    /// The choice a description names ([`ModelChoice::describe`], what a stored model records
    /// as its kind), so that a frozen run and `ompadapt show` refit what was trained. `None` for
    /// descriptions this version does not know.
    pub fn from_description(kind: &str) -> Option<ModelChoice> {
        let nums = |s: &str| -> Vec<usize> {
            s.split(|c: char| !c.is_ascii_digit()).filter(|t| !t.is_empty()).filter_map(|t| t.parse().ok()).collect()
        };
        if kind.starts_with("decision tree") {
            return nums(kind).first().map(|&d| ModelChoice::Tree { max_depth: d });
        }
        if kind.starts_with("random forest") {
            let n = nums(kind);
            return (n.len() == 2).then(|| ModelChoice::Forest { trees: n[0], max_depth: n[1] });
        }
        let fixed = [ModelChoice::LogisticRegression, ModelChoice::Auto, ModelChoice::CostSelected, ModelChoice::Table];
        if let Some(c) = fixed.into_iter().find(|c| c.describe() == kind) {
            return Some(c);
        }
        // cost forms: every family, per category or not, every piecewise depth
        for family in Family::ALL {
            for depth in 0..=MAX_PIECE_DEPTH {
                for by_category in [false, true] {
                    let form = CostForm { family, depth, by_category };
                    if form.describe() == kind {
                        return Some(ModelChoice::Cost(form));
                    }
                }
            }
        }
        None
    }

    /// Human-readable description, e.g. `decision tree (max depth 2)`.
    pub fn describe(&self) -> String {
        match self {
            ModelChoice::Tree { max_depth } => format!("decision tree (max depth {max_depth})"),
            ModelChoice::Forest { trees, max_depth } => {
                format!("random forest ({trees} trees, max depth {max_depth})")
            }
            ModelChoice::LogisticRegression => "multinomial logistic regression".to_owned(),
            ModelChoice::Cost(f) => f.describe(),
            ModelChoice::CostSelected => "cost model, form chosen by cross-validated regret".to_owned(),
            ModelChoice::Auto => "automatic choice by cross-validated regret".to_owned(),
            ModelChoice::Table => "measured table (each measured vector its best variant, others the best single variant)".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_defaults() {
        assert_eq!(ModelChoice::resolve(ModelType::DecisionTree, [-1, -1]), ModelChoice::Tree { max_depth: 2 });
        assert_eq!(ModelChoice::resolve(ModelType::DecisionTree, [4, -1]), ModelChoice::Tree { max_depth: 4 });
        assert_eq!(ModelChoice::resolve(ModelType::DecisionTree, [400, -1]), ModelChoice::Tree { max_depth: MAX_DEPTH });
        assert_eq!(ModelChoice::resolve(ModelType::RandomForest, [-1, -1]), ModelChoice::Forest { trees: 10, max_depth: 2 });
    }

    #[test]
    fn overrides_parse() {
        assert_eq!(ModelChoice::parse_override("rfc,3").unwrap(), ModelChoice::Forest { trees: 3, max_depth: 2 });
        assert_eq!(ModelChoice::parse_override("dtree").unwrap(), ModelChoice::Tree { max_depth: 2 });
        assert_eq!(ModelChoice::parse_override(" logistic ").unwrap(), ModelChoice::LogisticRegression);
        assert_eq!(ModelChoice::parse_override("LogisticRegression").unwrap(), ModelChoice::LogisticRegression);
        assert_eq!(ModelChoice::parse_override("RandomForest,20,3").unwrap(), ModelChoice::Forest { trees: 20, max_depth: 3 });
        assert!(ModelChoice::parse_override("dtree,1,2").is_err());
        assert!(ModelChoice::parse_override("dtree,0").is_err());
        assert!(ModelChoice::parse_override("logistic,1").is_err());
        assert!(ModelChoice::parse_override("svm").unwrap_err().contains("logistic"));
        assert_eq!(ModelChoice::parse_override("auto").unwrap(), ModelChoice::Auto);
        assert_eq!(ModelChoice::parse_override("cost").unwrap(), ModelChoice::CostSelected);
        assert_eq!(ModelChoice::parse_override("cost,LogLinear,2").unwrap(), ModelChoice::Cost(CostForm::new(Family::LogLinear, 2)));
        assert!(ModelChoice::parse_override("cost,spline").is_err());
        assert!(ModelChoice::parse_override("cost,additive,9").is_err());
    }

    #[test]
    fn descriptions_name_their_choice() {
        let mut forms = vec![
            ModelChoice::Tree { max_depth: 3 },
            ModelChoice::Forest { trees: 10, max_depth: 4 },
            ModelChoice::LogisticRegression,
            ModelChoice::Auto,
            ModelChoice::CostSelected,
            ModelChoice::Table,
        ];
        for family in Family::ALL {
            forms.push(ModelChoice::Cost(CostForm { family, depth: 2, by_category: true }));
            forms.push(ModelChoice::Cost(CostForm::new(family, 0)));
        }
        for c in forms {
            assert_eq!(ModelChoice::from_description(&c.describe()), Some(c), "{}", c.describe());
        }
        assert_eq!(ModelChoice::from_description("a neural network"), None);
    }
}
