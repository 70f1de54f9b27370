//! The worksharing loops of a region's construct, as the frontend sees them, for `features(auto)`:
//! the pass computes one trip count per loop and names it after these loop variables.
//!
//! The format between the plugin and the pass is the contract crate's [`LoopNames`] (`"i,j;k"`).
//! A loop is the associated loop of each `for`, `distribute` or `loop`
//! construct: the first construct of the statement (a combined `distribute parallel for` is one
//! loop) and the constructs nested in its associated statement.

use crate::brackets::Brackets;
use crate::kernel_scan::construct;
use crate::statement::{StatementScanner, Step};
use crate::token::{Tok, TokKind};
use ompadapt_abi::LoopNames;
use std::ops::Range;

/// Directive words that make a construct a loop-associated worksharing construct.
const LOOP_WORDS: [&str; 3] = ["for", "distribute", "loop"];

/// The loops of the first OpenMP construct in `stmt`; None when `stmt` has none.
pub fn loops_of(stmt: &[Tok]) -> Option<LoopNames> {
    let first = stmt.iter().position(|t| t.kind == TokKind::OmpBegin)?;
    let brackets = Brackets::new(stmt, &mut Vec::new())?;
    let directive_end = |at: usize| (at..stmt.len()).find(|&i| stmt[i].kind == TokKind::OmpEnd);
    let first_end = directive_end(first)?;
    let extent_end = statement_end(stmt, first_end + 1);
    let mut loops: Vec<Vec<String>> = Vec::new();
    let mut at = first;
    // The first construct, then every construct nested in its statement, in source order.
    while at < extent_end {
        if stmt[at].kind != TokKind::OmpBegin {
            at += 1;
            continue;
        }
        let Some(end) = directive_end(at) else { break };
        if let Some(c) = construct(&stmt[at..=end]) {
            if c.words.iter().any(|w| LOOP_WORDS.contains(&w.as_str())) {
                let depth = collapse_depth(&stmt[at..=end]);
                loops.push(nest_vars(stmt, end + 1, depth, &brackets, loops.len() + 1));
            }
        }
        at = end + 1;
    }
    Some(LoopNames { loops })
}

/// Where the statement starting at `from` ends (exclusive).
fn statement_end(stmt: &[Tok], from: usize) -> usize {
    let mut s = StatementScanner::new();
    for (i, t) in stmt.iter().enumerate().skip(from) {
        match s.feed(t) {
            Step::Take => {}
            Step::TakeAndStop => return i + 1,
            Step::GiveBack => return i,
        }
    }
    stmt.len()
}

/// `collapse(n)` on a directive's tokens (1 without it, or when n is not a literal).
fn collapse_depth(directive: &[Tok]) -> usize {
    directive
        .windows(4)
        .find(|w| w[0].is_ident("collapse") && w[1].is_punct("(") && w[3].is_punct(")"))
        .and_then(|w| w[2].text.parse::<usize>().ok())
        .filter(|n| (1..=16).contains(n))
        .unwrap_or(1)
}

/// The variables of the `depth` perfectly nested loops starting at `at`. A loop whose variable
/// cannot be told is named `loop<k>` (k: its position among the loops).
fn nest_vars(stmt: &[Tok], mut at: usize, depth: usize, brackets: &Brackets, k: usize) -> Vec<String> {
    let mut vars = Vec::new();
    for _ in 0..depth {
        // Braces around the inner loop of a nest: `for (...) { for (...) ... }`.
        while stmt.get(at).is_some_and(|t| t.is_punct("{")) {
            at += 1;
        }
        let Some(head) = for_head(stmt, at, brackets) else { break };
        vars.push(loop_var(stmt, head.clone(), brackets).unwrap_or_else(|| format!("loop{k}")));
        at = head.end + 1;
    }
    if vars.is_empty() {
        vars.push(format!("loop{k}"));
    }
    vars
}

/// The tokens between the parentheses of `for (...)` at `at`.
fn for_head(stmt: &[Tok], at: usize, brackets: &Brackets) -> Option<Range<usize>> {
    if !stmt.get(at)?.is_ident("for") || !stmt.get(at + 1)?.is_punct("(") {
        return None;
    }
    Some(at + 2..brackets.close_of(at + 1)?)
}

/// The loop variable: the name assigned first in the init (`int i = 0`, `i = 0`, `size_t i(0)`
/// is not read), the name before a range-for's `:`, else the first name of the condition.
fn loop_var(stmt: &[Tok], head: Range<usize>, brackets: &Brackets) -> Option<String> {
    let mut i = head.start;
    let mut semis = Vec::new();
    while i < head.end {
        if let Some(c) = brackets.close_of(i) {
            i = c + 1;
            continue;
        }
        let t = &stmt[i];
        if (t.is_punct("=") || t.is_punct(":")) && semis.is_empty() && i > head.start && stmt[i - 1].kind == TokKind::Ident {
            return Some(stmt[i - 1].text.clone());
        }
        if t.is_punct(";") {
            semis.push(i);
        }
        i += 1;
    }
    let cond = semis.first()? + 1..semis.get(1).copied().unwrap_or(head.end);
    stmt[cond].iter().find(|t| t.kind == TokKind::Ident && !is_keyword(&t.text)).map(|t| t.text.clone())
}

fn is_keyword(w: &str) -> bool {
    matches!(w, "sizeof" | "int" | "long" | "unsigned" | "const" | "static_cast" | "size_t")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    /// `#pragma omp X` lines become OmpBegin X OmpEnd.
    fn stmt(src: &str) -> Vec<Tok> {
        let mut out = Vec::new();
        for line in src.split('\n') {
            match line.trim().strip_prefix("#pragma omp ") {
                Some(d) => {
                    out.push(Tok::new(TokKind::OmpBegin, ""));
                    out.extend(lex(d));
                    out.push(Tok::new(TokKind::OmpEnd, ""));
                }
                None => out.extend(lex(line)),
            }
        }
        out
    }

    #[test]
    fn combined_collapsed_and_nested_loops() {
        let cases = [
            ("#pragma omp target teams distribute parallel for map(a)\nfor (int i = 0; i < n; ++i) a[i] = 0;", "i"),
            (
                "#pragma omp target teams distribute parallel for collapse(2)\nfor (int i = 0; i < n; ++i)\n for (j = 0; j < m; j++) a[i][j] = 0;",
                "i,j",
            ),
            (
                "#pragma omp target teams distribute collapse(2)\nfor (long i = 0; i < n; ++i) { for (long j = 0; j < m; ++j) {\n#pragma omp parallel for\nfor (int k = 0; k < 4; ++k) x += k; } }",
                "i,j;k",
            ),
            ("#pragma omp target\n{\n#pragma omp teams distribute parallel for\nfor (i = 0; i < n; i++) a[i] = 0;\n#pragma omp parallel for reduction(+:s)\nfor (int q = 0; q < n; q++) s += a[q]; }", "i;q"),
            ("#pragma omp target map(tofrom: x)\nx = 1;", ""),
            ("#pragma omp target parallel for\nfor (auto &e : v) e = 0;", "e"),
            ("#pragma omp target teams loop\nfor (; i < n; ++i) a[i] = 0;", "i"),
        ];
        for (src, want) in cases {
            assert_eq!(loops_of(&stmt(src)).map(|l| l.to_string()).as_deref(), Some(want), "{src}");
        }
        assert_eq!(loops_of(&lex("for (int i = 0; i < n; ++i) a[i] = 0;")), None);
        // The constructs after the first one's statement are not its loops.
        assert_eq!(
            loops_of(&stmt("{\n#pragma omp target teams distribute parallel for\nfor (int i = 0; i < n; ++i) a[i] = 0;\n#pragma omp parallel for\nfor (int j = 0; j < n; ++j) b[j] = 0; }")).map(|l| l.to_string()).as_deref(),
            Some("i")
        );
    }
}
