//! `metadirective` with the `adaptation(...)` trait selector of the `user` set (seed 000 §3.1):
//! `when(user={adaptation(<model> <relop> <variant>)} : <directive-variant>)`.
//!
//! Clang 19 resolves metadirective selectors at compile time, so a metadirective that uses
//! `adaptation` is lowered here into a run-time chain over its directive variants, each with its
//! own copy of the associated statement. `user={condition(expr)}` in the same metadirective is
//! honoured at run time too.

use crate::clauses::parenthesised_args;
use crate::diag::{Diagnostic, Diags};
use crate::token::{Tok, TokKind};
use crate::variants::{parse_number, split_top_level, VariantSet};
use std::ops::Range;

/// A run-time condition: C text and directive tokens interleaved.
#[derive(Clone, Debug, PartialEq)]
pub enum CondPiece {
    Text(String),
    /// A user expression (from `condition(...)`), spliced with its own source locations.
    User(Range<usize>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// None for `default(...)` / `otherwise(...)`.
    pub cond: Option<Vec<CondPiece>>,
    /// Tokens of the directive variant, in the order to emit them (empty: the statement runs
    /// as is).
    pub directive: Vec<Range<usize>>,
}

/// What the selector needs to know about an open adaptation region.
pub struct ModelRef<'a> {
    /// C lvalue holding the selected variant index, e.g. `__ompadapt_c3.variant`.
    pub variant_expr: String,
    pub variants: &'a VariantSet,
}

/// True when any `when` clause of the metadirective uses the adaptation selector.
pub fn uses_adaptation(toks: &[Tok]) -> bool {
    toks.windows(2).any(|w| w[0].is_ident("adaptation") && w[1].is_punct("("))
}

/// Parses `when(...)`, `default(...)` and `otherwise(...)` clauses from `toks[start..]`.
/// `lookup` resolves a model name to the innermost open region of that name.
pub fn parse_metadirective<'a>(
    toks: &[Tok],
    start: usize,
    lookup: &dyn Fn(&str) -> Option<ModelRef<'a>>,
    diags: &mut Diags,
) -> Option<Vec<Arm>> {
    let mut arms = Vec::new();
    let mut default: Option<Arm> = None;
    let mut i = start;
    let errors_before = diags.len();
    while i < toks.len() {
        let t = &toks[i];
        if t.is_punct(",") {
            i += 1;
            continue;
        }
        let name = t.text.clone();
        if t.kind != TokKind::Ident || !matches!(name.as_str(), "when" | "default" | "otherwise") {
            diags.push(Diagnostic::error(i, i + 1, "expected 'when', 'default' or 'otherwise' clause in 'metadirective'"));
            return None;
        }
        let close = parenthesised_args(toks, i, &name, diags)?;
        if name == "when" {
            if let Some(arm) = when_clause(toks, i, i + 2..close, lookup, diags) {
                arms.push(arm);
            }
        } else {
            if default.is_some() {
                diags.push(Diagnostic::error(i, i + 1, "'metadirective' takes one 'default'/'otherwise' clause"));
                return None;
            }
            default = Some(Arm { cond: None, directive: directive_variant(toks, i + 2..close, diags) });
        }
        i = close + 1;
    }
    if diags[errors_before..].iter().any(|d| d.severity == crate::diag::Severity::Error) {
        return None;
    }
    arms.extend(default);
    Some(arms)
}

fn when_clause<'a>(
    toks: &[Tok],
    at: usize,
    args: Range<usize>,
    lookup: &dyn Fn(&str) -> Option<ModelRef<'a>>,
    diags: &mut Diags,
) -> Option<Arm> {
    // The selector ends at the first ':' outside brackets.
    let mut depth = 0i32;
    let mut colon = None;
    for j in args.clone() {
        match toks[j].text.as_str() {
            "(" | "[" | "{" if toks[j].kind == TokKind::Punct => depth += 1,
            ")" | "]" | "}" if toks[j].kind == TokKind::Punct => depth -= 1,
            ":" if toks[j].kind == TokKind::Punct && depth == 0 => {
                colon = Some(j);
                break;
            }
            _ => {}
        }
    }
    let Some(colon) = colon else {
        diags.push(Diagnostic::error(at, args.end + 1, "expected ':' between the context selector and the directive variant"));
        return None;
    };
    // One conjunct per selector; wrapped in parentheses only when there are several, so that
    // `if (v == 0)` never draws -Wparentheses-equality.
    let mut parts: Vec<Vec<CondPiece>> = Vec::new();
    for set in split_top_level(toks, args.start..colon) {
        // set := NAME '=' '{' selectors '}'
        let ok_shape = set.len() >= 4
            && toks[set.start].kind == TokKind::Ident
            && toks[set.start + 1].is_punct("=")
            && toks[set.start + 2].is_punct("{")
            && toks[set.end - 1].is_punct("}");
        if !ok_shape {
            diags.push(Diagnostic::error(set.start, set.end, "expected a context selector set such as user={adaptation(...)}"));
            return None;
        }
        if toks[set.start].text != "user" {
            diags.push(Diagnostic::error(
                set.start,
                set.start + 1,
                format!(
                    "the '{}' selector set cannot be combined with adaptation selectors: \
                     a metadirective using 'adaptation' is decided at run time",
                    toks[set.start].text
                ),
            ));
            return None;
        }
        for sel in split_top_level(toks, set.start + 3..set.end - 1) {
            let is_call = sel.len() >= 3
                && toks[sel.start].kind == TokKind::Ident
                && toks[sel.start + 1].is_punct("(")
                && toks[sel.end - 1].is_punct(")");
            if !is_call {
                diags.push(Diagnostic::error(sel.start, sel.end.max(sel.start + 1), "expected 'adaptation(...)' or 'condition(...)'"));
                return None;
            }
            let inner = sel.start + 2..sel.end - 1;
            match toks[sel.start].text.as_str() {
                "adaptation" => {
                    let mut p = ExprParser { toks, pos: inner.start, end: inner.end, lookup, diags: &mut *diags };
                    let text = p.or()?;
                    if p.pos != p.end {
                        let pos = p.pos;
                        diags.push(Diagnostic::error(pos, pos + 1, "unexpected token in adaptation selector"));
                        return None;
                    }
                    parts.push(vec![CondPiece::Text(text)]);
                }
                "condition" => {
                    if inner.is_empty() {
                        diags.push(Diagnostic::error(sel.start, sel.end, "'condition' needs an expression"));
                        return None;
                    }
                    parts.push(vec![CondPiece::User(inner)]);
                }
                other => {
                    diags.push(Diagnostic::error(
                        sel.start,
                        sel.start + 1,
                        format!("the '{other}' selector cannot be combined with adaptation selectors"),
                    ));
                    return None;
                }
            }
        }
    }
    let cond = if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        let mut c = Vec::new();
        for (i, part) in parts.into_iter().enumerate() {
            c.push(CondPiece::Text(if i == 0 { "(" } else { " && (" }.into()));
            c.extend(part);
            c.push(CondPiece::Text(")".into()));
        }
        c
    };
    Some(Arm { cond: Some(cond), directive: directive_variant(toks, colon + 1..args.end, diags) })
}

/// Words that make up OpenMP directive names of the variants a metadirective selects between.
const DIRECTIVE_WORDS: [&str; 12] =
    ["target", "teams", "distribute", "parallel", "for", "simd", "loop", "taskloop", "masked", "master", "sections", "single"];

/// The directive variant's tokens with its directive-name words first. The paper's Listing 3
/// writes `target map(...) map(...) teams distribute parallel for`; Clang would read a `target`
/// with clauses and ignore the rest, losing the parallel loop, so the words are moved in front of
/// the clauses, with a warning.
fn directive_variant(toks: &[Tok], range: Range<usize>, diags: &mut Diags) -> Vec<Range<usize>> {
    let mut words: Vec<Range<usize>> = Vec::new();
    let mut clauses: Vec<Range<usize>> = Vec::new();
    let mut i = range.start;
    while i < range.end {
        let t = &toks[i];
        let next_is_paren = i + 1 < range.end && toks[i + 1].is_punct("(");
        if t.kind == TokKind::Ident && next_is_paren {
            let close = crate::clauses::matching_paren(toks, i + 1).map_or(range.end, |c| (c + 1).min(range.end));
            clauses.push(i..close);
            i = close;
            continue;
        }
        if t.kind == TokKind::Ident && DIRECTIVE_WORDS.contains(&t.text.as_str()) {
            if !clauses.is_empty() {
                let mut end = i + 1;
                while end < range.end && toks[end].kind == TokKind::Ident && DIRECTIVE_WORDS.contains(&toks[end].text.as_str()) {
                    end += 1;
                }
                let moved: Vec<&str> = toks[i..end].iter().map(|t| t.text.as_str()).collect();
                diags.push(Diagnostic::warning(
                    i,
                    end,
                    format!("'{}' follows the clauses of this directive variant; read as part of its name", moved.join(" ")),
                ));
                words.push(i..end);
                i = end;
                continue;
            }
            words.push(i..i + 1);
        } else {
            clauses.push(i..i + 1); // a clause without arguments, e.g. nowait, or punctuation
        }
        i += 1;
    }
    words.extend(clauses);
    words
}

/// `or := and ('||' and)*; and := unary ('&&' unary)*; unary := '!' unary | '(' or ')' | cmp;
/// cmp := MODEL RELOP VARIANT`. Produces C text over variant indices: relational operators
/// follow the declaration order of the variants (seed 000 §3.1).
struct ExprParser<'t, 'l, 'a> {
    toks: &'t [Tok],
    pos: usize,
    end: usize,
    lookup: &'l dyn Fn(&str) -> Option<ModelRef<'a>>,
    diags: &'l mut Diags,
}

impl ExprParser<'_, '_, '_> {
    fn peek(&self, p: &str) -> bool {
        self.pos < self.end && self.toks[self.pos].is_punct(p)
    }
    fn or(&mut self) -> Option<String> {
        let mut s = self.and()?;
        while self.peek("||") {
            self.pos += 1;
            s = format!("({s}) || ({})", self.and()?);
        }
        Some(s)
    }
    fn and(&mut self) -> Option<String> {
        let mut s = self.unary()?;
        while self.peek("&&") {
            self.pos += 1;
            s = format!("({s}) && ({})", self.unary()?);
        }
        Some(s)
    }
    fn unary(&mut self) -> Option<String> {
        if self.peek("!") {
            self.pos += 1;
            return Some(format!("!({})", self.unary()?));
        }
        if self.peek("(") {
            self.pos += 1;
            let s = self.or()?;
            if !self.peek(")") {
                self.diags.push(Diagnostic::error(self.pos, self.pos + 1, "expected ')'"));
                return None;
            }
            self.pos += 1;
            return Some(format!("({s})"));
        }
        self.cmp()
    }
    fn cmp(&mut self) -> Option<String> {
        let (toks, at) = (self.toks, self.pos);
        if at >= self.end || toks[at].kind != TokKind::Ident {
            self.diags.push(Diagnostic::error(at, at + 1, "expected '<model> <relop> <variant>', e.g. adaptation(by_len == gpu)"));
            return None;
        }
        let model = &toks[at].text;
        let Some(m) = (self.lookup)(model) else {
            self.diags.push(Diagnostic::error(
                at,
                at + 1,
                format!("no adaptation region named '{model}' is open here"),
            ));
            return None;
        };
        let op_at = at + 1;
        const RELOPS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];
        if op_at >= self.end || !RELOPS.iter().any(|r| toks[op_at].is_punct(r)) {
            self.diags.push(Diagnostic::error(op_at, op_at + 1, "expected one of ==, !=, <, <=, >, >= after the model name"));
            return None;
        }
        let op = toks[op_at].text.clone();
        // The variant: an identifier, or an optionally negative number.
        let mut v = op_at + 1;
        let neg = v < self.end && toks[v].is_punct("-");
        if neg {
            v += 1;
        }
        let idx = match toks.get(v).filter(|_| v < self.end) {
            Some(t) if t.kind == TokKind::Ident && !neg => m.variants.index_of_name(&t.text),
            Some(t) if t.kind == TokKind::Number => parse_number(&t.text)
                .and_then(|n| m.variants.index_of_value(if neg { -n.value } else { n.value })),
            _ => {
                self.diags.push(Diagnostic::error(v, v + 1, "expected a variant after the relational operator"));
                return None;
            }
        };
        let Some(idx) = idx else {
            let spelled = if neg { format!("-{}", toks[v].text) } else { toks[v].text.clone() };
            self.diags.push(Diagnostic::error(
                op_at + 1,
                v + 1,
                format!("'{spelled}' is not a variant of model '{model}'"),
            ));
            self.diags.push(Diagnostic::note(op_at + 1, v + 1, format!("its variants are: {}", m.variants.names().join(", "))));
            return None;
        };
        self.pos = v + 1;
        Some(format!("{} {op} {idx}", m.variant_expr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;
    use crate::variants::Variant;

    fn set(names: &[&str]) -> VariantSet {
        VariantSet {
            numeric: false,
            variants: names
                .iter()
                .enumerate()
                .map(|(i, n)| Variant { name: n.to_string(), value: i as f64, tok: 0 })
                .collect(),
        }
    }

    fn parse(src: &str) -> (Option<Vec<Arm>>, Diags) {
        let toks = lex(src);
        let vs = set(&["cpu", "gpu"]);
        let lookup = |m: &str| (m == "by_len").then(|| ModelRef { variant_expr: "V".into(), variants: &vs });
        let mut d = Vec::new();
        let arms = parse_metadirective(&toks, 0, &lookup, &mut d);
        (arms, d)
    }

    #[test]
    fn listing3() {
        let (arms, d) = parse(
            "when(user={adaptation(by_len==cpu)} : parallel for) \
             when(user={adaptation(by_len==gpu)} : target teams distribute parallel for map(to: A[0:N]))",
        );
        assert!(d.is_empty(), "{d:?}");
        let arms = arms.unwrap();
        assert_eq!(arms.len(), 2);
        assert_eq!(arms[0].cond, Some(vec![CondPiece::Text("V == 0".into())]));
        assert_eq!(arms[1].cond, Some(vec![CondPiece::Text("V == 1".into())]));
        let n: usize = arms[1].directive.iter().map(|r| r.len()).sum();
        assert_eq!(n, 16);
    }

    #[test]
    fn relops_default_and_condition() {
        let (arms, d) = parse(
            "when(user={adaptation(!(by_len >= gpu) && by_len != gpu)}: parallel for) \
             when(user={condition(N > 4)}: simd) otherwise(parallel for)",
        );
        assert!(d.is_empty(), "{d:?}");
        let arms = arms.unwrap();
        assert_eq!(arms[0].cond, Some(vec![CondPiece::Text("(!((V >= 1))) && (V != 1)".into())]));
        assert!(matches!(arms[1].cond.as_ref().unwrap()[0], CondPiece::User(_)));
        assert!(arms[2].cond.is_none());
    }

    #[test]
    fn directive_words_after_clauses_move_in_front() {
        let src = "when(user={adaptation(by_len==gpu)} : target map(to: A[0:N]) map(from: C[0:N]) teams distribute parallel for)";
        let toks = lex(src);
        let (arms, d) = parse(src);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, crate::diag::Severity::Warning);
        assert_eq!(d[0].message, "'teams distribute parallel for' follows the clauses of this directive variant; read as part of its name");
        let arm = &arms.unwrap()[0];
        let text: Vec<String> = arm.directive.iter().map(|r| crate::token::spell(&toks[r.clone()])).collect();
        assert_eq!(text, vec!["target", "teams distribute parallel for", "map(to:A[0:N] )", "map(from:C[0:N] )"]);
    }

    #[test]
    fn selector_errors() {
        for (src, msg, tok) in [
            ("when(user={adaptation(by_len==tpu)}: parallel for)", "'tpu' is not a variant of model 'by_len'", 9),
            ("when(user={adaptation(other==cpu)}: parallel for)", "no adaptation region named 'other' is open here", 7),
            ("when(user={adaptation(by_len=cpu)}: parallel for)", "expected one of ==, !=, <, <=, >, >= after the model name", 8),
            ("when(device={kind(gpu)}: parallel for) when(user={adaptation(by_len==cpu)}: simd)", "the 'device' selector set cannot be combined with adaptation selectors: a metadirective using 'adaptation' is decided at run time", 2),
        ] {
            let (arms, d) = parse(src);
            assert!(arms.is_none(), "{src}");
            assert_eq!(d[0].message, msg, "{src}");
            assert_eq!(d[0].tok, tok, "{src}");
        }
    }
}
