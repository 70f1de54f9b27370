//! The clauses of `begin adaptation` / `adaptation` (Georgakoudis et al. §3.1).

use crate::brackets::Brackets;
use crate::clauses::{is_auto_feature, region_name, reject_duplicates, required_args, scan_clauses, try_constant, Feature, RawClause};
use crate::diag::{Diagnostic, Diags};
use crate::feature_clause::{parse_features, parse_model, ModelType};
use crate::limits::MAX_FEATURES;
use crate::token::{Tok, TokKind};
use crate::variants::{parse_variants, VariantSet};
use std::ops::Range;

/// The clauses `begin adaptation` and `adaptation` take, in the order messages list them.
pub const ADAPTATION_CLAUSES: [&str; 6] = ["model_name", "features", "variants", "min_train_data", "model_type", "model_output"];

/// Spellings used in the paper's listings, accepted with a warning and a fix-it.
const ALIASES: [(&str, &str); 2] = [("model", "model_type"), ("min_training_data", "min_train_data")];

/// What the clauses of one directive say. Token ranges index the directive's tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clauses {
    /// `model_name(...)`: the region's name, and the index of its token.
    pub model_name: Option<(String, usize)>,
    /// The explicit features of `features(...)`, in order (an `auto` item is taken out into
    /// `auto_features`).
    pub features: Vec<Feature>,
    /// `features(..., auto)`: the token of `auto` (the compiler adds automatic features after
    /// the explicit ones).
    pub auto_features: Option<usize>,
    /// `variants(...)`: the variants the region chooses among.
    pub variants: Option<VariantSet>,
    /// `min_train_data(...)`: the tokens of its integer expression (at least 1 when constant).
    pub min_train: Option<Range<usize>>,
    /// `model_type(...)`: the model family and its parameters.
    pub model_type: Option<ModelType>,
    /// The lvalue expression of model_output.
    pub model_output: Option<Range<usize>>,
}

/// Parses the clauses of `directive` from `toks[start..]`, allowing those in `allowed`.
/// Returns None after an error (reported).
pub fn parse_clauses(
    toks: &[Tok],
    start: usize,
    brackets: &Brackets,
    directive: &str,
    allowed: &[&'static str],
    diags: &mut Diags,
) -> Option<Clauses> {
    let mut raw = scan_clauses(toks, start, brackets, directive, diags)?;
    for c in &mut raw {
        if let Some((alias, canonical)) = ALIASES.iter().find(|(a, _)| *a == c.name) {
            if allowed.contains(canonical) {
                diags.push(
                    Diagnostic::warning(c.at, c.at + 1, format!("'{alias}' is the paper's spelling of '{canonical}'"))
                        .with_fixit(*canonical),
                );
                c.name = canonical.to_string();
            }
        }
        if !allowed.contains(&c.name.as_str()) {
            let unknown = Diagnostic::error(c.at, c.at + 1, format!("unknown clause '{}' in '{directive}'", toks[c.at].text));
            diags.push(match crate::diag::closest(&c.name, allowed) {
                Some(meant) => Diagnostic { message: format!("{}; did you mean '{meant}'?", unknown.message), ..unknown }.with_fixit(meant),
                None => unknown,
            });
            diags.push(Diagnostic::note(c.at, c.at + 1, format!("'{directive}' takes: {}", allowed.join(", "))));
            return None;
        }
    }
    if !reject_duplicates(&raw, &[], diags) {
        return None;
    }
    let mut out = Clauses::default();
    for c in &raw {
        let args = required_args(c, diags)?;
        clause(&mut out, toks, c, args, brackets, diags)?;
    }
    Some(out)
}

fn clause(c: &mut Clauses, toks: &[Tok], raw: &RawClause, args: Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Option<()> {
    match raw.name.as_str() {
        "model_name" => c.model_name = Some(region_name(toks, raw, args, diags)?),
        "features" => {
            if !parse_features(toks, args, brackets, &mut c.features, diags) {
                return None;
            }
            c.auto_features = auto_item(toks, &mut c.features, diags)?;
        }
        "variants" => c.variants = Some(parse_variants(toks, raw.at, args, brackets, diags)?),
        "min_train_data" => {
            if args.is_empty() {
                diags.push(Diagnostic::error(raw.at, args.end + 1, "'min_train_data' needs an integer expression"));
                return None;
            }
            if try_constant(toks, &args, brackets).is_some_and(|n| n < 1.0) {
                diags.push(Diagnostic::error(args.start, args.end, "'min_train_data' must be at least 1"));
                return None;
            }
            c.min_train = Some(args);
        }
        "model_type" => c.model_type = Some(parse_model(toks, raw, args, brackets, diags)?),
        "model_output" => {
            // Assignability and type are Clang's to check (on the generated assignment, with
            // ompadapt's wording); a lone literal is refused here.
            let literal = args.len() == 1 && matches!(toks[args.start].kind, TokKind::Number | TokKind::Literal);
            if args.is_empty() || literal {
                let r = if args.is_empty() { raw.whole() } else { args };
                diags.push(Diagnostic::error(r.start, r.end, "'model_output' takes a modifiable lvalue of arithmetic type"));
                return None;
            }
            c.model_output = Some(args);
        }
        other => unreachable!("clause list and match arms disagree: {other}"),
    }
    Some(())
}

/// Takes the `auto` item out of a feature list: its token, after checking that it is alone,
/// unmodified and leaves room for at least one automatic feature.
fn auto_item(toks: &[Tok], features: &mut Vec<Feature>, diags: &mut Diags) -> Option<Option<usize>> {
    let auto_features: Vec<&Feature> = features.iter().filter(|f| is_auto_feature(toks, &f.expr)).collect();
    let Some(first) = auto_features.first() else { return Some(None) };
    let at = first.expr.start;
    if let Some(again) = auto_features.get(1) {
        let a = again.expr.start;
        diags.push(Diagnostic::error(a, a + 1, "'auto' is listed twice in 'features'"));
        diags.push(Diagnostic::note(at, at + 1, "first listed here"));
        return None;
    }
    if first.range.is_some() || first.min_samples.is_some() {
        diags.push(Diagnostic::error(
            at,
            at + 1,
            "'auto' takes no 'range' or 'min_sample_points' modifier: automatic features have no declared range; list 'auto' in a 'features' clause without modifiers",
        ));
        return None;
    }
    features.retain(|f| !is_auto_feature(toks, &f.expr));
    if features.len() >= MAX_FEATURES {
        diags.push(Diagnostic::error(
            at,
            at + 1,
            format!(
                "with 'auto', a region has at most {} explicit features: automatic features need at least one of the {MAX_FEATURES} slots",
                MAX_FEATURES - 1
            ),
        ));
        return None;
    }
    Some(Some(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clauses::ModelKind;
    use crate::token::{lex, spell};

    fn parse(src: &str) -> (Option<Clauses>, Diags, Vec<Tok>) {
        let toks = lex(src);
        let mut d = Vec::new();
        let Some(b) = Brackets::new(&toks, &mut d) else { return (None, d, toks) };
        let c = parse_clauses(&toks, 0, &b, "begin adaptation", &ADAPTATION_CLAUSES, &mut d);
        (c, d, toks)
    }

    #[test]
    fn all_six_clauses() {
        let (c, d, toks) = parse(
            "model_name(by_len) features(N, M*2) variants([64:1024:64]) min_train_data(16*10) \
             model_type(rfc, 10, 4) model_output(out.threads)",
        );
        assert!(d.is_empty(), "{d:?}");
        let c = c.unwrap();
        assert_eq!(c.model_name.as_ref().unwrap().0, "by_len");
        assert_eq!(c.features.len(), 2);
        assert_eq!(spell(&toks[c.features[1].expr.clone()]), "M*2");
        assert_eq!(c.variants.unwrap().variants.len(), 16);
        assert_eq!(c.model_type.as_ref().unwrap().kind, ModelKind::RandomForest);
        assert_eq!(c.model_type.unwrap().params.len(), 2);
        assert_eq!(spell(&toks[c.model_output.unwrap()]), "out.threads");
    }

    #[test]
    fn commas_between_clauses_and_aliases() {
        let (c, d, _) = parse("model_name(m), variants(a, b), model(decision_tree)");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, crate::diag::Severity::Warning);
        assert_eq!(d[0].fixit.as_deref(), Some("model_type"));
        assert_eq!(c.unwrap().model_type.unwrap().kind, ModelKind::DecisionTree);
        let (c, _, _) = parse("model_name(\"m\") variants(a) model_type(logistic) model_output(sel[1])");
        let c = c.unwrap();
        assert_eq!(c.model_name.unwrap().0, "m");
        assert_eq!(c.model_type.unwrap().kind, ModelKind::Logistic);
    }

    #[test]
    fn clause_errors() {
        for (src, msg, tok) in [
            ("model_name(m) foo(1)", "unknown clause 'foo' in 'begin adaptation'", 4),
            ("model_name(m) model_name(n)", "duplicate 'model_name' clause", 4),
            ("model_name(m) variants()", "'variants' clause needs at least one variant", 4),
            ("model_name(m) model_type(svm)", "unknown model type 'svm'; expected 'dtree'/'decision_tree', 'rfc'/'random_forest', 'logistic'/'logistic_regression' or 'auto'", 6),
            ("model_name(m) model_type(rfc, 10)", "'rfc' takes both the number of trees and the maximum depth, or neither", 8),
            ("model_name(m) model_type(dtree, 2, 3)", "'dtree' takes at most one parameter, the maximum depth", 10),
            ("model_name(m) model_output(3)", "'model_output' takes a modifiable lvalue of arithmetic type", 6),
            ("model_name(m) model_output()", "'model_output' takes a modifiable lvalue of arithmetic type", 4),
            ("model_name(m) min_train_data(0)", "'min_train_data' must be at least 1", 6),
            ("model_name(m) min_train_data(2-3)", "'min_train_data' must be at least 1", 6),
            ("model_name(a b)", "'model_name' takes one identifier or string literal", 2),
            ("model_name(m", "expected ')'", 3),
            ("model_name(m) variants", "expected '(' after 'variants'", 5),
        ] {
            let (c, d, _) = parse(src);
            assert!(c.is_none(), "{src}");
            assert_eq!((d[0].message.as_str(), d[0].tok), (msg, tok), "{src}");
        }
    }
}
