//! The clauses of `#pragma omp declare adaptation` (Liao et al. §4.1): `model(kind)`, repeated
//! `feature([range[lo:hi]][, min_sample_points(n)]: list)`, and either `model_name(id)` (a
//! primary region) or `use_model(id)` with `variant_mapping(list)` (an associated region).

use crate::brackets::Brackets;
use crate::clauses::{constant, region_name, reject_duplicates, required_args, scan_clauses, split_top_level, Feature, RawClause};
use crate::diag::{Diagnostic, Diags};
use crate::feature_clause::{parse_features, parse_model, ModelType};
use crate::limits::MAX_VARIANTS;
use crate::token::Tok;

/// The directive's name in messages.
pub const DECLARE: &str = "declare adaptation";
/// The clauses `declare adaptation` takes.
pub const DECLARE_CLAUSES: [&str; 5] = ["model", "feature", "model_name", "use_model", "variant_mapping"];

/// What the clauses of one `declare adaptation` say. Token indices refer to the directive's
/// tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclareClauses {
    /// `model(kind)`: the model family (no parameters).
    pub model: Option<ModelType>,
    /// The features of every `feature` clause, in order.
    pub features: Vec<Feature>,
    /// `model_name`: the region is a primary region with this name.
    pub model_name: Option<(String, usize)>,
    /// `use_model`: the region is associated with the primary region of this name.
    pub use_model: Option<(String, usize)>,
    /// `variant_mapping`: for each variant of this region, the primary's variant it runs with;
    /// with the token of each entry.
    pub mapping: Vec<(u32, usize)>,
    /// Token of the `variant_mapping` clause.
    pub mapping_at: Option<usize>,
}

impl DeclareClauses {
    /// The region follows another's model (`use_model`) rather than being a primary region.
    pub fn is_associated(&self) -> bool {
        self.use_model.is_some()
    }
}

/// Parses and checks the clauses after `declare adaptation` (`toks[start..]`).
pub fn parse(toks: &[Tok], start: usize, brackets: &Brackets, diags: &mut Diags) -> Option<DeclareClauses> {
    let raw = scan_clauses(toks, start, brackets, DECLARE, diags)?;
    if !all_known(&raw, diags) || !reject_duplicates(&raw, &["feature"], diags) {
        return None;
    }
    let out = read_clauses(toks, &raw, brackets, diags)?;
    let at = |name: &str| raw.iter().find(|c| c.name == name).map(|c| c.at);
    if !region_kind_is_clear(at("model_name"), at("use_model"), out.mapping_at, diags) {
        return None;
    }
    if let Some((primary, _)) = &out.use_model {
        for (name, at) in [("feature", at("feature")), ("model", out.model.as_ref().map(|m| m.at))] {
            if let Some(at) = at {
                diags.push(Diagnostic::error(
                    at,
                    at + 1,
                    format!("'{name}' cannot be given with 'use_model': this region follows the model of '{primary}'"),
                ));
                return None;
            }
        }
    } else if out.features.is_empty() {
        let end = start.max(2);
        diags.push(Diagnostic::error(0, end, format!("'{DECLARE}' requires a 'feature' clause")));
        return None;
    }
    Some(out)
}

/// Every clause is one of `DECLARE_CLAUSES` (else an error naming the closest).
fn all_known(raw: &[RawClause], diags: &mut Diags) -> bool {
    for c in raw {
        if !DECLARE_CLAUSES.contains(&c.name.as_str()) {
            let meant = match c.name.as_str() {
                "model_type" => Some("model"),
                name => crate::diag::closest(name, &DECLARE_CLAUSES),
            };
            let hint = meant.map_or(String::new(), |m| format!("; did you mean '{m}'?"));
            diags.push(Diagnostic::error(c.at, c.at + 1, format!("unknown clause '{}' in '{DECLARE}'{hint}", c.name)));
            diags.push(Diagnostic::note(c.at, c.at + 1, format!("'{DECLARE}' takes: {}", DECLARE_CLAUSES.join(", "))));
            return false;
        }
    }
    true
}

/// The arguments of each clause, checked one by one.
fn read_clauses(toks: &[Tok], raw: &[RawClause], brackets: &Brackets, diags: &mut Diags) -> Option<DeclareClauses> {
    let mut out = DeclareClauses::default();
    for c in raw {
        let args = required_args(c, diags)?;
        match c.name.as_str() {
            "model" => {
                let m = parse_model(toks, c, args, brackets, diags)?;
                // Liao et al.: `model(model_type_name)`; associated regions may create the
                // primary from its descriptor, which holds no run-time parameter.
                if let Some(p) = m.params.first() {
                    diags.push(Diagnostic::error(p.start, p.end.max(p.start + 1), "'model' takes the model type only"));
                    return None;
                }
                out.model = Some(m);
            }
            "feature" => {
                if !parse_features(toks, args, brackets, &mut out.features, diags) {
                    return None;
                }
                if let Some(a) = out.features.iter().find(|f| crate::clauses::is_auto_feature(toks, &f.expr)) {
                    let at = a.expr.start;
                    diags.push(Diagnostic::error(
                        at,
                        at + 1,
                        "'auto' features are for 'adaptation' regions: a 'declare adaptation' model is shared with associated regions that evaluate its features where they are, so its features are written out",
                    ));
                    return None;
                }
            }
            "model_name" => out.model_name = Some(region_name(toks, c, args, diags)?),
            "use_model" => out.use_model = Some(region_name(toks, c, args, diags)?),
            "variant_mapping" => {
                out.mapping_at = Some(c.at);
                out.mapping = mapping(toks, c.at, args, brackets, diags)?;
            }
            _ => unreachable!(),
        }
    }
    Some(out)
}

/// A region is either primary (its own model, maybe named) or associated (`use_model` with a
/// `variant_mapping`): an error for clauses that mix the two (given where each clause is).
fn region_kind_is_clear(model_name: Option<usize>, use_model: Option<usize>, mapping: Option<usize>, diags: &mut Diags) -> bool {
    match (model_name, use_model, mapping) {
        (Some(n), Some(u), _) => {
            let later = n.max(u);
            diags.push(Diagnostic::error(
                later,
                later + 1,
                "'model_name' and 'use_model' exclude each other: a region either has its own model or uses \
                 the model of a primary region",
            ));
            false
        }
        (_, None, Some(m)) => {
            diags.push(Diagnostic::error(m, m + 1, "'variant_mapping' is only valid with 'use_model'"));
            false
        }
        (_, Some(u), None) => {
            diags.push(Diagnostic::error(
                u,
                u + 1,
                "'use_model' requires a 'variant_mapping' clause: the primary's variant each variant of this region runs with",
            ));
            false
        }
        _ => true,
    }
}

/// `variant_mapping(2, 3)`: non-negative integer constants.
fn mapping(toks: &[Tok], at: usize, args: std::ops::Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Option<Vec<(u32, usize)>> {
    if args.is_empty() {
        diags.push(Diagnostic::error(at, args.end + 1, "'variant_mapping' needs at least one variant ID"));
        return None;
    }
    let items = split_top_level(toks, args, brackets);
    if items.len() > MAX_VARIANTS {
        let r = items[MAX_VARIANTS].clone();
        diags.push(Diagnostic::error(r.start, r.end.max(r.start + 1), format!("a region has at most {MAX_VARIANTS} variants")));
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let n = constant(toks, item.clone(), brackets, "a variant ID", diags)?;
        if n.is_float || n.value < 0.0 || n.value >= MAX_VARIANTS as f64 {
            diags.push(Diagnostic::error(
                item.start,
                item.end.max(item.start + 1),
                "a variant ID is an integer from 0 (the primary region's first variant)",
            ));
            return None;
        }
        out.push((n.value as u32, item.start));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clauses::ModelKind;
    use crate::token::lex;

    fn parse_src(src: &str) -> (Option<DeclareClauses>, Diags) {
        let t = lex(src);
        let mut d = Vec::new();
        let Some(b) = Brackets::new(&t, &mut d) else { return (None, d) };
        (parse(&t, 2, &b, &mut d), d)
    }

    #[test]
    fn declare_adaptation_as_in_the_papers_figures() {
        let (c, d) = parse_src("declare adaptation model(decision_tree) feature(nDiag)");
        assert!(d.is_empty(), "{d:?}");
        let c = c.unwrap();
        assert_eq!(c.model.as_ref().unwrap().kind, ModelKind::DecisionTree);
        assert_eq!(c.features.len(), 1);
        assert!(c.model_name.is_none() && !c.is_associated());
        let (c, d) = parse_src("declare adaptation model_name(\"scoring_loop\") model(decision_tree) feature(nDiag)");
        assert!(d.is_empty());
        assert_eq!(c.unwrap().model_name.unwrap().0, "scoring_loop");
        let (c, d) = parse_src("declare adaptation use_model(\"scoring_loop\") variant_mapping(2)");
        assert!(d.is_empty());
        let c = c.unwrap();
        assert_eq!(c.use_model.unwrap().0, "scoring_loop");
        assert_eq!(c.mapping, vec![(2, 8)]);
        let (c, d) = parse_src(
            "declare adaptation feature(range[0:30000], min_sample_points(25): N) feature(min_sample_points(10): M) model(random_forest)",
        );
        assert!(d.is_empty(), "{d:?}");
        let c = c.unwrap();
        assert_eq!(c.features.iter().map(|f| f.min_samples).collect::<Vec<_>>(), [Some(25), Some(10)]);
    }

    #[test]
    fn misuse() {
        for (src, msg, tok) in [
            ("declare adaptation model_name(a) use_model(b) variant_mapping(0)", "'model_name' and 'use_model' exclude each other: a region either has its own model or uses the model of a primary region", 6),
            ("declare adaptation feature(n) variant_mapping(1)", "'variant_mapping' is only valid with 'use_model'", 6),
            ("declare adaptation use_model(p)", "'use_model' requires a 'variant_mapping' clause: the primary's variant each variant of this region runs with", 2),
            ("declare adaptation use_model(p) variant_mapping(0) feature(n)", "'feature' cannot be given with 'use_model': this region follows the model of 'p'", 10),
            ("declare adaptation model(decision_tree)", "'declare adaptation' requires a 'feature' clause", 0),
            ("declare adaptation feature(n) model(support_vector_machine)", "model type 'support_vector_machine' is not supported by ompadapt; use 'dtree'/'decision_tree', 'rfc'/'random_forest', 'logistic'/'logistic_regression' or 'auto'", 8),
            ("declare adaptation use_model(p) variant_mapping(-1)", "a variant ID is an integer from 0 (the primary region's first variant)", 8),
            ("declare adaptation use_model(p) variant_mapping(x)", "a variant ID must be a numeric constant", 8),
            ("declare adaptation feature(n) features(m)", "unknown clause 'features' in 'declare adaptation'; did you mean 'feature'?", 6),
            ("declare adaptation feature(n) model(dtree) model(rfc)", "duplicate 'model' clause", 10),
            ("declare adaptation feature(n) model(random_forest, 10, 2)", "'model' takes the model type only", 10),
        ] {
            let (c, d) = parse_src(src);
            assert!(c.is_none(), "{src}");
            assert_eq!((d[0].message.as_str(), d[0].tok), (msg, tok), "{src}");
        }
    }
}
