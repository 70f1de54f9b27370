//! One translation unit's worth of directive handling: which adaptation regions are open,
//! and what each `#pragma omp` line becomes.

use crate::clauses::{parse_clauses, Clauses, ADAPTATION_CLAUSES};
use crate::diag::{Diagnostic, Diags, Severity};
use crate::lower;
use crate::selector::{self, Arm, CondPiece, ModelRef};
use crate::token::{Tok, TokKind};
use crate::variants::VariantSet;
use std::ops::Range;

/// A piece of the token stream that replaces a directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// C source text, lexed by the plugin; its tokens get the directive's location.
    Text(String),
    /// C source text whose tokens get the location of directive token `.1` (the clause it
    /// implements), so that Clang's errors on it point at that clause.
    TextAt(String, usize),
    /// Tokens of the directive itself (user expressions keep their source locations).
    User(Range<usize>),
    /// `annot_pragma_openmp`: starts an OpenMP directive handed to Clang's parser.
    OmpBegin,
    /// `annot_pragma_openmp_end`.
    OmpEnd,
    /// A copy of the statement that follows the directive.
    Statement,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Not an adaptation directive: hand the line to Clang's OpenMP parser unchanged.
    NotOurs,
    /// Replace the directive by these pieces.
    Emit(Vec<Piece>),
    /// The lowering needs the statement that follows: collect it and call `on_statement`.
    NeedStatement,
}

/// Where a directive stands, as the plugin knows it.
#[derive(Clone, Debug, Default)]
pub struct PragmaContext {
    /// `file:line` of the directive, recorded in the region descriptor.
    pub location: String,
    /// Identifies the innermost enclosing `{...}` block (0 = file scope).
    pub block: u64,
    /// Opaque source location of the directive, returned in `unclosed_regions`.
    pub loc_cookie: u64,
}

#[derive(Clone, Debug)]
struct OpenRegion {
    model: String,
    id: u32,
    /// None when the directive had errors: kept so that its `end` and selectors don't cascade.
    variants: Option<VariantSet>,
    /// Opened by `begin adaptation` (closed by `end`), not by a single `adaptation`.
    begin_end: bool,
    block: u64,
    location: String,
    loc_cookie: u64,
}

enum Pending {
    /// Single `adaptation` directive: region already open.
    Region { pieces: Vec<Piece>, id: u32, model: String, cpu_index: Option<usize> },
    Metadirective(Vec<Arm>),
    /// Erroneous directive: emit the statement unchanged.
    Plain,
}

#[derive(Default)]
pub struct Session {
    open: Vec<OpenRegion>,
    pending: Vec<Pending>,
    next_id: u32,
    /// The compilation offloads (-fopenmp-targets): target constructs have a launch the pass can
    /// dispatch. Without it there is nothing to dispatch, so no marker is emitted.
    offload: bool,
}

/// Names for the directive in messages.
const BEGIN: &str = "begin adaptation";
const END: &str = "end adaptation";
const SINGLE: &str = "adaptation";

impl Session {
    pub fn new(offload: bool) -> Session {
        Session { offload, ..Session::default() }
    }

    /// Handles the tokens of one `#pragma omp` line (everything after `omp`).
    pub fn on_pragma(&mut self, toks: &[Tok], ctx: &PragmaContext) -> (Outcome, Diags) {
        let word = |i: usize, w: &str| toks.get(i).is_some_and(|t| t.is_ident(w));
        let mut diags = Vec::new();
        let outcome = if word(0, "begin") && word(1, "adaptation") {
            self.begin(toks, ctx, &mut diags)
        } else if word(0, "end") && word(1, "adaptation") {
            self.end(toks, ctx, &mut diags)
        } else if word(0, "adaptation") {
            self.single(toks, ctx, &mut diags)
        } else if word(0, "declare") && word(1, "adaptation") {
            diags.push(Diagnostic::error(0, 2, "'declare adaptation' is not supported yet"));
            Outcome::Emit(vec![])
        } else if word(0, "metadirective") && selector::uses_adaptation(toks) {
            self.metadirective(toks, &mut diags)
        } else {
            Outcome::NotOurs
        };
        (outcome, diags)
    }

    /// Completes a directive that returned `NeedStatement`; `stmt` are the statement's tokens.
    pub fn on_statement(&mut self, stmt: &[Tok]) -> Vec<Piece> {
        match self.pending.pop() {
            Some(Pending::Region { mut pieces, id, model, cpu_index }) => {
                self.open.pop();
                if let Some(cpu) = cpu_index.filter(|_| starts_with_target_construct(stmt)) {
                    pieces.push(lower::offload_site(id, cpu, &model));
                }
                pieces.push(Piece::Statement);
                pieces.push(lower::end_region(id));
                pieces.push(Piece::Text("}".into()));
                pieces
            }
            Some(Pending::Metadirective(arms)) => metadirective_chain(&arms),
            Some(Pending::Plain) | None => vec![Piece::Statement],
        }
    }

    /// Regions opened by `begin adaptation` and never closed: (model, loc_cookie).
    pub fn unclosed_regions(&self) -> Vec<(String, u64)> {
        self.open.iter().filter(|r| r.begin_end).map(|r| (r.model.clone(), r.loc_cookie)).collect()
    }

    fn check_clauses(&self, toks: &[Tok], start: usize, directive: &str, ctx: &PragmaContext, diags: &mut Diags) -> Clauses {
        let before = diags.len();
        let c = parse_clauses(toks, start, directive, &ADAPTATION_CLAUSES, diags);
        if diags[before..].iter().any(|d| d.severity == Severity::Error) {
            return c;
        }
        if c.model_name.is_none() {
            diags.push(Diagnostic::error(0, start, format!("'{directive}' requires a 'model_name' clause")));
        }
        if c.variants.is_none() && !toks[start..].iter().any(|t| t.is_ident("variants")) {
            diags.push(Diagnostic::error(0, start, format!("'{directive}' requires a 'variants' clause")));
        }
        if ctx.block == 0 {
            diags.push(Diagnostic::error(0, start, format!("'{directive}' must appear inside a function body")));
        }
        c
    }

    fn open_region(&mut self, c: &Clauses, ok: bool, begin_end: bool, ctx: &PragmaContext) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        self.open.push(OpenRegion {
            model: c.model_name.as_ref().map(|m| m.0.clone()).unwrap_or_default(),
            id,
            variants: if ok { c.variants.clone() } else { None },
            begin_end,
            block: ctx.block,
            location: ctx.location.clone(),
            loc_cookie: ctx.loc_cookie,
        });
        id
    }

    fn begin(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let before = diags.len();
        let c = self.check_clauses(toks, 2, BEGIN, ctx, diags);
        let ok = !has_error(&diags[before..]);
        let id = self.open_region(&c, ok, true, ctx);
        if !ok {
            return Outcome::Emit(vec![]);
        }
        let variants = c.variants.as_ref().expect("checked");
        Outcome::Emit(lower::begin_region(id, toks, &c, variants, &ctx.location))
    }

    fn end(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let before = diags.len();
        let c = parse_clauses(toks, 2, END, &["model_name"], diags);
        if has_error(&diags[before..]) {
            return Outcome::Emit(vec![]);
        }
        let Some(top) = self.open.last() else {
            diags.push(Diagnostic::error(0, 2, "'end adaptation' without a matching 'begin adaptation'"));
            return Outcome::Emit(vec![]);
        };
        if !top.begin_end {
            diags.push(Diagnostic::error(0, 2, format!(
                "'end adaptation' inside the structured block of the 'adaptation' directive for '{}'",
                top.model
            )));
            return Outcome::Emit(vec![]);
        }
        if let Some((name, at)) = &c.model_name {
            if *name != top.model {
                diags.push(Diagnostic::error(*at, *at + 1, format!(
                    "'end adaptation' names '{name}' but the innermost open adaptation region is '{}'",
                    top.model
                )));
                diags.push(Diagnostic::note(*at, *at + 1, format!("'{}' was opened at {}", top.model, top.location)));
                return Outcome::Emit(vec![]);
            }
        }
        if top.block != ctx.block {
            diags.push(Diagnostic::error(0, 2, format!(
                "'end adaptation' must be in the same block as the 'begin adaptation' of '{}' ({})",
                top.model, top.location
            )));
            self.open.pop();
            return Outcome::Emit(vec![]);
        }
        let top = self.open.pop().expect("checked");
        if top.variants.is_none() {
            return Outcome::Emit(vec![]); // its begin had errors, already reported
        }
        Outcome::Emit(vec![lower::end_region(top.id)])
    }

    fn single(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let before = diags.len();
        let c = self.check_clauses(toks, 1, SINGLE, ctx, diags);
        let ok = !has_error(&diags[before..]);
        let id = self.open_region(&c, ok, false, ctx);
        if !ok {
            self.open.pop();
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        }
        let variants = c.variants.as_ref().expect("checked");
        let cpu_index = (!variants.numeric && self.offload).then(|| variants.index_of_name("cpu")).flatten();
        let mut pieces = vec![Piece::Text("{".into())];
        pieces.extend(lower::begin_region(id, toks, &c, variants, &ctx.location));
        let model = c.model_name.expect("checked").0;
        self.pending.push(Pending::Region { pieces, id, model, cpu_index });
        Outcome::NeedStatement
    }

    fn metadirective(&mut self, toks: &[Tok], diags: &mut Diags) -> Outcome {
        let open = &self.open;
        let lookup = |name: &str| -> Option<ModelRef<'_>> {
            let r = open.iter().rev().find(|r| r.model == name)?;
            Some(ModelRef { variant_expr: format!("{}.variant", lower::ctx_var(r.id)), variants: r.variants.as_ref()? })
        };
        // A region whose directive had errors: accept any selector on it silently.
        if let Some(bad) = toks.iter().find(|t| open.iter().any(|r| r.model == t.text && r.variants.is_none())) {
            let _ = bad;
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        }
        match selector::parse_metadirective(toks, 1, &lookup, diags) {
            Some(arms) => self.pending.push(Pending::Metadirective(arms)),
            None => self.pending.push(Pending::Plain),
        }
        Outcome::NeedStatement
    }
}

fn has_error(d: &[Diagnostic]) -> bool {
    d.iter().any(|d| d.severity == Severity::Error)
}

/// `if (c1) { #pragma omp v1 \n stmt } else if (c2) { ... } else { [default] stmt }`
fn metadirective_chain(arms: &[Arm]) -> Vec<Piece> {
    let mut p = Vec::new();
    let mut has_default = false;
    for (i, arm) in arms.iter().enumerate() {
        match &arm.cond {
            Some(cond) => {
                p.push(Piece::Text(if i == 0 { "if (" } else { "else if (" }.into()));
                for c in cond {
                    p.push(match c {
                        CondPiece::Text(t) => Piece::Text(t.clone()),
                        CondPiece::User(r) => Piece::User(r.clone()),
                    });
                }
                p.push(Piece::Text(") {".into()));
            }
            None => {
                has_default = true;
                p.push(Piece::Text(if i == 0 { "{" } else { "else {" }.into()));
            }
        }
        if !arm.directive.is_empty() {
            p.push(Piece::OmpBegin);
            p.extend(arm.directive.iter().map(|r| Piece::User(r.clone())));
            p.push(Piece::OmpEnd);
        }
        p.push(Piece::Statement);
        p.push(Piece::Text("}".into()));
    }
    if !has_default {
        p.push(Piece::Text("else {".into()));
        p.push(Piece::Statement);
        p.push(Piece::Text("}".into()));
    }
    p
}

/// Whether a statement is an offloading `target` construct (not `target data`, `enter data`,
/// `exit data` or `update`, which launch nothing).
fn starts_with_target_construct(stmt: &[Tok]) -> bool {
    stmt.first().is_some_and(|t| t.kind == TokKind::OmpBegin)
        && stmt.get(1).is_some_and(|t| t.is_ident("target"))
        && !stmt.get(2).is_some_and(|t| ["data", "enter", "exit", "update"].iter().any(|w| t.is_ident(w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    fn ctx() -> PragmaContext {
        PragmaContext { location: "t.c:1".into(), block: 7, loc_cookie: 1 }
    }

    fn texts(p: &[Piece]) -> String {
        p.iter()
            .map(|p| match p {
                Piece::Text(t) | Piece::TextAt(t, _) => t.clone(),
                Piece::User(r) => format!("<{}..{}>", r.start, r.end),
                Piece::OmpBegin => "#omp[".into(),
                Piece::OmpEnd => "]".into(),
                Piece::Statement => "STMT".into(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn not_ours() {
        let mut s = Session::new(true);
        for src in ["parallel for", "target teams", "metadirective when(user={condition(1)}: parallel)"] {
            assert_eq!(s.on_pragma(&lex(src), &ctx()).0, Outcome::NotOurs);
        }
    }

    #[test]
    fn begin_metadirective_end() {
        let mut s = Session::new(true);
        let (o, d) = s.on_pragma(&lex("begin adaptation model_name(by_len) features(N) variants(cpu, gpu)"), &ctx());
        assert!(d.is_empty());
        let Outcome::Emit(p) = o else { panic!() };
        let t = texts(&p);
        assert!(t.contains("__ompadapt_api()->begin(&__ompadapt_h1"), "{t}");
        assert!(t.contains("model=by_len;loc=t.c:1;features=N;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto"), "{t}");
        let (o, d) = s.on_pragma(
            &lex("metadirective when(user={adaptation(by_len==cpu)}: parallel for) when(user={adaptation(by_len==gpu)}: target teams distribute parallel for)"),
            &ctx(),
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(o, Outcome::NeedStatement);
        let t = texts(&s.on_statement(&lex("for(;;);")));
        assert_eq!(t, "if ( __ompadapt_c1.variant == 0 ) { #omp[ <14..15> <15..16> ] STMT } else if ( __ompadapt_c1.variant == 1 ) { #omp[ <30..31> <31..32> <32..33> <33..34> <34..35> ] STMT } else { STMT }");
        let (o, d) = s.on_pragma(&lex("end adaptation model_name(by_len)"), &ctx());
        assert!(d.is_empty());
        assert_eq!(o, Outcome::Emit(vec![Piece::Text("__ompadapt_api()->end(&__ompadapt_c1);".into())]));
        assert!(s.unclosed_regions().is_empty());
    }

    #[test]
    fn single_form_before_target_gets_offload_site() {
        let mut s = Session::new(true);
        let (o, _) = s.on_pragma(&lex("adaptation model_name(m) features(N) variants(cpu, gpu)"), &ctx());
        assert_eq!(o, Outcome::NeedStatement);
        let stmt = vec![Tok::new(TokKind::OmpBegin, ""), Tok::new(TokKind::Ident, "target")];
        let t = texts(&s.on_statement(&stmt));
        assert!(t.contains("__ompadapt_offload_site(__ompadapt_c1.variant == 0, \"m\"); STMT __ompadapt_api()->end(&__ompadapt_c1); }"), "{t}");
        // A region over something else gets no marker.
        s.on_pragma(&lex("adaptation model_name(m) variants(cpu, gpu)"), &ctx());
        assert!(!texts(&s.on_statement(&lex("f();"))).contains("offload_site"));
    }

    #[test]
    fn structural_errors() {
        let mut s = Session::new(true);
        let (_, d) = s.on_pragma(&lex("end adaptation"), &ctx());
        assert_eq!(d[0].message, "'end adaptation' without a matching 'begin adaptation'");
        let (_, d) = s.on_pragma(&lex("begin adaptation features(N) variants(a)"), &ctx());
        assert_eq!(d[0].message, "'begin adaptation' requires a 'model_name' clause");
        // The erroneous begin still opens a region, so its end does not cascade.
        let (_, d) = s.on_pragma(&lex("end adaptation"), &ctx());
        assert!(d.is_empty(), "{d:?}");
        s.on_pragma(&lex("begin adaptation model_name(a) variants(x, y)"), &ctx());
        let (_, d) = s.on_pragma(&lex("end adaptation model_name(b)"), &ctx());
        assert_eq!(d[0].message, "'end adaptation' names 'b' but the innermost open adaptation region is 'a'");
        assert_eq!(d[0].tok, 4);
        assert_eq!(s.unclosed_regions(), vec![("a".to_string(), 1)]);
        let outside = PragmaContext { block: 0, ..ctx() };
        let (_, d) = Session::new(true).on_pragma(&lex("begin adaptation model_name(a) variants(x)"), &outside);
        assert_eq!(d[0].message, "'begin adaptation' must appear inside a function body");
    }
}
