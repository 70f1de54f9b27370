//! Bracket matching over a directive's tokens, computed once (O(n)) so that every later lookup
//! of a closing bracket is O(1), and so that unbalanced or too deeply nested brackets are
//! reported once, at the right token, before anything else looks at the directive.

use crate::diag::{Diagnostic, Diags};
use crate::limits::MAX_NESTING;
use crate::token::Tok;

/// For each token that opens a bracket, the index of the token that closes it.
#[derive(Clone, Debug, Default)]
pub struct Brackets {
    close: Vec<u32>,
}

const NONE: u32 = u32::MAX;

fn closer_of(open: &str) -> &'static str {
    match open {
        "(" => ")",
        "[" => "]",
        _ => "}",
    }
}

impl Brackets {
    /// Matches the brackets of `toks`. On unbalanced or too deep brackets, reports the first
    /// problem and returns None.
    pub fn new(toks: &[Tok], diags: &mut Diags) -> Option<Brackets> {
        let mut close = vec![NONE; toks.len()];
        let mut open: Vec<usize> = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            if t.is_open() {
                if open.len() == MAX_NESTING {
                    diags.push(Diagnostic::error(
                        i,
                        i + 1,
                        format!("brackets nested too deeply in this directive (at most {MAX_NESTING} levels)"),
                    ));
                    return None;
                }
                open.push(i);
            } else if t.is_close() {
                let Some(&o) = open.last() else {
                    diags.push(Diagnostic::error(i, i + 1, format!("unexpected '{}'", t.text)));
                    return None;
                };
                let want = closer_of(&toks[o].text);
                if t.text != want {
                    diags.push(Diagnostic::error(i, i + 1, format!("expected '{want}'")));
                    diags.push(Diagnostic::note(o, o + 1, format!("to match this '{}'", toks[o].text)));
                    return None;
                }
                open.pop();
                close[o] = i as u32;
            }
        }
        if let Some(&o) = open.last() {
            let n = toks.len();
            diags.push(Diagnostic::error(n, n, format!("expected '{}'", closer_of(&toks[o].text))));
            diags.push(Diagnostic::note(o, o + 1, format!("to match this '{}'", toks[o].text)));
            return None;
        }
        Some(Brackets { close })
    }

    /// The index of the bracket closing the one at `open`, if `open` opens one.
    pub fn close_of(&self, open: usize) -> Option<usize> {
        self.close.get(open).copied().filter(|&c| c != NONE).map(|c| c as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    #[test]
    fn matches_and_reports() {
        let t = lex("a(b[c]{d})e");
        let b = Brackets::new(&t, &mut Vec::new()).unwrap();
        assert_eq!(b.close_of(1), Some(9));
        assert_eq!(b.close_of(3), Some(5));
        assert_eq!(b.close_of(0), None);
        for (src, msg, at) in [("a(b", "expected ')'", 3), ("a)b", "unexpected ')'", 1), ("(]", "expected ')'", 1)] {
            let mut d = Vec::new();
            assert!(Brackets::new(&lex(src), &mut d).is_none());
            assert_eq!((d[0].message.as_str(), d[0].tok), (msg, at), "{src}");
        }
    }

    #[test]
    fn nesting_limit() {
        let deep = "(".repeat(MAX_NESTING + 1) + &")".repeat(MAX_NESTING + 1);
        let mut d = Vec::new();
        assert!(Brackets::new(&lex(&deep), &mut d).is_none());
        assert_eq!(d[0].tok, MAX_NESTING);
        let ok = "(".repeat(MAX_NESTING) + &")".repeat(MAX_NESTING);
        assert!(Brackets::new(&lex(&ok), &mut Vec::new()).is_some());
    }
}
