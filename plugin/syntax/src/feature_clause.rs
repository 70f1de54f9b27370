//! Arguments of the feature clauses, `features(list)` (Georgakoudis et al.) and Liao et al.'s
//! `feature([range[lo:hi]][, min_sample_points(n)]: list)`, and of the model clauses,
//! `model_type(dtree[, depth] | rfc[, trees, depth] | logistic)` and `model(decision_tree | ...)`.

use crate::brackets::Brackets;
use crate::clauses::{constant, feature_list, model_kind_named, split_top_level, try_constant, Feature, ModelKind, RawClause};
use crate::diag::{Diagnostic, Diags};
use crate::token::{Tok, TokKind};
use std::ops::Range;

/// Parses a feature clause's arguments into `out`; false after an error.
pub fn parse_features(toks: &[Tok], args: Range<usize>, brackets: &Brackets, out: &mut Vec<Feature>, diags: &mut Diags) -> bool {
    let (modifiers, list) = match modifiers(toks, args.clone(), brackets, diags) {
        Ok(Some((m, list_start))) => (m, list_start..args.end),
        Ok(None) => ((None, None), args),
        Err(()) => return false,
    };
    if list.is_empty() {
        diags.push(Diagnostic::error(list.start, list.start, "expected a feature expression"));
        return false;
    }
    feature_list(toks, list, brackets, modifiers, out, diags)
}

type Modifiers = (Option<(f64, f64)>, Option<u64>);

/// `range[lo:hi], min_sample_points(n) :` at the start of `args`, if the clause has modifiers:
/// the modifiers and where the list starts.
fn modifiers(toks: &[Tok], args: Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Result<Option<(Modifiers, usize)>, ()> {
    let starts_modifier = |i: usize| {
        let next = |p: &str| i + 1 < args.end && toks[i + 1].is_punct(p);
        i < args.end && (toks[i].is_ident("range") && next("[") || toks[i].is_ident("min_sample_points") && next("("))
    };
    if !starts_modifier(args.start) {
        return Ok(None);
    }
    let mut range = None;
    let mut min_samples = None;
    let mut i = args.start;
    loop {
        if !starts_modifier(i) {
            diags.push(Diagnostic::error(i, i + 1, "expected 'range[lo:hi]' or 'min_sample_points(n)' before ':'"));
            return Err(());
        }
        let open = i + 1;
        let close = brackets.close_of(open).ok_or(())?;
        if toks[i].text == "range" {
            if range.is_some() {
                diags.push(Diagnostic::error(i, i + 1, "duplicate 'range' modifier"));
                return Err(());
            }
            range = Some(range_bounds(toks, i, open + 1..close, brackets, diags).ok_or(())?);
        } else {
            if min_samples.is_some() {
                diags.push(Diagnostic::error(i, i + 1, "duplicate 'min_sample_points' modifier"));
                return Err(());
            }
            let n = constant(toks, open + 1..close, brackets, "'min_sample_points'", diags).ok_or(())?;
            if n.is_float || n.value < 1.0 || n.value > 1e9 {
                diags.push(Diagnostic::error(open + 1, close.max(open + 2), "'min_sample_points' takes a positive integer"));
                return Err(());
            }
            min_samples = Some(n.value as u64);
        }
        i = close + 1;
        match toks.get(i).filter(|_| i < args.end) {
            Some(t) if t.is_punct(",") => i += 1,
            Some(t) if t.is_punct(":") => return Ok(Some(((range, min_samples), i + 1))),
            _ => {
                diags.push(Diagnostic::error(i, i + 1, "expected ':' between the modifiers and the feature list"));
                return Err(());
            }
        }
    }
}

/// `lo:hi` of `range[lo:hi]`, inclusive, constants, lo <= hi.
fn range_bounds(toks: &[Tok], at: usize, inner: Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Option<(f64, f64)> {
    let parts = brackets.split_top_level(toks, inner.clone(), ":");
    if parts.len() != 2 {
        diags.push(Diagnostic::error(at, inner.end + 1, "a feature range is written range[lower:upper]"));
        return None;
    }
    let lo = constant(toks, parts[0].clone(), brackets, "a range's lower bound", diags)?;
    let hi = constant(toks, parts[1].clone(), brackets, "a range's upper bound", diags)?;
    if hi.value < lo.value {
        diags.push(Diagnostic::error(at, inner.end + 1, "the range's upper bound is smaller than its lower bound"));
        return None;
    }
    Some((lo.value, hi.value))
}

/// A model kind with its parameters (token ranges of integer expressions).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelType {
    /// The model family.
    pub kind: ModelKind,
    /// The parameters after the kind: `rfc` takes the number of trees and the maximum depth, or
    /// neither; `dtree` at most the maximum depth.
    pub params: Vec<Range<usize>>,
    /// The clause's name token.
    pub at: usize,
}

/// `model_type(...)` / `model(...)`: a kind and its parameters.
pub fn parse_model(toks: &[Tok], c: &RawClause, args: Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Option<ModelType> {
    const EXPECTED: &str = "'dtree'/'decision_tree', 'rfc'/'random_forest', 'logistic'/'logistic_regression' or 'auto'";
    let items = split_top_level(toks, args.clone(), brackets);
    let kind_item = items[0].clone();
    if kind_item.len() != 1 || toks[kind_item.start].kind != TokKind::Ident {
        let r = if kind_item.is_empty() { c.whole() } else { kind_item };
        diags.push(Diagnostic::error(r.start, r.end, format!("expected a model type: {EXPECTED}")));
        return None;
    }
    let name = toks[kind_item.start].text.as_str();
    let Some(kind) = model_kind_named(name) else {
        let why = if matches!(name, "artificial_neural_network" | "support_vector_machine") {
            format!("model type '{name}' is not supported by ompadapt; use {EXPECTED}")
        } else {
            format!("unknown model type '{name}'; expected {EXPECTED}")
        };
        diags.push(Diagnostic::error(kind_item.start, kind_item.end, why));
        return None;
    };
    let params: Vec<Range<usize>> = items[1..].to_vec();
    if let Some(empty) = params.iter().find(|p| p.is_empty()) {
        diags.push(Diagnostic::error(empty.start, empty.start, "expected an integer expression"));
        return None;
    }
    match (kind, params.len()) {
        (ModelKind::DecisionTree, 0 | 1) | (ModelKind::RandomForest, 0 | 2) | (ModelKind::Logistic | ModelKind::Auto, 0) => {}
        (ModelKind::DecisionTree, _) => {
            diags.push(Diagnostic::error(params[1].start, args.end, format!("'{name}' takes at most one parameter, the maximum depth")));
            return None;
        }
        (ModelKind::RandomForest, _) => {
            diags.push(Diagnostic::error(
                params[0].start,
                args.end,
                format!("'{name}' takes both the number of trees and the maximum depth, or neither"),
            ));
            return None;
        }
        (ModelKind::Logistic | ModelKind::Auto, _) => {
            diags.push(Diagnostic::error(params[0].start, args.end, format!("'{name}' takes no parameters")));
            return None;
        }
    }
    for p in &params {
        if try_constant(toks, p, brackets).is_some_and(|v| v < 1.0) {
            diags.push(Diagnostic::error(p.start, p.end, "model parameters must be at least 1"));
            return None;
        }
    }
    Some(ModelType { kind, params, at: c.at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::{lex, spell};

    fn features(src: &str) -> (Vec<Feature>, Diags, Vec<Tok>) {
        let t = lex(src);
        let mut d = Vec::new();
        let b = Brackets::new(&t, &mut d).unwrap();
        let mut out = Vec::new();
        parse_features(&t, 0..t.len(), &b, &mut out, &mut d);
        (out, d, t)
    }

    #[test]
    fn range_and_min_sample_points_modifiers() {
        let (f, d, t) = features("range[0:30000], min_sample_points(25): N, M");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].range, Some((0.0, 30000.0)));
        assert_eq!(f[1].min_samples, Some(25));
        assert_eq!(spell(&t[f[1].expr.clone()]), "M");
        let (f, d, _) = features("min_sample_points(4): a ? b : c");
        assert!(d.is_empty());
        assert_eq!((f.len(), f[0].range, f[0].min_samples), (1, None, Some(4)));
        // A ternary with no modifier is one plain feature.
        let (f, d, _) = features("a ? b : c, range");
        assert!(d.is_empty());
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn modifier_errors() {
        for (src, msg) in [
            ("range[0:10]: ", "expected a feature expression"),
            ("range[10:0]: n", "the range's upper bound is smaller than its lower bound"),
            ("range[0:N]: n", "a range's upper bound must be a numeric constant"),
            ("range[0:1:2]: n", "a feature range is written range[lower:upper]"),
            ("min_sample_points(0): n", "'min_sample_points' takes a positive integer"),
            ("min_sample_points(2.5): n", "'min_sample_points' takes a positive integer"),
            ("range[0:1] n", "expected ':' between the modifiers and the feature list"),
            ("range[0:1], range[0:2]: n", "duplicate 'range' modifier"),
        ] {
            let (_, d, _) = features(src);
            assert_eq!(d.first().map(|d| d.message.as_str()), Some(msg), "{src}");
        }
    }
}
