//! What the compiler needs to know, from tokens, about the statement after an adaptation
//! directive: which OpenMP construct it is (directive words and clauses), the canonical loop it
//! carries, and which variables its body may write.
//!
//! The write analysis is conservative: a name may be written unless every use reads it
//! (`x`, `x[i]` on the right of an assignment, never `&x`, a call argument, `x->f`, ...).

use crate::brackets::Brackets;
use crate::token::{Tok, TokKind};
use std::ops::Range;

/// Words that make up an OpenMP directive name.
const DIRECTIVE_WORDS: [&str; 14] =
    ["target", "teams", "distribute", "parallel", "for", "simd", "loop", "data", "enter", "exit", "update", "sections", "masked", "master"];

/// One clause of a directive in the statement.
#[derive(Clone, Debug, PartialEq)]
pub struct ClauseRef {
    /// The clause's name.
    pub name: String,
    /// Index of the clause's name token.
    pub at: usize,
    /// Tokens between its parentheses.
    pub args: Option<Range<usize>>,
}

impl ClauseRef {
    /// The whole clause, name to closing parenthesis.
    pub fn span(&self) -> Range<usize> {
        self.at..self.args.as_ref().map_or(self.at + 1, |a| a.end + 1)
    }
}

/// The OpenMP construct a statement starts with.
#[derive(Clone, Debug)]
pub struct Construct {
    /// The directive name's words (`["target", "teams", "distribute"]`).
    pub words: Vec<String>,
    /// Range of the words (after the `OmpBegin` token).
    pub words_range: Range<usize>,
    /// The clauses after the words, up to `end`.
    pub clauses: Vec<ClauseRef>,
    /// Index of the directive's `OmpEnd` token.
    pub end: usize,
    /// The associated statement.
    pub body: Range<usize>,
    /// The bracket pairs of the whole statement (directive and body).
    pub brackets: Brackets,
}

impl Construct {
    /// Whether the directive name is exactly `words`.
    pub fn is(&self, words: &[&str]) -> bool {
        self.words.iter().map(String::as_str).eq(words.iter().copied())
    }
    /// Whether the directive name's first word is `w`.
    pub fn starts_with(&self, w: &str) -> bool {
        self.words.first().is_some_and(|x| x == w)
    }
    /// Whether `w` is one of the directive name's words.
    pub fn has_word(&self, w: &str) -> bool {
        self.words.iter().any(|x| x == w)
    }
    /// The first clause called `name`.
    pub fn clause(&self, name: &str) -> Option<&ClauseRef> {
        self.clauses.iter().find(|c| c.name == name)
    }
    /// An offloading target construct (not `target data`, `enter data`, `exit data`, `update`).
    pub fn offloads(&self) -> bool {
        self.starts_with("target") && !["data", "enter", "exit", "update"].iter().any(|w| self.words.get(1).is_some_and(|x| x == w))
    }
    /// A combined construct whose loop is the associated statement (`target teams distribute
    /// parallel for`, `target parallel for`, with or without `simd`).
    pub fn is_target_loop(&self) -> bool {
        let w: Vec<&str> = self.words.iter().map(String::as_str).collect();
        let w = w.strip_suffix(&["simd"]).unwrap_or(&w);
        matches!(
            w,
            ["target", "teams", "distribute", "parallel", "for"] | ["target", "parallel", "for"] | ["target", "teams", "distribute"]
        )
    }
    /// A host worksharing loop that forks its own team: `parallel for [simd]`.
    pub fn is_parallel_for(&self) -> bool {
        self.is(&["parallel", "for"]) || self.is(&["parallel", "for", "simd"])
    }
    /// A host `parallel` region that is not a worksharing construct: only its team size can
    /// change (`parallel`, or `parallel loop`, whose schedule is the compiler's).
    pub fn is_parallel_region(&self) -> bool {
        self.is(&["parallel"]) || self.is(&["parallel", "loop"])
    }
    /// Teams are created by this construct (or, for a bare `target`, possibly by one nested in
    /// it): `num_teams` applies.
    pub fn may_have_teams(&self) -> bool {
        self.has_word("teams") || self.is(&["target"])
    }
}

/// Reads the construct at the start of `stmt` (`OmpBegin words clauses OmpEnd body`).
pub fn construct(stmt: &[Tok]) -> Option<Construct> {
    if stmt.first()?.kind != TokKind::OmpBegin {
        return None;
    }
    let end = stmt.iter().position(|t| t.kind == TokKind::OmpEnd)?;
    let brackets = Brackets::new(stmt, &mut Vec::new())?;
    let mut i = 1;
    let mut words = Vec::new();
    while i < end && DIRECTIVE_WORDS.iter().any(|w| stmt[i].is_ident(w)) && !stmt.get(i + 1).is_some_and(|t| t.is_punct("(")) {
        words.push(stmt[i].text.clone());
        i += 1;
    }
    let words_range = 1..i;
    let mut clauses = Vec::new();
    while i < end {
        let t = &stmt[i];
        if t.is_punct(",") {
            i += 1;
            continue;
        }
        if t.kind != TokKind::Ident {
            i += 1;
            continue;
        }
        let args = if stmt.get(i + 1).is_some_and(|n| n.is_punct("(")) { brackets.close_of(i + 1).map(|c| i + 2..c) } else { None };
        let next = args.as_ref().map_or(i + 1, |a| a.end + 1);
        clauses.push(ClauseRef { name: t.text.clone(), at: i, args });
        i = next;
    }
    Some(Construct { words, words_range, clauses, end, body: end + 1..stmt.len(), brackets })
}

/// A map clause item: its tokens, the variable it maps, and the clause's map type.
#[derive(Clone, Debug, PartialEq)]
pub struct MapItem {
    /// The item's tokens.
    pub range: Range<usize>,
    /// The item's first identifier: the variable (or array) it maps.
    pub base: String,
    /// The map type (`to`, `from`, `alloc`, ...): `tofrom` when the clause names none.
    pub map_type: String,
}

/// The items of every `map(...)` clause in `toks[range]` (a directive's clauses).
pub fn map_items(toks: &[Tok], range: Range<usize>, brackets: &Brackets) -> Vec<MapItem> {
    let mut out = Vec::new();
    let mut i = range.start;
    while i < range.end {
        if !(toks[i].is_ident("map") && toks.get(i + 1).is_some_and(|t| t.is_punct("("))) {
            i += 1;
            continue;
        }
        let Some(close) = brackets.close_of(i + 1) else { break };
        let args = i + 2..close;
        // `[modifiers,] type :` ends at the first top-level ':' (array sections' ':' are inside
        // brackets).
        let mut list_start = args.start;
        let mut map_type = "tofrom".to_string();
        let mut j = args.start;
        while j < args.end {
            if let Some(c) = brackets.close_of(j) {
                j = c + 1;
                continue;
            }
            if toks[j].is_punct(":") {
                list_start = j + 1;
                if let Some(t) = toks[args.start..j].iter().rev().find(|t| t.kind == TokKind::Ident) {
                    map_type = t.text.clone();
                }
                break;
            }
            j += 1;
        }
        for item in crate::clauses::split_top_level(toks, list_start..args.end, brackets) {
            if let Some(base) = toks[item.clone()].iter().find(|t| t.kind == TokKind::Ident) {
                out.push(MapItem { range: item.clone(), base: base.text.clone(), map_type: map_type.clone() });
            }
        }
        i = close + 1;
    }
    out
}

/// Assignment operators (not `==`, `<=`, `>=`, `!=`).
fn is_assignment(t: &Tok) -> bool {
    t.kind == TokKind::Punct && matches!(t.text.as_str(), "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=")
}

/// Whether `name` may be written (or its address escape) in `toks[range]`.
pub fn may_write(toks: &[Tok], range: Range<usize>, brackets: &Brackets, name: &str) -> bool {
    for i in range.clone() {
        if !toks[i].is_ident(name) {
            continue;
        }
        // A member of something else (`s.name`) is not this variable.
        if i > range.start && (toks[i - 1].is_punct(".") || toks[i - 1].is_punct("->")) {
            continue;
        }
        if i > range.start && ["++", "--", "&"].iter().any(|p| toks[i - 1].is_punct(p)) {
            return true;
        }
        // Past every subscript.
        let mut j = i + 1;
        while j < range.end && toks[j].is_punct("[") {
            match brackets.close_of(j) {
                Some(c) => j = c + 1,
                None => return true,
            }
        }
        let Some(next) = toks.get(j).filter(|_| j < range.end) else { return true };
        if is_assignment(next) || next.is_punct("++") || next.is_punct("--") {
            return true;
        }
        let subscripted = j > i + 1;
        // Reads: an operand of an expression. A pointer passed on (`f(x)`, `y = x`), a member
        // access or a declaration may write through it.
        let reading = next.kind == TokKind::Punct
            && matches!(
                next.text.as_str(),
                "+" | "-"
                    | "*"
                    | "/"
                    | "%"
                    | "<"
                    | ">"
                    | "<="
                    | ">="
                    | "=="
                    | "!="
                    | "&&"
                    | "||"
                    | ";"
                    | "?"
                    | ":"
                    | "&"
                    | "|"
                    | "^"
                    | "<<"
                    | ">>"
            )
            || (subscripted && (next.is_punct(",") || next.is_punct(")")));
        if !reading {
            return true;
        }
    }
    false
}

/// Whether `name` occurs in `toks[range]` at all.
pub fn mentions(toks: &[Tok], range: Range<usize>, name: &str) -> bool {
    toks[range].iter().any(|t| t.is_ident(name))
}

/// A canonical loop `for (init; var < / <= bound; ++var | var++ | var += 1 | var = var + 1) body`.
#[derive(Clone, Debug)]
pub struct CanonicalLoop {
    /// The `for` token.
    pub at: usize,
    /// The loop variable.
    pub var: String,
    /// The type tokens of a declaration in `init` (empty: the variable is declared outside).
    pub var_type: Range<usize>,
    /// The lower bound's tokens (the initializer of the loop variable).
    pub lower: Range<usize>,
    /// The upper bound's tokens (the right-hand side of the condition).
    pub upper: Range<usize>,
    /// The condition is `<=` (`upper` is included), not `<`.
    pub inclusive: bool,
    /// The loop's body statement.
    pub body: Range<usize>,
}

/// Reads the canonical loop starting at `at`; None when it is not one the split handles.
pub fn canonical_loop(toks: &[Tok], at: usize, end: usize, brackets: &Brackets) -> Option<CanonicalLoop> {
    if !toks.get(at)?.is_ident("for") || !toks.get(at + 1)?.is_punct("(") {
        return None;
    }
    let close = brackets.close_of(at + 1)?;
    let head = at + 2..close;
    let semis: Vec<usize> = head.clone().filter(|&i| toks[i].is_punct(";") && depth_zero(toks, head.start, i, brackets)).collect();
    let [s1, s2] = semis[..] else { return None };
    // init: [type...] var = lower
    let eq = (head.start..s1).find(|&i| toks[i].is_punct("="))?;
    if eq == head.start || toks[eq - 1].kind != TokKind::Ident {
        return None;
    }
    let var = toks[eq - 1].text.clone();
    let var_type = head.start..eq - 1;
    if var_type.clone().any(|i| toks[i].is_punct(",")) {
        return None;
    }
    let lower = eq + 1..s1;
    // cond: var < upper | var <= upper
    if !toks.get(s1 + 1)?.is_ident(&var) {
        return None;
    }
    let op = toks.get(s1 + 2)?;
    let inclusive = match op.text.as_str() {
        "<" if op.kind == TokKind::Punct => false,
        "<=" if op.kind == TokKind::Punct => true,
        _ => return None,
    };
    let upper = s1 + 3..s2;
    if upper.is_empty() || lower.is_empty() {
        return None;
    }
    // incr
    let inc: Vec<&str> = toks[s2 + 1..close].iter().map(|t| t.text.as_str()).collect();
    let v = var.as_str();
    let unit = matches!(inc[..], ["++", x] | [x, "++"] if x == v)
        || matches!(inc[..], [x, "+=", "1"] if x == v)
        || matches!(inc[..], [x, "=", y, "+", "1"] if x == v && y == v);
    if !unit {
        return None;
    }
    Some(CanonicalLoop { at, var, var_type, lower, upper, inclusive, body: close + 1..end })
}

fn depth_zero(toks: &[Tok], from: usize, at: usize, brackets: &Brackets) -> bool {
    let mut i = from;
    while i < at {
        if let Some(c) = brackets.close_of(i) {
            if c > at {
                return false;
            }
            i = c + 1;
            continue;
        }
        i += 1;
    }
    let _ = toks;
    true
}

/// Every subscript `name[...]` in `toks[range]` is exactly `name[var]`, and `name` occurs
/// only subscripted.
pub fn indexed_only_by(toks: &[Tok], range: Range<usize>, brackets: &Brackets, name: &str, var: &str) -> bool {
    let mut seen = false;
    for i in range.clone() {
        if !toks[i].is_ident(name) || (i > range.start && (toks[i - 1].is_punct(".") || toks[i - 1].is_punct("->"))) {
            continue;
        }
        let ok = toks.get(i + 1).is_some_and(|t| t.is_punct("["))
            && toks.get(i + 2).is_some_and(|t| t.is_ident(var))
            && brackets.close_of(i + 1) == Some(i + 3)
            && !toks.get(i + 4).is_some_and(|t| t.is_punct("["));
        if !ok {
            return false;
        }
        seen = true;
    }
    seen
}

/// Names declared in `toks[range]` (an identifier directly after a type-like identifier or
/// `*`, followed by `=`, `;`, `,` or `[`): locals of the loop body.
pub fn declared_names(toks: &[Tok], range: Range<usize>) -> Vec<String> {
    let mut out = Vec::new();
    for i in range.clone() {
        if i == range.start || toks[i].kind != TokKind::Ident {
            continue;
        }
        let prev = &toks[i - 1];
        let typed = prev.kind == TokKind::Ident || (prev.is_punct("*") && i >= 2 && toks[i - 2].kind == TokKind::Ident);
        let next_ok = toks.get(i + 1).is_some_and(|t| ["=", ";", ",", "["].iter().any(|p| t.is_punct(p)));
        if typed && next_ok && !["return", "case", "goto"].contains(&prev.text.as_str()) {
            out.push(toks[i].text.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    fn stmt(directive: &str, body: &str) -> Vec<Tok> {
        let mut t = vec![Tok::new(TokKind::OmpBegin, "")];
        t.extend(lex(directive));
        t.push(Tok::new(TokKind::OmpEnd, ""));
        t.extend(lex(body));
        t
    }

    #[test]
    fn reads_a_combined_construct() {
        let s = stmt("target teams distribute parallel for map(to: a[0:n]) nowait", "for (int i = 0; i < n; ++i) c[i] = a[i];");
        let c = construct(&s).unwrap();
        assert!(c.is_target_loop() && c.offloads());
        assert_eq!(c.clauses.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["map", "nowait"]);
        let items = map_items(&s, c.words_range.end..c.end, &c.brackets);
        assert_eq!(items.len(), 1);
        assert_eq!((items[0].base.as_str(), items[0].map_type.as_str()), ("a", "to"));
        let l = canonical_loop(&s, c.body.start, s.len(), &c.brackets).unwrap();
        assert_eq!(l.var, "i");
        assert!(may_write(&s, l.body.clone(), &c.brackets, "c"));
        assert!(!may_write(&s, l.body.clone(), &c.brackets, "a"));
        assert!(indexed_only_by(&s, l.body.clone(), &c.brackets, "c", "i"));
    }

    #[test]
    fn writes_are_found_conservatively() {
        let s = lex("{ u[i] += 1; f(v); w[i][j] = 0; x = y[i-1] + z[i]; ++k; g(q[i], r[i]); }");
        let b = Brackets::new(&s, &mut Vec::new()).unwrap();
        let r = 0..s.len();
        for w in ["u", "v", "w", "x", "k"] {
            assert!(may_write(&s, r.clone(), &b, w), "{w}");
        }
        for n in ["y", "z", "q", "r", "absent"] {
            assert!(!may_write(&s, r.clone(), &b, n), "{n}");
        }
    }
}

/// The first clause of `c` that hands the kernel device memory directly (`is_device_ptr`,
/// `has_device_addr`): the host version of such a construct would dereference device addresses.
pub fn device_memory_clause(c: &Construct) -> Option<&'static str> {
    ["is_device_ptr", "has_device_addr"].into_iter().find(|n| c.clause(n).is_some())
}
