//! The clauses of `begin adaptation` / `adaptation` / `end adaptation` (seed 000 §3.1).

use crate::diag::{Diagnostic, Diags};
use crate::token::{Tok, TokKind};
use crate::variants::{parse_number, parse_variants, split_top_level, VariantSet};
use std::ops::Range;

/// Most features a region may have (the runtime's per-execution context holds them inline).
pub const MAX_FEATURES: usize = 16;

pub const ADAPTATION_CLAUSES: [&str; 6] =
    ["model_name", "features", "variants", "min_train_data", "model_type", "model_output"];

/// Spellings used in the paper's listings, accepted with a warning.
const ALIASES: [(&str, &str); 2] = [("model", "model_type"), ("min_training_data", "min_train_data")];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    DecisionTree,
    RandomForest,
}

impl ModelKind {
    pub fn spec_name(self) -> &'static str {
        match self {
            ModelKind::DecisionTree => "dtree",
            ModelKind::RandomForest => "rfc",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelType {
    pub kind: ModelKind,
    /// Token ranges of the integer-expression parameters (depth; or trees, depth).
    pub params: Vec<Range<usize>>,
}

/// What the clauses of one directive say. Token ranges index the directive's tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clauses {
    pub model_name: Option<(String, usize)>,
    pub features: Vec<Range<usize>>,
    pub variants: Option<VariantSet>,
    pub min_train: Option<Range<usize>>,
    pub model_type: Option<ModelType>,
    /// Token of the variable named in model_output.
    pub model_output: Option<usize>,
}

/// Finds the `)` matching the `(` at `open`; None if the line ends first.
pub fn matching_paren(toks: &[Tok], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.kind == TokKind::Punct {
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Expects `name(` at `at` and returns the index of the matching `)`, or reports why not.
pub fn parenthesised_args(toks: &[Tok], at: usize, name: &str, diags: &mut Diags) -> Option<usize> {
    if !toks.get(at + 1).is_some_and(|t| t.is_punct("(")) {
        diags.push(Diagnostic::error(at + 1, at + 1, format!("expected '(' after '{name}'")));
        return None;
    }
    let close = matching_paren(toks, at + 1);
    if close.is_none() {
        diags.push(Diagnostic::error(toks.len(), toks.len(), "expected ')'"));
        diags.push(Diagnostic::note(at + 1, at + 2, "to match this '('"));
    }
    close
}

/// Parses `clause(args) [,] clause(args) ...` from `toks[start..]`. `directive` names the
/// directive in messages; `allowed` lists the clauses it takes.
pub fn parse_clauses(
    toks: &[Tok],
    start: usize,
    directive: &str,
    allowed: &[&'static str],
    diags: &mut Diags,
) -> Clauses {
    let mut c = Clauses::default();
    let mut seen: Vec<(&'static str, usize)> = Vec::new();
    let mut i = start;
    while i < toks.len() {
        let t = &toks[i];
        if t.is_punct(",") {
            i += 1;
            continue;
        }
        if t.kind != TokKind::Ident {
            diags.push(Diagnostic::error(i, i + 1, format!("expected a clause of '{directive}'")));
            return c;
        }
        let mut name: &str = &t.text;
        if let Some((alias, canonical)) = ALIASES.iter().find(|(a, _)| *a == name) {
            if allowed.contains(canonical) {
                diags.push(
                    Diagnostic::warning(i, i + 1, format!("'{alias}' is the paper's spelling of '{canonical}'"))
                        .with_fixit(*canonical),
                );
                name = canonical;
            }
        }
        let Some(canonical) = allowed.iter().copied().find(|a| *a == name) else {
            diags.push(Diagnostic::error(i, i + 1, format!("unknown clause '{}' in '{directive}'", t.text)));
            diags.push(Diagnostic::note(i, i + 1, format!("'{directive}' takes: {}", allowed.join(", "))));
            return c;
        };
        if let Some((_, prev)) = seen.iter().find(|(n, _)| *n == canonical) {
            diags.push(Diagnostic::error(i, i + 1, format!("duplicate '{canonical}' clause")));
            diags.push(Diagnostic::note(*prev, *prev + 1, "previous clause is here"));
            return c;
        }
        seen.push((canonical, i));
        let Some(close) = parenthesised_args(toks, i, canonical, diags) else { return c };
        let args = i + 2..close;
        clause(&mut c, toks, canonical, i, args, diags);
        i = close + 1;
    }
    c
}

fn clause(c: &mut Clauses, toks: &[Tok], name: &str, at: usize, args: Range<usize>, diags: &mut Diags) {
    let whole = at..args.end + 1;
    match name {
        "model_name" => {
            if args.len() == 1 && toks[args.start].kind == TokKind::Ident {
                c.model_name = Some((toks[args.start].text.clone(), args.start));
            } else {
                diags.push(Diagnostic::error(whole.start, whole.end, "'model_name' takes one identifier"));
            }
        }
        "features" => {
            for item in split_top_level(toks, args.clone()) {
                if item.is_empty() {
                    diags.push(Diagnostic::error(item.start, item.start, "expected a feature expression"));
                    return;
                }
                c.features.push(item);
            }
            if c.features.len() > MAX_FEATURES {
                let extra = c.features[MAX_FEATURES].clone();
                diags.push(Diagnostic::error(
                    extra.start,
                    extra.end,
                    format!("a region has at most {MAX_FEATURES} features"),
                ));
            }
        }
        "variants" => c.variants = parse_variants(toks, at, args, diags),
        "min_train_data" => {
            if args.is_empty() {
                diags.push(Diagnostic::error(whole.start, whole.end, "'min_train_data' needs an integer expression"));
            } else if let Some(n) = constant(toks, &args) {
                if n < 1.0 {
                    diags.push(Diagnostic::error(args.start, args.end, "'min_train_data' must be at least 1"));
                } else {
                    c.min_train = Some(args);
                }
            } else {
                c.min_train = Some(args);
            }
        }
        "model_type" => c.model_type = model_type(toks, whole, args, diags),
        "model_output" => {
            if args.len() == 1 && toks[args.start].kind == TokKind::Ident {
                c.model_output = Some(args.start);
            } else {
                let r = if args.is_empty() { whole } else { args };
                diags.push(Diagnostic::error(
                    r.start,
                    r.end,
                    "'model_output' takes the name of an assignable variable",
                ));
            }
        }
        _ => unreachable!("clause list and match arms disagree: {name}"),
    }
}

/// The value of a lone numeric literal, if the range is one.
fn constant(toks: &[Tok], r: &Range<usize>) -> Option<f64> {
    (r.len() == 1 && toks[r.start].kind == TokKind::Number)
        .then(|| parse_number(&toks[r.start].text).map(|n| n.value))
        .flatten()
}

fn model_type(toks: &[Tok], whole: Range<usize>, args: Range<usize>, diags: &mut Diags) -> Option<ModelType> {
    let items = split_top_level(toks, args.clone());
    let kind_r = items[0].clone();
    let kind = if kind_r.len() == 1 && toks[kind_r.start].kind == TokKind::Ident {
        match toks[kind_r.start].text.as_str() {
            "dtree" => Some(ModelKind::DecisionTree),
            "rfc" => Some(ModelKind::RandomForest),
            other => {
                diags.push(Diagnostic::error(
                    kind_r.start,
                    kind_r.end,
                    format!("unknown model type '{other}'; expected 'dtree' or 'rfc'"),
                ));
                return None;
            }
        }
    } else {
        None
    };
    let Some(kind) = kind else {
        let r = if kind_r.is_empty() { whole } else { kind_r };
        diags.push(Diagnostic::error(r.start, r.end, "expected a model type: 'dtree' or 'rfc'"));
        return None;
    };
    let params: Vec<Range<usize>> = items[1..].to_vec();
    if let Some(empty) = params.iter().find(|p| p.is_empty()) {
        diags.push(Diagnostic::error(empty.start, empty.start, "expected an integer expression"));
        return None;
    }
    match (kind, params.len()) {
        (ModelKind::DecisionTree, 0 | 1) | (ModelKind::RandomForest, 0 | 2) => {}
        (ModelKind::DecisionTree, _) => {
            diags.push(Diagnostic::error(
                params[1].start,
                args.end,
                "'dtree' takes at most one parameter, the maximum depth",
            ));
            return None;
        }
        (ModelKind::RandomForest, _) => {
            diags.push(Diagnostic::error(
                params[0].start,
                args.end,
                "'rfc' takes both the number of trees and the maximum depth, or neither",
            ));
            return None;
        }
    }
    for p in &params {
        if constant(toks, p).is_some_and(|v| v < 1.0) {
            diags.push(Diagnostic::error(p.start, p.end, "model parameters must be at least 1"));
            return None;
        }
    }
    Some(ModelType { kind, params })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    fn parse(src: &str) -> (Clauses, Diags, Vec<Tok>) {
        let toks = lex(src);
        let mut d = Vec::new();
        let c = parse_clauses(&toks, 0, "begin adaptation", &ADAPTATION_CLAUSES, &mut d);
        (c, d, toks)
    }

    #[test]
    fn all_six_clauses() {
        let (c, d, toks) = parse(
            "model_name(by_len) features(N, M*2) variants([64:1024:64]) min_train_data(16*10) \
             model_type(rfc, 10, 4) model_output(GPU_THREADS)",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(c.model_name.as_ref().unwrap().0, "by_len");
        assert_eq!(c.features.len(), 2);
        assert_eq!(crate::token::spell(&toks[c.features[1].clone()]), "M*2");
        assert_eq!(c.variants.unwrap().variants.len(), 16);
        assert_eq!(c.model_type.as_ref().unwrap().kind, ModelKind::RandomForest);
        assert_eq!(c.model_type.unwrap().params.len(), 2);
        assert_eq!(toks[c.model_output.unwrap()].text, "GPU_THREADS");
    }

    #[test]
    fn commas_between_clauses_and_aliases() {
        let (c, d, _) = parse("model_name(m), variants(a, b), model(dtree)");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, crate::diag::Severity::Warning);
        assert_eq!(d[0].fixit.as_deref(), Some("model_type"));
        assert_eq!(c.model_type.unwrap().kind, ModelKind::DecisionTree);
    }

    #[test]
    fn clause_errors() {
        for (src, msg, tok) in [
            ("model_name(m) foo(1)", "unknown clause 'foo' in 'begin adaptation'", 4),
            ("model_name(m) model_name(n)", "duplicate 'model_name' clause", 4),
            ("model_name(m) variants()", "'variants' clause needs at least one variant", 4),
            ("model_name(m) model_type(svm)", "unknown model type 'svm'; expected 'dtree' or 'rfc'", 6),
            ("model_name(m) model_type(rfc, 10)", "'rfc' takes both the number of trees and the maximum depth, or neither", 8),
            ("model_name(m) model_type(dtree, 2, 3)", "'dtree' takes at most one parameter, the maximum depth", 10),
            ("model_name(m) model_output(a+b)", "'model_output' takes the name of an assignable variable", 6),
            ("model_name(m) model_output(3)", "'model_output' takes the name of an assignable variable", 6),
            ("model_name(m) min_train_data(0)", "'min_train_data' must be at least 1", 6),
            ("model_name(a b)", "'model_name' takes one identifier", 0),
            ("model_name(m", "expected ')'", 3),
        ] {
            let (_, d, _) = parse(src);
            assert_eq!(d[0].message, msg, "{src}");
            assert_eq!(d[0].tok, tok, "{src}");
        }
    }
}
