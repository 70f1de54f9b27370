//! The clauses of a `metadirective`: `when(selector : directive-variant)`, `default(...)` and
//! `otherwise(...)`, in the order written, each directive variant checked.

use crate::brackets::Brackets;
use crate::clauses::scan_clauses;
use crate::diag::{Diagnostic, Diags};
use crate::directive_variant::{self, DirectiveVariant};
use crate::token::Tok;
use std::ops::Range;

/// One clause of a metadirective: a `when` with its selector, or the default.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// The context selector of a `when` clause; None for `default`/`otherwise`.
    pub selector: Option<Range<usize>>,
    /// The directive variant the clause selects.
    pub variant: DirectiveVariant,
    /// The clause's name token.
    pub at: usize,
}

/// Parses the clauses after `metadirective` (which is `toks[start - 1]`).
pub fn parse_arms(toks: &[Tok], start: usize, brackets: &Brackets, diags: &mut Diags) -> Option<Vec<Arm>> {
    let clauses = scan_clauses(toks, start, brackets, "metadirective", diags)?;
    let mut arms = Vec::with_capacity(clauses.len());
    let mut default_at: Option<usize> = None;
    for c in clauses {
        if !matches!(c.name.as_str(), "when" | "default" | "otherwise") {
            diags.push(Diagnostic::error(c.at, c.at + 1, "expected 'when', 'default' or 'otherwise' clause in 'metadirective'"));
            return None;
        }
        let Some(args) = c.args.clone() else {
            diags.push(Diagnostic::error(c.at + 1, c.at + 1, format!("expected '(' after '{}'", c.name)));
            return None;
        };
        if c.name == "when" {
            let Some(colon) = top_level_colon(toks, args.clone(), brackets) else {
                diags.push(Diagnostic::error(c.at, args.end + 1, "expected ':' between the context selector and the directive variant"));
                return None;
            };
            let variant = directive_variant::parse(toks, colon + 1..args.end, brackets, diags)?;
            arms.push(Arm { selector: Some(args.start..colon), variant, at: c.at });
        } else {
            if let Some(prev) = default_at {
                diags.push(Diagnostic::error(c.at, c.at + 1, "'metadirective' takes one 'default'/'otherwise' clause"));
                diags.push(Diagnostic::note(prev, prev + 1, "previous clause is here"));
                return None;
            }
            default_at = Some(c.at);
            let variant = directive_variant::parse(toks, args, brackets, diags)?;
            arms.push(Arm { selector: None, variant, at: c.at });
        }
    }
    if arms.is_empty() {
        let at = start.saturating_sub(1);
        diags.push(Diagnostic::error(at, at + 1, "'metadirective' needs at least one 'when' or 'default' clause"));
        return None;
    }
    Some(arms)
}

/// The first ':' in `toks[r]` outside nested brackets.
fn top_level_colon(toks: &[Tok], r: Range<usize>, brackets: &Brackets) -> Option<usize> {
    let mut i = r.start;
    while i < r.end {
        if let Some(c) = brackets.close_of(i) {
            i = c + 1;
            continue;
        }
        if toks[i].is_punct(":") {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Whether a metadirective has no associated statement: every variant is a standalone directive.
pub fn is_standalone(arms: &[Arm]) -> bool {
    arms.iter().all(|a| a.variant.is_standalone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    fn arms(src: &str) -> (Option<Vec<Arm>>, Diags) {
        let t = lex(src);
        let mut d = Vec::new();
        let b = Brackets::new(&t, &mut d).unwrap();
        (parse_arms(&t, 1, &b, &mut d), d)
    }

    #[test]
    fn declare_adaptation_figure_6() {
        let (a, d) = arms(
            "metadirective when (:) when (:parallel for) \
             default(target teams distribute parallel for map (to:a[0:m]) map(tofrom: H[0:asz]))",
        );
        assert!(d.is_empty(), "{d:?}");
        let a = a.unwrap();
        assert_eq!(a.len(), 3);
        assert!(a[0].variant.words.is_empty());
        assert_eq!(a[1].variant.words, ["parallel", "for"]);
        assert!(a[2].selector.is_none());
        assert!(!is_standalone(&a));
        let (a, _) = arms("metadirective when(: target enter data map(to:a[0:m]))");
        assert!(is_standalone(&a.unwrap()));
    }

    #[test]
    fn errors() {
        for (src, msg) in [
            ("metadirective when(parallel)", "expected ':' between the context selector and the directive variant"),
            ("metadirective default(simd) otherwise(simd)", "'metadirective' takes one 'default'/'otherwise' clause"),
            ("metadirective foo(x)", "expected 'when', 'default' or 'otherwise' clause in 'metadirective'"),
            ("metadirective", "'metadirective' needs at least one 'when' or 'default' clause"),
            ("metadirective when", "expected '(' after 'when'"),
        ] {
            let (a, d) = arms(src);
            assert!(a.is_none(), "{src}");
            assert_eq!(d[0].message, msg, "{src}");
        }
    }
}
