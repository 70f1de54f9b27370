//! Clause lists: `name(args) [,] name(args) ...`, scanned the same way for every directive, and
//! the clause arguments shared by `adaptation` and `declare adaptation` (model names, features,
//! model kinds).

use crate::brackets::Brackets;
use crate::constant::{evaluate, Number};
use crate::diag::{Diagnostic, Diags};
use crate::limits::MAX_FEATURES;
use crate::token::{Tok, TokKind};
use std::ops::Range;

/// One clause as written: its name token and the tokens between its parentheses.
#[derive(Clone, Debug, PartialEq)]
pub struct RawClause {
    /// The clause's name as written (`adaptation` then renames the paper's aliases to the
    /// canonical names).
    pub name: String,
    /// Index of the name token.
    pub at: usize,
    /// Tokens between the parentheses; None when the clause has no parentheses.
    pub args: Option<Range<usize>>,
}

impl RawClause {
    /// The clause's tokens, name to closing parenthesis.
    pub fn whole(&self) -> Range<usize> {
        self.at..self.args.as_ref().map_or(self.at + 1, |a| a.end + 1)
    }
}

/// Scans `toks[start..]` into clauses; reports the first token that cannot start a clause.
pub fn scan_clauses(toks: &[Tok], start: usize, brackets: &Brackets, directive: &str, diags: &mut Diags) -> Option<Vec<RawClause>> {
    let mut out = Vec::new();
    let mut i = start;
    while i < toks.len() {
        let t = &toks[i];
        if t.is_punct(",") {
            i += 1;
            continue;
        }
        if t.kind != TokKind::Ident {
            diags.push(Diagnostic::error(i, i + 1, format!("expected a clause of '{directive}'")));
            return None;
        }
        if toks.get(i + 1).is_some_and(|p| p.is_punct("(")) {
            let close = brackets.close_of(i + 1)?;
            out.push(RawClause { name: t.text.clone(), at: i, args: Some(i + 2..close) });
            i = close + 1;
        } else {
            out.push(RawClause { name: t.text.clone(), at: i, args: None });
            i += 1;
        }
    }
    Some(out)
}

/// Splits `toks[range]` at commas that are not nested in (), [] or {}. O(len).
pub fn split_top_level(toks: &[Tok], range: Range<usize>, brackets: &Brackets) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    let mut i = range.start;
    while i < range.end {
        if let Some(c) = brackets.close_of(i) {
            i = c + 1;
            continue;
        }
        if toks[i].is_punct(",") {
            out.push(start..i);
            start = i + 1;
        }
        i += 1;
    }
    out.push(start..range.end);
    out
}

/// The arguments of a clause that needs them, or an error at the clause.
pub fn required_args(c: &RawClause, diags: &mut Diags) -> Option<Range<usize>> {
    if c.args.is_none() {
        diags.push(Diagnostic::error(c.at + 1, c.at + 1, format!("expected '(' after '{}'", c.name)));
    }
    c.args.clone()
}

/// Reports a clause given twice (the second one), with a note at the first.
pub fn reject_duplicates(clauses: &[RawClause], repeatable: &[&str], diags: &mut Diags) -> bool {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for c in clauses {
        if repeatable.contains(&c.name.as_str()) {
            continue;
        }
        if let Some(&prev) = seen.get(c.name.as_str()) {
            diags.push(Diagnostic::error(c.at, c.at + 1, format!("duplicate '{}' clause", c.name)));
            diags.push(Diagnostic::note(prev, prev + 1, "previous clause is here"));
            return false;
        }
        seen.insert(&c.name, c.at);
    }
    true
}

/// A region name: an identifier, or a string literal (Liao et al. write
/// `model_name("scoring_loop")`).
pub fn region_name(toks: &[Tok], clause: &RawClause, args: Range<usize>, diags: &mut Diags) -> Option<(String, usize)> {
    let what = format!("'{}' takes one identifier or string literal", clause.name);
    if args.len() != 1 {
        let r = if args.is_empty() { clause.whole() } else { args };
        diags.push(Diagnostic::error(r.start, r.end, what));
        return None;
    }
    let t = &toks[args.start];
    let name = match t.kind {
        TokKind::Ident => t.text.clone(),
        TokKind::Literal if t.text.starts_with('"') && t.text.ends_with('"') && t.text.len() >= 2 => {
            let inner = &t.text[1..t.text.len() - 1];
            if inner.is_empty() || inner.contains('\\') || inner.chars().any(char::is_control) {
                diags.push(Diagnostic::error(args.start, args.end, "a region name must be non-empty, without escape sequences"));
                return None;
            }
            inner.to_string()
        }
        _ => {
            diags.push(Diagnostic::error(args.start, args.end, what));
            return None;
        }
    };
    Some((name, args.start))
}

/// The model family of a region: the contract crate's type (`model_type=` in the descriptor),
/// under the name the clause parsers use (their own `ModelType` is the clause).
pub use ompadapt_abi::ModelType as ModelKind;

/// The model family a clause names: the short names of `model_type` (the descriptor's) and
/// Liao et al.'s long names of `model`.
pub fn model_kind_named(name: &str) -> Option<ModelKind> {
    let short = match name {
        "decision_tree" => "dtree",
        "random_forest" => "rfc",
        "logistic_regression" => "logistic",
        other => other,
    };
    ModelKind::from_name(short)
}

/// One feature: an expression, with Liao et al.'s optional modifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    /// The expression's tokens.
    pub expr: Range<usize>,
    /// `range[lo:hi]`: inclusive bounds of the values the model is meant for.
    pub range: Option<(f64, f64)>,
    /// `min_sample_points(n)`: distinct values to sample before training.
    pub min_samples: Option<u64>,
}

/// `auto` as a feature item: the compiler derives the region's features (trip counts, static
/// features of the code, bytes mapped). `auto` is a keyword in C and C++, so it can be no
/// feature expression of the user's.
pub fn is_auto_feature(toks: &[Tok], item: &Range<usize>) -> bool {
    item.len() == 1 && toks[item.start].is_ident("auto")
}

/// The items of a feature list, each a non-empty expression (`auto` items are not counted
/// against the limit: the clause's owner checks them).
pub fn feature_list(
    toks: &[Tok],
    list: Range<usize>,
    brackets: &Brackets,
    modifiers: (Option<(f64, f64)>, Option<u64>),
    out: &mut Vec<Feature>,
    diags: &mut Diags,
) -> bool {
    for item in split_top_level(toks, list, brackets) {
        if item.is_empty() {
            diags.push(Diagnostic::error(item.start, item.start, "expected a feature expression"));
            return false;
        }
        let explicit = out.iter().filter(|f| !is_auto_feature(toks, &f.expr)).count();
        if explicit == MAX_FEATURES && !is_auto_feature(toks, &item) {
            diags.push(Diagnostic::error(item.start, item.end, format!("a region has at most {MAX_FEATURES} features")));
            return false;
        }
        out.push(Feature { expr: item, range: modifiers.0, min_samples: modifiers.1 });
    }
    true
}

/// A constant, or an error naming `what` at its first offending token.
pub fn constant(toks: &[Tok], r: Range<usize>, brackets: &Brackets, what: &str, diags: &mut Diags) -> Option<Number> {
    match evaluate(toks, r.clone(), brackets) {
        Ok(n) => Some(n),
        Err(e) => {
            let at = if r.is_empty() { r.start } else { e.tok.clamp(r.start, r.end - 1) };
            let end = if r.is_empty() { at } else { r.end.max(at + 1) };
            let why = if e.message == crate::constant::EXPECTED { String::new() } else { format!(" ({})", e.message) };
            diags.push(Diagnostic::error(at, end, format!("{what} must be a numeric constant{why}")));
            None
        }
    }
}

/// The value of `toks[r]` if it is a constant (no diagnostic otherwise).
pub fn try_constant(toks: &[Tok], r: &Range<usize>, brackets: &Brackets) -> Option<f64> {
    evaluate(toks, r.clone(), brackets).ok().map(|n| n.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    #[test]
    fn scanning() {
        let t = lex("a(1, f(2)), b c()");
        let b = Brackets::new(&t, &mut Vec::new()).unwrap();
        let c = scan_clauses(&t, 0, &b, "x", &mut Vec::new()).unwrap();
        assert_eq!(c.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(c[0].args, Some(2..8));
        assert_eq!(split_top_level(&t, 2..8, &b), vec![2..3, 4..8]);
        let t = lex("a(1) 3");
        let b = Brackets::new(&t, &mut Vec::new()).unwrap();
        let mut d = Vec::new();
        assert!(scan_clauses(&t, 0, &b, "x", &mut d).is_none());
        assert_eq!(d[0].tok, 4);
    }

    #[test]
    fn names() {
        for (src, want) in [("m", Some("m")), ("\"scoring_loop\"", Some("scoring_loop")), ("\"\"", None), ("1", None), ("a b", None)] {
            let t = lex(&format!("model_name({src})"));
            let c = RawClause { name: "model_name".into(), at: 0, args: Some(2..t.len() - 1) };
            let got = region_name(&t, &c, 2..t.len() - 1, &mut Vec::new()).map(|n| n.0);
            assert_eq!(got.as_deref(), want, "{src}");
        }
    }
}
