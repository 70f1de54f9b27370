//! Directive variants of a metadirective (`when(selector : <directive variant>)`), checked
//! before the plugin hands them to Clang as `#pragma omp <directive variant>`: Clang 19 loops
//! forever on some clauses in a directive that does not take them (`#pragma omp parallel when`
//! never terminates in stock clang), so those are rejected here with a located error.

use crate::brackets::Brackets;
use crate::diag::{Diagnostic, Diags};
use crate::token::{Tok, TokKind};
use std::ops::Range;

/// Words that make up OpenMP directive names (clang 19's OMP.td).
const DIRECTIVE_WORDS: [&str; 43] = [
    "allocate",
    "allocators",
    "assumes",
    "atomic",
    "barrier",
    "cancel",
    "cancellation",
    "critical",
    "data",
    "depobj",
    "dispatch",
    "distribute",
    "do",
    "enter",
    "error",
    "exit",
    "flush",
    "for",
    "interchange",
    "interop",
    "loop",
    "masked",
    "master",
    "nothing",
    "ordered",
    "parallel",
    "point",
    "scan",
    "scope",
    "section",
    "sections",
    "simd",
    "single",
    "target",
    "task",
    "taskgroup",
    "taskloop",
    "taskwait",
    "taskyield",
    "teams",
    "tile",
    "unroll",
    "update",
];

/// Directive names a directive variant cannot start with (declarative directives, nested
/// metadirectives, ompadapt's own directives).
const NOT_VARIANTS: [&str; 7] = ["declare", "begin", "end", "requires", "threadprivate", "metadirective", "adaptation"];

/// Clauses on which clang 19 makes no progress when the directive does not accept them: the
/// parser reports the clause and then sees it again, forever (checked against every directive).
const CLANG_LOOPS_ON: [&str; 9] =
    ["adjust_args", "append_args", "cancellation_construct_type", "inbranch", "indirect", "link", "memory_order", "notinbranch", "when"];

/// The `when` clause of a directive other than `metadirective` (`#pragma omp for when(...)`),
/// at the top level of its clauses: clang 19 reports it and then sees it again, forever, so
/// such a directive must not reach clang's parser. Quiet on unbalanced brackets (clang
/// reports those itself).
pub fn stray_when(toks: &[Tok]) -> Option<usize> {
    let meta = |i: usize| toks.get(i).is_some_and(|t| t.is_ident("metadirective"));
    if meta(0) || (toks.first().is_some_and(|t| t.is_ident("begin")) && meta(1)) {
        return None;
    }
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        if t.is_punct("(") || t.is_punct("[") || t.is_punct("{") {
            depth += 1;
        } else if t.is_punct(")") || t.is_punct("]") || t.is_punct("}") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && t.is_ident("when") && toks.get(i + 1).is_some_and(|n| n.is_punct("(")) {
            return Some(i);
        }
    }
    None
}

/// Directives without an associated statement.
pub fn is_standalone(words: &[&str]) -> bool {
    match words {
        ["target", "enter" | "exit" | "update", ..] => true,
        [w, ..] => ["barrier", "taskwait", "taskyield", "flush", "depobj", "scan", "cancel", "cancellation", "error", "interop", "nothing"]
            .contains(w),
        [] => false,
    }
}

/// Whether the OpenMP directive `toks` (the tokens after `omp`) is followed by an associated
/// statement: not for standalone directives (`barrier`, `target update`, `ordered depend(...)`)
/// nor declarative ones (`declare simd`, `threadprivate(x)`, `allocate(x)`).
pub fn has_statement(toks: &[Tok]) -> bool {
    let words: Vec<&str> = toks.iter().take(3).take_while(|t| t.kind == TokKind::Ident).map(|t| t.text.as_str()).collect();
    let declarative = matches!(words.first(), Some(&("declare" | "threadprivate" | "requires" | "assumes" | "begin" | "end" | "allocate")));
    let ordered_standalone = words.first() == Some(&"ordered") && toks.iter().any(|t| t.is_ident("depend") || t.is_ident("doacross"));
    !(declarative || ordered_standalone || is_standalone(&words))
}

/// A checked directive variant: its tokens in the order to emit them (name words first).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DirectiveVariant {
    /// The token ranges to emit, in order.
    pub pieces: Vec<Range<usize>>,
    /// The directive name's words (`["target", "enter", "data"]`); empty: no directive.
    pub words: Vec<String>,
}

impl DirectiveVariant {
    /// Whether the directive has no associated statement (`target enter data`, `barrier`, ...).
    pub fn is_standalone(&self) -> bool {
        let w: Vec<&str> = self.words.iter().map(String::as_str).collect();
        is_standalone(&w)
    }
}

/// The first word of a directive variant names a directive that can be one (else an error).
fn check_directive_name(toks: &[Tok], i: usize, diags: &mut Diags) -> Option<()> {
    let first = &toks[i];
    if first.kind != TokKind::Ident {
        diags.push(Diagnostic::error(i, i + 1, "expected an OpenMP directive name in this directive variant"));
        return None;
    }
    if NOT_VARIANTS.contains(&first.text.as_str()) {
        diags.push(Diagnostic::error(i, i + 1, format!("'{}' cannot be a directive variant of a metadirective", first.text)));
        return None;
    }
    if !DIRECTIVE_WORDS.contains(&first.text.as_str()) {
        diags.push(Diagnostic::error(i, i + 1, format!("'{}' is not an OpenMP directive", first.text)));
        return None;
    }
    Some(())
}

/// The directive name words from `rest.start` on (after clauses), with a warning that they
/// are read as part of the name.
fn name_words_after_clauses(toks: &[Tok], rest: Range<usize>, diags: &mut Diags) -> Range<usize> {
    let i = rest.start;
    let mut end = i + 1;
    while end < rest.end
        && toks[end].kind == TokKind::Ident
        && DIRECTIVE_WORDS.contains(&toks[end].text.as_str())
        && !toks.get(end + 1).is_some_and(|p| p.is_punct("("))
    {
        end += 1;
    }
    let moved: Vec<&str> = toks[i..end].iter().map(|t| t.text.as_str()).collect();
    diags.push(Diagnostic::warning(
        i,
        end,
        format!("'{}' follows the clauses of this directive variant; read as part of its name", moved.join(" ")),
    ));
    i..end
}

/// Checks the directive variant `toks[range]`. The paper's Listing 3 writes
/// `target map(...) map(...) teams distribute parallel for`: Clang would read a `target` with
/// clauses and drop the rest, losing the parallel loop, so name words after clauses are moved in
/// front of them, with a warning.
pub fn parse(toks: &[Tok], range: Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Option<DirectiveVariant> {
    let mut words: Vec<Range<usize>> = Vec::new();
    let mut clauses: Vec<Range<usize>> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut i = range.start;
    if i < range.end {
        check_directive_name(toks, i, diags)?;
        // The first word names the directive, with its own argument if it takes one
        // (`critical(name)`, `flush(list)`, `depobj(o)`).
        names.push(toks[i].text.clone());
        words.push(i..i + 1);
        i += 1;
        if i < range.end && toks[i].is_punct("(") {
            let close = brackets.close_of(i).filter(|&c| c < range.end)?;
            words.push(i..close + 1);
            i = close + 1;
        }
    }
    while i < range.end {
        let t = &toks[i];
        if t.is_punct(",") && !clauses.is_empty() {
            i += 1;
            continue;
        }
        if t.kind != TokKind::Ident {
            diags.push(Diagnostic::error(i, i + 1, "expected an OpenMP clause in this directive variant"));
            return None;
        }
        let next_is_paren = i + 1 < range.end && toks[i + 1].is_punct("(");
        if CLANG_LOOPS_ON.contains(&t.text.as_str()) {
            let end = if next_is_paren { brackets.close_of(i + 1).map_or(i + 1, |c| c + 1) } else { i + 1 };
            diags.push(Diagnostic::error(i, end, format!("'{}' is not a clause of the directive variant '{}'", t.text, names.join(" "))));
            return None;
        }
        if next_is_paren {
            let close = brackets.close_of(i + 1).filter(|&c| c < range.end)?;
            clauses.push(i..close + 1);
            i = close + 1;
            continue;
        }
        if DIRECTIVE_WORDS.contains(&t.text.as_str()) && (!clauses.is_empty() || words.last().is_some_and(|w| w.end == i)) {
            if !clauses.is_empty() {
                let moved = name_words_after_clauses(toks, i..range.end, diags);
                names.extend(toks[moved.clone()].iter().map(|t| t.text.clone()));
                i = moved.end;
                words.push(moved);
                continue;
            }
            names.push(t.text.clone());
            words.push(i..i + 1);
        } else {
            clauses.push(i..i + 1); // a clause without arguments, e.g. nowait
        }
        i += 1;
    }
    words.extend(clauses);
    Some(DirectiveVariant { pieces: words, words: names })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::{lex, spell};

    fn check(src: &str) -> (Option<DirectiveVariant>, Diags, Vec<Tok>) {
        let t = lex(src);
        let mut d = Vec::new();
        let b = Brackets::new(&t, &mut d).unwrap();
        (parse(&t, 0..t.len(), &b, &mut d), d, t)
    }

    #[test]
    fn words_after_clauses_move_in_front() {
        let (v, d, t) = check("target map(to: A[0:N]) map(from: C[0:N]) teams distribute parallel for");
        assert_eq!(d.len(), 1);
        let v = v.unwrap();
        let text: Vec<String> = v.pieces.iter().map(|r| spell(&t[r.clone()])).collect();
        assert_eq!(text, ["target", "teams distribute parallel for", "map(to: A[0:N])", "map(from: C[0:N])"]);
        assert_eq!(v.words, ["target", "teams", "distribute", "parallel", "for"]);
    }

    #[test]
    fn standalone_directives() {
        assert!(check("target enter data map(to: a[0:n])").0.unwrap().is_standalone());
        assert!(check("taskwait").0.unwrap().is_standalone());
        assert!(!check("parallel for").0.unwrap().is_standalone());
        assert!(!check("").0.unwrap().is_standalone());
        // `for` after `parallel ... private(x)` clauses is still a name word; `nowait` a clause.
        assert_eq!(check("parallel for nowait").0.unwrap().words, ["parallel", "for"]);
        let v = check("depobj(o) update(in)").0.unwrap();
        assert!(v.is_standalone());
        assert_eq!(v.pieces, vec![0..1, 1..4, 4..8]);
    }

    #[test]
    fn directives_with_statements() {
        for (src, want) in [
            ("parallel for", true),
            ("target teams", true),
            ("ordered", true),
            ("target update to(a)", false),
            ("ordered depend(sink: i - 1)", false),
            ("declare simd", false),
            ("threadprivate(x)", false),
            ("barrier", false),
            ("cancellation point for", false),
            ("", true),
        ] {
            assert_eq!(has_statement(&lex(src)), want, "{src}");
        }
    }

    #[test]
    fn clauses_clang_loops_on_are_rejected() {
        for (src, msg, at) in [
            ("parallel when", "'when' is not a clause of the directive variant 'parallel'", 1),
            ("parallel for when(user={condition(1)}: simd)", "'when' is not a clause of the directive variant 'parallel for'", 2),
            ("simd notinbranch", "'notinbranch' is not a clause of the directive variant 'simd'", 1),
            ("metadirective when(x: y)", "'metadirective' cannot be a directive variant of a metadirective", 0),
            ("frobnicate", "'frobnicate' is not an OpenMP directive", 0),
            ("parallel 3", "expected an OpenMP clause in this directive variant", 1),
        ] {
            let (v, d, _) = check(src);
            assert!(v.is_none(), "{src}");
            assert_eq!((d[0].message.as_str(), d[0].tok), (msg, at), "{src}");
        }
    }
}
