//! `metadirective` with the `adaptation(...)` trait selector of the `user` set (Georgakoudis et al.
//! §3.1): `when(user={adaptation(<model> <relop> <variant>)} : <directive-variant>)`.
//!
//! Clang 19 resolves metadirective selectors at compile time, so a metadirective that uses
//! `adaptation` is lowered here into a run-time chain over its directive variants, each with its
//! own copy of the associated statement. `user={condition(expr)}` in the same metadirective is
//! honoured at run time too.

use crate::brackets::Brackets;
use crate::clauses::split_top_level;
use crate::constant::parse_number;
use crate::diag::{Diagnostic, Diags};
use crate::directive_variant::DirectiveVariant;
use crate::metadirective::parse_arms;
use crate::token::{Tok, TokKind};
use crate::variants::VariantSet;
use std::ops::Range;

/// A run-time condition: C text and directive tokens interleaved.
#[derive(Clone, Debug, PartialEq)]
pub enum CondPiece {
    /// Generated C text.
    Text(String),
    /// A user expression (from `condition(...)`), spliced with its own source locations.
    User(Range<usize>),
}

/// One directive variant of an adaptation metadirective, with the run-time condition that
/// selects it.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// None for `default(...)` / `otherwise(...)`.
    pub cond: Option<Vec<CondPiece>>,
    /// The directive variant this arm runs.
    pub directive: DirectiveVariant,
}

/// What the selector needs to know about an open adaptation region.
pub struct ModelRef<'a> {
    /// C lvalue holding the selected variant index, e.g. `__ompadapt_c3.variant`.
    pub variant_expr: String,
    /// The region's variants, against which the selector's variant is resolved.
    pub variants: &'a VariantSet,
}

/// True when any `when` clause of the metadirective uses the adaptation selector.
pub fn uses_adaptation(toks: &[Tok]) -> bool {
    toks.windows(2).any(|w| w[0].is_ident("adaptation") && w[1].is_punct("("))
}

/// Parses the `when`, `default` and `otherwise` clauses from `toks[start..]`; the default arm,
/// if any, comes last. `lookup` resolves a model name to the innermost open region of that name.
pub fn parse_metadirective<'a>(
    toks: &[Tok],
    start: usize,
    brackets: &Brackets,
    lookup: &dyn Fn(&str) -> Option<ModelRef<'a>>,
    diags: &mut Diags,
) -> Option<Vec<Arm>> {
    let arms = parse_arms(toks, start, brackets, diags)?;
    let mut out = Vec::with_capacity(arms.len());
    let mut default = None;
    for arm in arms {
        match arm.selector {
            Some(sel) => out.push(Arm { cond: Some(when_condition(toks, sel, brackets, lookup, diags)?), directive: arm.variant }),
            None => default = Some(Arm { cond: None, directive: arm.variant }),
        }
    }
    out.extend(default);
    Some(out)
}

/// The run-time condition of one `when` clause's context selector: the conjunction of its
/// selectors.
fn when_condition<'a>(
    toks: &[Tok],
    selector: Range<usize>,
    brackets: &Brackets,
    lookup: &dyn Fn(&str) -> Option<ModelRef<'a>>,
    diags: &mut Diags,
) -> Option<Vec<CondPiece>> {
    // One conjunct per selector; wrapped in parentheses only when there are several, so that
    // `if (v == 0)` never draws -Wparentheses-equality.
    let mut parts: Vec<Vec<CondPiece>> = Vec::new();
    for set in split_top_level(toks, selector, brackets) {
        check_selector_set(toks, set.clone(), brackets, diags)?;
        for sel in split_top_level(toks, set.start + 3..set.end - 1, brackets) {
            parts.push(selector_condition(toks, sel, brackets, lookup, diags)?);
        }
    }
    Some(if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        let mut c = Vec::new();
        for (i, part) in parts.into_iter().enumerate() {
            c.push(CondPiece::Text(if i == 0 { "(" } else { " && (" }.into()));
            c.extend(part);
            c.push(CondPiece::Text(")".into()));
        }
        c
    })
}

/// `set` is `user={selectors}` (else an error: other selector sets are decided at compile time).
fn check_selector_set(toks: &[Tok], set: Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Option<()> {
    // set := NAME '=' '{' selectors '}'
    let ok_shape = set.len() >= 4
        && toks[set.start].kind == TokKind::Ident
        && toks[set.start + 1].is_punct("=")
        && toks[set.start + 2].is_punct("{")
        && brackets.close_of(set.start + 2) == Some(set.end - 1);
    if !ok_shape {
        diags.push(Diagnostic::error(
            set.start,
            set.end.max(set.start + 1),
            "expected a context selector set such as user={adaptation(...)}",
        ));
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
    Some(())
}

/// The condition of one selector of the `user` set: `adaptation(...)` or `condition(expr)`.
fn selector_condition<'a>(
    toks: &[Tok],
    sel: Range<usize>,
    brackets: &Brackets,
    lookup: &dyn Fn(&str) -> Option<ModelRef<'a>>,
    diags: &mut Diags,
) -> Option<Vec<CondPiece>> {
    let is_call = sel.len() >= 3
        && toks[sel.start].kind == TokKind::Ident
        && toks[sel.start + 1].is_punct("(")
        && brackets.close_of(sel.start + 1) == Some(sel.end - 1);
    if !is_call {
        diags.push(Diagnostic::error(sel.start, sel.end.max(sel.start + 1), "expected 'adaptation(...)' or 'condition(...)'"));
        return None;
    }
    let inner = sel.start + 2..sel.end - 1;
    match toks[sel.start].text.as_str() {
        "adaptation" => {
            let mut p = ExprParser { toks, pos: inner.start, end: inner.end, brackets, lookup, diags: &mut *diags };
            let text = p.or()?;
            if p.pos != p.end {
                let pos = p.pos;
                diags.push(Diagnostic::error(pos, pos + 1, "unexpected token in adaptation selector"));
                return None;
            }
            Some(vec![CondPiece::Text(text)])
        }
        "condition" => {
            if inner.is_empty() {
                diags.push(Diagnostic::error(sel.start, sel.end, "'condition' needs an expression"));
                return None;
            }
            Some(vec![CondPiece::User(inner)])
        }
        other => {
            diags.push(Diagnostic::error(
                sel.start,
                sel.start + 1,
                format!("the '{other}' selector cannot be combined with adaptation selectors"),
            ));
            None
        }
    }
}

/// `(a) op (b) op (c)`, or `a` alone.
fn join(parts: Vec<String>, op: &str) -> String {
    if parts.len() == 1 {
        return parts.into_iter().next().expect("one part");
    }
    let mut s = String::with_capacity(parts.iter().map(|p| p.len() + op.len() + 4).sum());
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            s.push(' ');
            s.push_str(op);
            s.push(' ');
        }
        s.push('(');
        s.push_str(p);
        s.push(')');
    }
    s
}

/// `or := and ('||' and)*; and := unary ('&&' unary)*; unary := '!'* ('(' or ')' | cmp);
/// cmp := MODEL RELOP VARIANT`. Produces C text over variant indices: relational operators
/// follow the declaration order of the variants (Georgakoudis et al. §3.1). Parentheses recurse, at
/// most as deep as the directive's brackets nest (checked before).
struct ExprParser<'t, 'l, 'a> {
    toks: &'t [Tok],
    pos: usize,
    end: usize,
    brackets: &'t Brackets,
    lookup: &'l dyn Fn(&str) -> Option<ModelRef<'a>>,
    diags: &'l mut Diags,
}

impl ExprParser<'_, '_, '_> {
    fn peek(&self, p: &str) -> bool {
        self.pos < self.end && self.toks[self.pos].is_punct(p)
    }
    // Operands are collected and joined once: linear in the selector's length, however many
    // terms it chains.
    fn or(&mut self) -> Option<String> {
        let mut parts = vec![self.and()?];
        while self.peek("||") {
            self.pos += 1;
            parts.push(self.and()?);
        }
        Some(join(parts, "||"))
    }
    fn and(&mut self) -> Option<String> {
        let mut parts = vec![self.unary()?];
        while self.peek("&&") {
            self.pos += 1;
            parts.push(self.unary()?);
        }
        Some(join(parts, "&&"))
    }
    fn unary(&mut self) -> Option<String> {
        let mut negations = 0usize;
        while self.peek("!") {
            self.pos += 1;
            negations += 1;
        }
        let inner = if self.peek("(") {
            let open = self.pos;
            let close = self.brackets.close_of(open).filter(|&c| c < self.end)?;
            let outer_end = std::mem::replace(&mut self.end, close);
            self.pos = open + 1;
            let s = self.or()?;
            if self.pos != close {
                let pos = self.pos;
                self.diags.push(Diagnostic::error(pos, pos + 1, "expected ')'"));
                return None;
            }
            self.end = outer_end;
            self.pos = close + 1;
            format!("({s})")
        } else {
            self.cmp()?
        };
        // `!!x` is `x` as a truth value; an odd count negates.
        Some(match negations {
            0 => inner,
            n if n % 2 == 1 => format!("!({inner})"),
            _ => format!("!!({inner})"),
        })
    }
    fn cmp(&mut self) -> Option<String> {
        let (toks, at) = (self.toks, self.pos);
        if at >= self.end || toks[at].kind != TokKind::Ident {
            self.diags.push(Diagnostic::error(at, at + 1, "expected '<model> <relop> <variant>', e.g. adaptation(by_len == gpu)"));
            return None;
        }
        let model = &toks[at].text;
        let Some(m) = (self.lookup)(model) else {
            self.diags.push(Diagnostic::error(at, at + 1, format!("no adaptation region named '{model}' is open here")));
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
            Some(t) if t.kind == TokKind::Number => {
                parse_number(&t.text).and_then(|n| m.variants.index_of_value(if neg { -n.value } else { n.value }))
            }
            _ => {
                self.diags.push(Diagnostic::error(v, v + 1, "expected a variant after the relational operator"));
                return None;
            }
        };
        let Some(idx) = idx else {
            let spelled = if neg { format!("-{}", toks[v].text) } else { toks[v].text.clone() };
            self.diags.push(Diagnostic::error(op_at + 1, v + 1, format!("'{spelled}' is not a variant of model '{model}'")));
            let mut names = m.variants.names();
            let more = names.len() > 32;
            names.truncate(32);
            self.diags.push(Diagnostic::note(
                op_at + 1,
                v + 1,
                format!("its variants are: {}{}", names.join(", "), if more { ", ..." } else { "" }),
            ));
            return None;
        };
        self.pos = v + 1;
        Some(format!("{} {op} {idx}", m.variant_expr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::{lex, spell};
    use crate::variants::VariantSet;

    fn parse(src: &str) -> (Option<Vec<Arm>>, Diags, Vec<Tok>) {
        let toks = lex(src);
        let vs = VariantSet::categorical(vec!["cpu".into(), "gpu".into()]);
        let lookup = |m: &str| (m == "by_len").then(|| ModelRef { variant_expr: "V".into(), variants: &vs });
        let mut d = Vec::new();
        let Some(b) = Brackets::new(&toks, &mut d) else { return (None, d, toks) };
        let arms = parse_metadirective(&toks, 1, &b, &lookup, &mut d);
        (arms, d, toks)
    }

    #[test]
    fn listing3() {
        let (arms, d, t) = parse(
            "metadirective when(user={adaptation(by_len==cpu)} : parallel for) \
             when(user={adaptation(by_len==gpu)} : target teams distribute parallel for map(to: A[0:N]))",
        );
        assert!(d.is_empty(), "{d:?}");
        let arms = arms.unwrap();
        assert_eq!(arms.len(), 2);
        assert_eq!(arms[0].cond, Some(vec![CondPiece::Text("V == 0".into())]));
        assert_eq!(arms[1].cond, Some(vec![CondPiece::Text("V == 1".into())]));
        let text: Vec<String> = arms[1].directive.pieces.iter().map(|r| spell(&t[r.clone()])).collect();
        assert_eq!(text.join(" "), "target teams distribute parallel for map(to: A[0:N])");
    }

    #[test]
    fn relops_default_and_condition() {
        let (arms, d, _) = parse(
            "metadirective otherwise(parallel for) when(user={adaptation(!(by_len >= gpu) && by_len != gpu)}: parallel for) \
             when(user={condition(N > 4)}: simd)",
        );
        assert!(d.is_empty(), "{d:?}");
        let arms = arms.unwrap();
        assert_eq!(arms[0].cond, Some(vec![CondPiece::Text("(!((V >= 1))) && (V != 1)".into())]));
        assert!(matches!(arms[1].cond.as_ref().unwrap()[0], CondPiece::User(_)));
        assert!(arms[2].cond.is_none(), "the default arm comes last");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("metadirective when(user={{adaptation({}by_len==cpu{})}}: parallel)", "(".repeat(20_000), ")".repeat(20_000));
        let (arms, d, _) = parse(&deep);
        assert!(arms.is_none());
        assert!(d[0].message.starts_with("brackets nested too deeply"), "{:?}", d[0]);
        let ok = format!("metadirective when(user={{adaptation({}by_len==cpu{})}}: parallel)", "(".repeat(200), ")".repeat(200));
        assert!(parse(&ok).0.is_some());
        let negations = format!("metadirective when(user={{adaptation({}by_len==cpu)}}: parallel)", "!".repeat(100_001));
        assert_eq!(parse(&negations).0.unwrap()[0].cond, Some(vec![CondPiece::Text("!(V == 0)".into())]));
        // 100,000 chained terms: linear time.
        let terms = vec!["by_len == gpu"; 100_000].join(" || ");
        let t = std::time::Instant::now();
        let arms = parse(&format!("metadirective when(user={{adaptation({terms})}}: parallel)")).0.unwrap();
        assert!(t.elapsed().as_secs() < 5);
        let CondPiece::Text(c) = &arms[0].cond.as_ref().unwrap()[0] else { panic!() };
        assert!(c.starts_with("(V == 1) || (V == 1) ||"));
    }

    #[test]
    fn selector_errors() {
        for (src, msg, tok) in [
            ("metadirective when(user={adaptation(by_len==tpu)}: parallel for)", "'tpu' is not a variant of model 'by_len'", 10),
            ("metadirective when(user={adaptation(other==cpu)}: parallel for)", "no adaptation region named 'other' is open here", 8),
            ("metadirective when(user={adaptation(by_len=cpu)}: parallel for)", "expected one of ==, !=, <, <=, >, >= after the model name", 9),
            ("metadirective when(device={kind(gpu)}: parallel for) when(user={adaptation(by_len==cpu)}: simd)", "the 'device' selector set cannot be combined with adaptation selectors: a metadirective using 'adaptation' is decided at run time", 3),
            ("metadirective when(user={adaptation(by_len==cpu)} : parallel when)", "'when' is not a clause of the directive variant 'parallel'", 15),
            ("metadirective when(user={adaptation(() variants(x, y))}: parallel)", "expected '<model> <relop> <variant>', e.g. adaptation(by_len == gpu)", 9),
        ] {
            let (arms, d, _) = parse(src);
            assert!(arms.is_none(), "{src}");
            assert_eq!((d[0].message.as_str(), d[0].tok), (msg, tok), "{src}");
        }
    }
}
