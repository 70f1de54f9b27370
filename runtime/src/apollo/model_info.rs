//! Apollo's `model_info` string: `Name[,key=value]*`.
//!
//! | `model_info` | meaning here |
//! |---|---|
//! | `DecisionTree[,max_depth=N][,explore=S]` | explore with `S`, train a decision tree (depth `N`, default 2) |
//! | `RandomForest[,num_trees=T][,max_depth=N][,explore=S]` | the same with a random forest (default 10 trees of depth 2) |
//! | `LogisticRegression[,explore=S]` | ompadapt extension: multinomial logistic regression |
//! | `Static[,policy=N]` | always policy `N` (default 0) |
//! | `RoundRobin` | explore round-robin forever, never train |
//! | `Random` | pick a random policy every time, never train |
//!
//! `S` is `RoundRobin` or `Random` (Apollo's) or `Elimination` (ompadapt's sample-efficient
//! strategy). Names and keys are matched without regard to case. Apollo's `load`,
//! `load-dataset` keys are accepted and ignored (ompadapt loads a region's saved data itself);
//! any other key, a value that is not a number, or an unknown model name is reported in one
//! warning line and ignored (Apollo aborts the program). An unknown model name falls back to
//! `DecisionTree`.
//!
//! `explore=S` names the descriptor's exploration strategy ([`Explore`]; a handle's region gets
//! it as its `explore=` field), spelt as Apollo spells it ([`apollo_name`],
//! [`parse_apollo_explore`]).

use ompadapt_abi::descriptor::Explore;

/// How a handle's policies are picked (all through its region, see `apollo::hooks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Explore, train, let the model decide (`DecisionTree`, `RandomForest`,
    /// `LogisticRegression`), or explore forever (`RoundRobin`).
    Learn,
    /// Always this policy (`Static,policy=N`).
    Fixed(usize),
    /// A uniformly random policy every execution, never trained (`Random`).
    Random,
}

/// The model family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `DecisionTree`: explore, then train a decision tree.
    DecisionTree {
        /// `max_depth=` (None: the default, 2).
        max_depth: Option<usize>,
    },
    /// `RandomForest`: explore, then train a random forest.
    RandomForest {
        /// `num_trees=` (None: the default, 10).
        num_trees: Option<usize>,
        /// `max_depth=` of each tree (None: the default, 2).
        max_depth: Option<usize>,
    },
    /// `LogisticRegression` (an ompadapt extension): explore, then train multinomial logistic
    /// regression.
    LogisticRegression,
    /// `Static`: always run one policy.
    Static {
        /// `policy=`: the policy run (default 0).
        policy: i64,
    },
    /// `RoundRobin`: explore round-robin forever, never train.
    RoundRobin,
    /// `Random`: a random policy every time, never train.
    Random,
}


/// `explore`'s spelling in `model_info` (Apollo's case).
pub fn apollo_name(explore: Explore) -> &'static str {
    match explore {
        Explore::RoundRobin => "RoundRobin",
        Explore::Random => "Random",
        Explore::Elimination => "Elimination",
    }
}

/// The strategy an `explore=` value of `model_info` names: Apollo's names (and ompadapt's
/// `Elimination`) without regard to case, `-` or `_`. Narrower than the descriptor's
/// [`Explore::parse`], which also takes its abbreviations (`rr`, `se`): `model_info` accepts
/// what Apollo's does.
pub fn parse_apollo_explore(value: &str) -> Option<Explore> {
    match value.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
        "roundrobin" => Some(Explore::RoundRobin),
        "random" => Some(Explore::Random),
        "elimination" => Some(Explore::Elimination),
        _ => None,
    }
}

/// A parsed `model_info`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// The model named, with its parameters.
    pub kind: Kind,
    /// `explore=` (for the learning models), if given.
    pub explore: Option<Explore>,
    /// One line per thing ignored.
    pub warnings: Vec<String>,
}

impl ModelInfo {
    /// Whether this model learns (and therefore explores, then trains).
    pub fn learns(&self) -> bool {
        matches!(self.kind, Kind::DecisionTree { .. } | Kind::RandomForest { .. } | Kind::LogisticRegression)
    }

    /// Canonical text, e.g. `RandomForest,num_trees=10,max_depth=2` (for region identity and the
    /// report).
    pub fn canonical(&self) -> String {
        let mut s = match &self.kind {
            Kind::DecisionTree { max_depth } => opt("DecisionTree", &[("max_depth", max_depth.map(|v| v as i64))]),
            Kind::RandomForest { num_trees, max_depth } => {
                opt("RandomForest", &[("num_trees", num_trees.map(|v| v as i64)), ("max_depth", max_depth.map(|v| v as i64))])
            }
            Kind::LogisticRegression => "LogisticRegression".to_owned(),
            Kind::Static { policy } => format!("Static,policy={policy}"),
            Kind::RoundRobin => "RoundRobin".to_owned(),
            Kind::Random => "Random".to_owned(),
        };
        if let Some(e) = self.explore {
            s.push_str(&format!(",explore={}", apollo_name(e)));
        }
        s
    }
}

fn opt(name: &str, kv: &[(&str, Option<i64>)]) -> String {
    let mut s = name.to_owned();
    for (k, v) in kv {
        if let Some(v) = v {
            s.push_str(&format!(",{k}={v}"));
        }
    }
    s
}

/// Parses `text` (already defaulted when empty, see [`super::handle`]).
pub fn parse(text: &str) -> ModelInfo {
    let mut parts = text.split(',').map(str::trim);
    let name = parts.next().unwrap_or("");
    let mut warnings = Vec::new();
    let mut kind = match name.to_ascii_lowercase().as_str() {
        "decisiontree" => Kind::DecisionTree { max_depth: None },
        "randomforest" => Kind::RandomForest { num_trees: None, max_depth: None },
        "logisticregression" | "logistic" => Kind::LogisticRegression,
        "static" => Kind::Static { policy: 0 },
        "roundrobin" => Kind::RoundRobin,
        "random" => Kind::Random,
        _ => {
            warnings.push(format!("model '{name}' is not supported; using DecisionTree"));
            Kind::DecisionTree { max_depth: None }
        }
    };
    let mut explore = None;
    for kv in parts {
        if kv.is_empty() {
            continue;
        }
        let (k, v) = kv.split_once('=').map_or((kv, None), |(k, v)| (k.trim(), Some(v.trim())));
        let key = k.to_ascii_lowercase();
        let number = |v: Option<&str>, min: i64| -> Option<i64> { v.and_then(|v| v.parse::<i64>().ok()).filter(|&n| n >= min) };
        let mut bad = |what: &str| warnings.push(format!("'{kv}' ignored: {what}"));
        match (&mut kind, key.as_str()) {
            (_, "load" | "load-dataset") => {
                bad("ompadapt loads the region's saved data itself (OMPADAPT_DIR)");
            }
            (Kind::DecisionTree { .. } | Kind::RandomForest { .. } | Kind::LogisticRegression, "explore") => {
                match v.and_then(parse_apollo_explore) {
                    Some(e) => explore = Some(e),
                    None => bad("expected explore=RoundRobin, Random or Elimination"),
                }
            }
            (Kind::DecisionTree { max_depth } | Kind::RandomForest { max_depth, .. }, "max_depth") => match number(v, 1) {
                Some(n) => *max_depth = Some(n as usize),
                None => bad("max_depth needs a positive integer"),
            },
            (Kind::RandomForest { num_trees, .. }, "num_trees") => match number(v, 1) {
                Some(n) => *num_trees = Some(n as usize),
                None => bad("num_trees needs a positive integer"),
            },
            (Kind::Static { policy }, "policy") => match number(v, 0) {
                Some(n) => *policy = n,
                None => bad("policy needs a non-negative integer"),
            },
            _ => bad(&format!("not a parameter of {name}")),
        }
    }
    ModelInfo { kind, explore, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apollo_examples() {
        let m = parse("DecisionTree,max_depth=2,explore=RoundRobin");
        assert_eq!(m.kind, Kind::DecisionTree { max_depth: Some(2) });
        assert_eq!(m.explore, Some(Explore::RoundRobin));
        assert!(m.warnings.is_empty());
        assert!(m.learns());
        let m = parse("RandomForest,num_trees=10,max_depth=2");
        assert_eq!(m.kind, Kind::RandomForest { num_trees: Some(10), max_depth: Some(2) });
        assert_eq!(m.canonical(), "RandomForest,num_trees=10,max_depth=2");
        assert_eq!(parse("Static,policy=3").kind, Kind::Static { policy: 3 });
        assert_eq!(parse("Static").kind, Kind::Static { policy: 0 });
        assert_eq!(parse("RoundRobin").kind, Kind::RoundRobin);
        assert_eq!(parse("Random").kind, Kind::Random);
        assert!(!parse("Random").learns());
        assert_eq!(parse("DecisionTree,explore=Random").explore, Some(Explore::Random));
        assert_eq!(parse("DecisionTree").canonical(), "DecisionTree");
        assert_eq!(parse(" decisiontree , MAX_DEPTH = 3 ").kind, Kind::DecisionTree { max_depth: Some(3) });
        assert_eq!(parse("LogisticRegression,explore=elimination").explore, Some(Explore::Elimination));
    }

    #[test]
    fn explore_keeps_apollos_spellings() {
        for e in [Explore::RoundRobin, Explore::Random, Explore::Elimination] {
            let m = parse(&format!("DecisionTree,explore={}", apollo_name(e)));
            assert_eq!((m.explore, m.warnings.len()), (Some(e), 0));
            assert_eq!(m.canonical(), format!("DecisionTree,explore={}", apollo_name(e)));
        }
        assert_eq!(parse("DecisionTree,explore=round_robin").explore, Some(Explore::RoundRobin));
        // the descriptor's abbreviations are not Apollo's
        for v in ["rr", "se", "SuccessiveElimination"] {
            let m = parse(&format!("DecisionTree,explore={v}"));
            assert_eq!((m.explore, m.warnings.len()), (None, 1), "{v}");
        }
    }

    #[test]
    fn unknown_keys_warn_once_each_and_are_ignored() {
        let m = parse("DecisionTree,max_depth=2,colour=blue,load,max_depth=x");
        assert_eq!(m.kind, Kind::DecisionTree { max_depth: Some(2) });
        assert_eq!(m.warnings.len(), 3, "{:?}", m.warnings);
        assert!(m.warnings[0].contains("colour=blue"));
        let m = parse("Static,policy=-1,num_trees=3");
        assert_eq!(m.kind, Kind::Static { policy: 0 });
        assert_eq!(m.warnings.len(), 2);
        let m = parse("RoundRobin,explore=Random");
        assert_eq!((m.kind, m.explore), (Kind::RoundRobin, None));
        assert_eq!(m.warnings.len(), 1);
        let m = parse("PolicyNet,lr=0.1");
        assert_eq!(m.kind, Kind::DecisionTree { max_depth: None });
        assert_eq!(m.warnings.len(), 2);
        assert_eq!(parse("").kind, Kind::DecisionTree { max_depth: None });
    }
}
