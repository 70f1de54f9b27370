//! Where the statement after a directive ends. The plugin lexes ahead one token at a time
//! and asks [`StatementScanner::feed`] what to do with each: keep it, keep it and stop, or
//! give it back and stop. A `}` or the end of the file where a statement should start is
//! given back (the statement is missing); so is the token read past `if (...) S` that is not
//! `else`. Iterative: no recursion however deeply statements nest.
//!
//! The grammar is C's and C++'s statement structure, as far as it decides where a statement
//! ends: compound statements, `if`/`else` (also `if constexpr`, `if !consteval`), `for`,
//! `while`, `switch`, `do ... while (...);`, `try`/`catch`, OpenMP directives (followed by
//! their statement unless standalone or declarative), other pragmas (a prefix), and
//! expression or declaration statements up to their `;`.

use crate::directive_variant::has_statement;
use crate::token::{Tok, TokKind};

/// What to do with a token fed to the scanner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Part of the statement; feed the next one.
    Take,
    /// The statement's last token.
    TakeAndStop,
    /// Not part of the statement, which ended before it: give it back.
    GiveBack,
}

/// What is being read.
#[derive(Clone, Debug, PartialEq)]
enum Mode {
    /// The first token of a statement.
    Start,
    /// After `if`: `constexpr`, `!`, or the condition's `(`.
    IfHead,
    /// After `if !`: `consteval`.
    IfNot,
    /// `(` expected (after `for`, `while`, `switch`, `catch`, `if ...`), then `then`.
    Open(After),
    /// Inside parentheses, `depth` deep, then `then`.
    Parens(u32, After),
    /// Inside a compound statement's braces, `depth` deep, then `then`.
    Braces(u32, After),
    /// An expression statement: up to `;` outside brackets.
    Simple(i32),
    /// An OpenMP directive's tokens, up to its end annotation.
    Directive(Vec<Tok>),
    /// `{` expected (after `try` or a handler's `(...)`).
    TryBlock,
    /// After a try block or handler: `catch` continues the statement.
    Handlers,
    /// After `do S`: `while`.
    DoWhile,
    /// After `do S while (...)`: `;`.
    DoSemi,
    /// After `if (...) S`: `else` continues the statement.
    Else,
}

/// What follows a parenthesised or braced group.
#[derive(Clone, Copy, Debug, PartialEq)]
enum After {
    /// A statement (the body of `if`, `for`, `while`, `switch`).
    Body,
    /// The statement is complete (a compound statement).
    Done,
    /// A handler's block (`catch (...)`).
    HandlerBlock,
    /// The try statement's next handler.
    MoreHandlers,
    /// `;` after `do ... while (...)`.
    DoSemi,
}

/// Statements waiting for their body to complete.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pending {
    /// `if (...) S`: an `else` may follow.
    Else,
    /// `do S`: `while (...);` follows.
    DoWhile,
}

/// Scans one statement, token by token.
#[derive(Debug)]
pub struct StatementScanner {
    mode: Mode,
    pending: Vec<Pending>,
    taken: usize,
}

impl Default for StatementScanner {
    fn default() -> Self {
        StatementScanner { mode: Mode::Start, pending: Vec::new(), taken: 0 }
    }
}

impl StatementScanner {
    /// A scanner before the statement's first token.
    pub fn new() -> StatementScanner {
        StatementScanner::default()
    }

    /// Whether no token was taken: the statement is missing.
    pub fn is_empty(&self) -> bool {
        self.taken == 0
    }

    /// Decides about the next token `t` (never the end of the file: the plugin handles that).
    pub fn feed(&mut self, t: &Tok) -> Step {
        let step = self.step(t);
        if step != Step::GiveBack {
            self.taken += 1;
        }
        step
    }

    fn step(&mut self, t: &Tok) -> Step {
        let p = |s: &str| t.is_punct(s);
        let w = |s: &str| t.is_ident(s);
        match std::mem::replace(&mut self.mode, Mode::Start) {
            Mode::Start => self.start(t),
            Mode::IfHead => self.if_head(t),
            Mode::IfNot => {
                if w("consteval") {
                    self.mode = Mode::Braces(0, After::Done);
                    Step::Take
                } else {
                    self.open(t, After::Body)
                }
            }
            Mode::Open(then) => self.open(t, then),
            Mode::Parens(depth, then) => self.in_parens(t, depth, then),
            Mode::Braces(depth, then) => self.in_braces(t, depth, then),
            Mode::Simple(depth) => self.in_simple(t, depth),
            Mode::Directive(toks) => self.in_directive(t, toks),
            Mode::TryBlock => self.continues_if(t, p("{"), Mode::Braces(1, After::MoreHandlers)),
            Mode::Handlers => self.continues_if(t, w("catch"), Mode::Open(After::HandlerBlock)),
            Mode::DoWhile => self.continues_if(t, w("while"), Mode::Open(After::DoSemi)),
            Mode::DoSemi => {
                if p(";") {
                    self.completed()
                } else {
                    self.end_before(t)
                }
            }
            // the else branch completes the `if`
            Mode::Else => self.continues_if(t, w("else"), Mode::Start),
        }
    }

    /// `t` continues the statement (read on in `next`) when `continues`; else the statement
    /// ended before it.
    fn continues_if(&mut self, t: &Tok, continues: bool, next: Mode) -> Step {
        if continues {
            self.mode = next;
            Step::Take
        } else {
            self.end_before(t)
        }
    }

    /// After `if`: `constexpr`, `!`, `consteval`, or the condition's `(`.
    fn if_head(&mut self, t: &Tok) -> Step {
        if t.is_ident("constexpr") {
            self.mode = Mode::Open(After::Body);
            Step::Take
        } else if t.is_punct("!") {
            self.mode = Mode::IfNot;
            Step::Take
        } else if t.is_ident("consteval") {
            self.complete_with(Mode::Braces(0, After::Done), Step::Take)
        } else {
            self.open(t, After::Body)
        }
    }

    /// Inside parentheses, `depth` deep.
    fn in_parens(&mut self, t: &Tok, depth: u32, then: After) -> Step {
        let depth = depth_after(t, ("(", ")"), depth);
        if depth == 0 {
            return self.after(then);
        }
        self.mode = Mode::Parens(depth, then);
        Step::Take
    }

    /// Inside a compound statement's braces, `depth` deep.
    fn in_braces(&mut self, t: &Tok, depth: u32, then: After) -> Step {
        // depth 0: the `{` is still to come (if consteval)
        if depth == 0 {
            if !t.is_punct("{") {
                return self.end_here();
            }
            self.mode = Mode::Braces(1, then);
            return Step::Take;
        }
        let depth = depth_after(t, ("{", "}"), depth);
        if depth == 0 {
            return self.after(then);
        }
        self.mode = Mode::Braces(depth, then);
        Step::Take
    }

    /// An expression statement, `depth` brackets deep: up to `;` outside brackets.
    fn in_simple(&mut self, t: &Tok, depth: i32) -> Step {
        if t.is_open() {
            self.mode = Mode::Simple(depth + 1);
            return Step::Take;
        }
        if t.is_close() {
            if depth == 0 {
                // closes something outside: the statement lacks its `;` (Clang says so)
                return self.end_before(t);
            }
            self.mode = Mode::Simple(depth - 1);
            return Step::Take;
        }
        if t.is_punct(";") && depth == 0 {
            return self.completed();
        }
        self.mode = Mode::Simple(depth);
        Step::Take
    }

    /// An OpenMP directive's tokens (`toks` so far), up to its end annotation.
    fn in_directive(&mut self, t: &Tok, mut toks: Vec<Tok>) -> Step {
        if t.kind == TokKind::OmpEnd {
            if has_statement(&toks) {
                self.mode = Mode::Start; // its statement follows
                return Step::Take;
            }
            return self.completed();
        }
        toks.push(t.clone());
        self.mode = Mode::Directive(toks);
        Step::Take
    }

    /// The first token of a statement.
    fn start(&mut self, t: &Tok) -> Step {
        if t.is_punct("}") {
            return Step::GiveBack; // no statement here (or a body missing before the brace)
        }
        match t.kind {
            TokKind::OmpBegin => {
                self.mode = Mode::Directive(Vec::new());
                return Step::Take;
            }
            // another pragma's annotation: a prefix of the statement
            TokKind::OtherAnnot | TokKind::OmpEnd => return Step::Take,
            _ => {}
        }
        if t.is_punct("{") {
            self.mode = Mode::Braces(1, After::Done);
            return Step::Take;
        }
        if t.is_punct(";") {
            return self.completed();
        }
        if t.kind == TokKind::Ident {
            match t.text.as_str() {
                "if" => {
                    self.pending.push(Pending::Else);
                    self.mode = Mode::IfHead;
                    return Step::Take;
                }
                "for" | "while" | "switch" => {
                    self.mode = Mode::Open(After::Body);
                    return Step::Take;
                }
                "do" => {
                    self.pending.push(Pending::DoWhile);
                    self.mode = Mode::Start;
                    return Step::Take;
                }
                "try" => {
                    self.mode = Mode::TryBlock;
                    return Step::Take;
                }
                _ => {}
            }
        }
        if t.is_open() {
            self.mode = Mode::Simple(1);
            return Step::Take;
        }
        self.mode = Mode::Simple(0);
        Step::Take
    }

    /// `(` expected, then `then`; anything else: the head is malformed, read it as the body.
    fn open(&mut self, t: &Tok, then: After) -> Step {
        if t.is_punct("(") {
            self.mode = Mode::Parens(1, then);
            return Step::Take;
        }
        match then {
            After::Body => self.start(t),
            _ => self.end_before(t),
        }
    }

    /// The group just closed (its closing token is taken).
    fn after(&mut self, then: After) -> Step {
        match then {
            After::Body => {
                self.mode = Mode::Start;
                Step::Take
            }
            After::Done => self.completed(),
            After::HandlerBlock => {
                self.mode = Mode::TryBlock;
                Step::Take
            }
            After::MoreHandlers => {
                self.mode = Mode::Handlers;
                Step::Take
            }
            After::DoSemi => {
                self.mode = Mode::DoSemi;
                Step::Take
            }
        }
    }

    /// `mode` then `step` (for a `consteval` that still expects its block).
    fn complete_with(&mut self, mode: Mode, step: Step) -> Step {
        self.mode = mode;
        step
    }

    /// A statement is complete with the token just taken: finish what it was the body of.
    fn completed(&mut self) -> Step {
        match self.pending.last() {
            None => Step::TakeAndStop,
            Some(Pending::Else) => {
                self.pending.pop();
                self.mode = Mode::Else;
                Step::Take
            }
            Some(Pending::DoWhile) => {
                self.pending.pop();
                self.mode = Mode::DoWhile;
                Step::Take
            }
        }
    }

    /// The statement ended before `t`: the statements waiting for more get `t` in turn (a
    /// loop, not recursion: an `if` may wait inside 100000 others).
    fn end_before(&mut self, t: &Tok) -> Step {
        loop {
            match self.pending.pop() {
                None => return Step::GiveBack,
                Some(Pending::Else) if t.is_ident("else") => {
                    self.mode = Mode::Start; // the else branch completes the `if`
                    return Step::Take;
                }
                Some(Pending::DoWhile) if t.is_ident("while") => {
                    self.mode = Mode::Open(After::DoSemi);
                    return Step::Take;
                }
                Some(_) => {}
            }
        }
    }

    /// A block that should have started here did not: the statement ends before this token.
    fn end_here(&mut self) -> Step {
        self.pending.clear();
        Step::GiveBack
    }
}

/// The nesting `depth` after token `t`: one deeper at `open`, one less at `close`.
fn depth_after(t: &Tok, (open, close): (&str, &str), depth: u32) -> u32 {
    if t.is_punct(open) {
        depth + 1
    } else if t.is_punct(close) {
        depth - 1
    } else {
        depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::{lex, spell};

    /// The statement at the start of `src`, and the token given back after it (if any).
    fn scan(src: &str) -> (String, Option<String>) {
        let toks = lex(src);
        let mut s = StatementScanner::new();
        for (i, t) in toks.iter().enumerate() {
            match s.feed(t) {
                Step::Take => {}
                Step::TakeAndStop => return (spell(&toks[..=i]), None),
                Step::GiveBack => return (spell(&toks[..i]), Some(t.text.clone())),
            }
        }
        (spell(&toks), None)
    }

    #[test]
    fn statements_end_where_c_says() {
        for (src, stmt, back) in [
            ("x = f(a, b); y;", "x = f(a, b);", None),
            ("{ a; { b; } } c;", "{ a; { b; } }", None),
            ("for (i = 0; i < n; ++i) a[i] = i; z;", "for (i = 0; i < n; ++i) a[i] = i;", None),
            ("if (a) b; else c; d;", "if (a) b; else c;", None),
            ("if (a) b; d;", "if (a) b;", Some("d")),
            ("if (a) if (b) c; else d; e;", "if (a) if (b) c; else d;", Some("e")),
            ("if (a) b; else if (c) d; else { e; } f;", "if (a) b; else if (c) d; else { e; }", None),
            ("do { a; } while (b); c;", "do { a; } while (b);", None),
            ("do if (a) b; while (c); d;", "do if (a) b; while (c);", None),
            ("while (a) { if (b) break; } c;", "while (a) { if (b) break; }", None),
            ("try { a; } catch (int e) { b; } catch (...) { c; } d;", "try { a; } catch (int e) { b; } catch (...) { c; }", Some("d")),
            ("if constexpr (N > 1) a; else b; c;", "if constexpr (N > 1) a; else b;", None),
            ("if consteval { a; } else { b; } c;", "if consteval { a; } else { b; }", None),
            ("switch (x) { case 1: a; } b;", "switch (x) { case 1: a; }", None),
            ("auto f = [&](int k) { return k; }; g;", "auto f = [&](int k) { return k; };", None),
            ("x = ({ int t = 1; t; }); y;", "x = ({ int t = 1; t; });", None),
            ("; x;", ";", None),
            ("}", "", Some("}")),
            ("a = b }", "a = b", Some("}")),
            ("if (a) }", "if (a)", Some("}")),
        ] {
            assert_eq!(scan(src), (stmt.to_string(), back.map(String::from)), "{src}");
        }
    }

    #[test]
    fn directives_take_their_statement() {
        let begin = Tok::new(TokKind::OmpBegin, "");
        let end = Tok::new(TokKind::OmpEnd, "");
        let mut toks = vec![begin.clone()];
        toks.extend(lex("parallel for"));
        toks.push(end.clone());
        toks.extend(lex("for (;;) x; y;"));
        let mut s = StatementScanner::new();
        let n = toks.iter().take_while(|t| s.feed(t) == Step::Take).count();
        assert_eq!(spell(&toks[4..=n]), "for (;;) x;");
        // A standalone directive is the whole statement.
        let mut toks = vec![begin];
        toks.extend(lex("target update to(a)"));
        toks.push(end);
        toks.extend(lex("y;"));
        let mut s = StatementScanner::new();
        let n = toks.iter().take_while(|t| s.feed(t) == Step::Take).count();
        assert_eq!(n, 7, "the end annotation ends it");
    }

    #[test]
    fn deep_nesting_needs_no_recursion() {
        let src = "if (a) ".repeat(100_000) + "x; y;";
        let (stmt, back) = scan(&src);
        assert!(stmt.ends_with("x;"));
        assert_eq!(back.as_deref(), Some("y"));
    }
}
