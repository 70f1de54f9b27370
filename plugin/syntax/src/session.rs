//! One translation unit's worth of directive handling: which adaptation regions are open, which
//! `declare adaptation` waits for its metadirective, which primary regions are known, and what
//! each `#pragma omp` line becomes. This module holds the state and dispatches; its children
//! handle the explicit regions ([`regions`], their statements [`region_body`]),
//! `declare adaptation` ([`declared`]), metadirectives ([`metadirectives`]) and
//! zero-source-change mode ([`zero_source`]).

use crate::auto_mode::AutoMode;
use crate::data_env::{DataDirective, DataEnv};
use crate::declare::DeclareClauses;
use crate::diag::{Diagnostic, Diags};
use crate::directive_variant::DirectiveVariant;
use crate::lower::{self, ChoiceArm, RegionDesc};
use crate::piece::Piece;
use crate::selector;
use crate::token::{Tok, TokKind};
use crate::variants::VariantSet;
use metadirectives::{metadirective_chain, stale_host_copies};
use ompadapt_abi::RegionDescriptor;
use std::collections::{HashMap, HashSet};

/// What the plugin does next with a directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Not an adaptation directive: hand the line to Clang's OpenMP parser unchanged.
    NotOurs,
    /// Replace the directive by these pieces.
    Emit(Vec<Piece>),
    /// The lowering needs the statement that follows: collect it and call `on_statement`.
    NeedStatement,
    /// A `declare adaptation`: emit nothing, lex the next token (the following metadirective is
    /// handled meanwhile), then call `after_next_token`.
    NeedNextToken,
    /// Scan the rest of this file for `declare adaptation` lines (`on_lookahead` for each,
    /// then `lookahead_done`) and hand this directive over again.
    NeedLookahead,
    /// Zero-source-change mode: this ordinary directive starts a construct made adaptive.
    /// Collect the statement after it and call `on_statement` with the directive in front
    /// (`OmpBegin`, its tokens, `OmpEnd`, then the statement), as the statement after an
    /// explicit adaptation directive reads; `Piece::Statement` is then the construct as written.
    NeedConstruct,
}

/// What the plugin does with one directive.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// What becomes of the directive.
    pub outcome: Outcome,
    /// Diagnostics to report, located in the directive or in a saved token list.
    pub diags: Diags,
    /// Keep this directive's tokens as the next saved token list (`Piece::Saved` refers to it).
    pub save: bool,
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
    /// Identifies the file the directive is written in (for looking ahead in it).
    pub file: u64,
    /// Every enclosing block, outermost first (`block` is the last).
    pub open: Vec<u64>,
    /// The enclosing function's name as written (C++: qualified), for the names of regions of
    /// zero-source-change mode; empty outside a function.
    pub function: String,
    /// The directive is the first token of the statement the directive before it reads.
    pub first_in_statement: bool,
    /// The directive is in a template (a function template, a member of a class template, a
    /// generic lambda): each instantiation is a region of its own in zero-source-change mode.
    pub templated: bool,
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
    Region { desc: Box<RegionDesc>, toks: Vec<Tok>, data: Vec<DataDirective>, auto_at: Option<usize> },
    /// Zero-source-change mode: a target construct or host parallel region made adaptive.
    Auto { desc: Box<RegionDesc>, data: Vec<DataDirective> },
    /// Zero-source-change mode: a target construct or parallel region left as written, whose
    /// statement is collected only so that the constructs nested in it know they are.
    Enclosing { what: String, location: String },
    /// A metadirective and the data directives in view (for the stale-copy warning).
    Metadirective(Vec<selector::Arm>, Vec<DataDirective>),
    /// A metadirective under `declare adaptation`: the region's start, and its arms.
    Declared { pieces: Vec<Piece>, id: u32, arms: Vec<(usize, DirectiveVariant)>, bare: bool, data: Vec<DataDirective> },
    /// Erroneous directive: emit the statement unchanged.
    Plain,
}

/// A `declare adaptation` waiting for its metadirective.
struct PendingDeclare {
    /// None when the directive had errors.
    clauses: Option<DeclareClauses>,
    /// Its saved token list.
    saved: u32,
    location: String,
}

/// A primary region (`declare adaptation model_name(...)`) as associated regions see it.
#[derive(Clone, Debug)]
struct Primary {
    /// Its descriptor; None when its variants are not known (found ahead without its
    /// metadirective).
    spec: Option<RegionDescriptor>,
    /// Number of variants, when known.
    nvariants: Option<usize>,
    /// The region without its variants: its name, location, model type and features (their
    /// expressions and what the descriptor says about them).
    region: RegionDesc,
}

/// The directive handling of one translation unit: the plugin feeds it every `#pragma omp`
/// line (and the statements and look-aheads it asks for) in source order.
#[derive(Default)]
pub struct Session {
    open: Vec<OpenRegion>,
    pending: Vec<Pending>,
    next_id: u32,
    /// The compilation offloads (-fopenmp-targets): target constructs have a launch the pass can
    /// dispatch. Without it there is nothing to dispatch, so no marker is emitted.
    offload: bool,
    /// C++ (the lowering of model_output differs).
    cplusplus: bool,
    /// Copies of the saved token lists, by index.
    saved: Vec<Vec<Tok>>,
    declare: Option<PendingDeclare>,
    /// Primary regions lowered so far, by name.
    primaries: HashMap<String, Primary>,
    /// Primary regions found by looking ahead, by name.
    ahead: HashMap<String, Primary>,
    /// Files looked ahead in.
    scanned: HashSet<u64>,
    /// Data directives in view (`target data`, `target enter data`).
    data: DataEnv,
    /// Diagnostics of the last `on_statement`, located in the directive or the statement.
    statement_diags: Diags,
    /// Zero-source-change mode (`-fplugin-arg-ompadapt-auto=<kinds>`).
    auto: Option<AutoMode>,
    /// Depth of `declare target` ... `end declare target` (device code).
    declare_target: u32,
    /// A device compilation (`-fopenmp-is-target-device`): host parallel regions stay as written
    /// (the host compilation adapts them; here they are code a kernel may call).
    device: bool,
}

/// Names for the directive in messages.
const BEGIN: &str = "begin adaptation";
const END: &str = "end adaptation";
const SINGLE: &str = "adaptation";

impl Session {
    /// A session for one translation unit: `offload` when it offloads (`-fopenmp-targets`),
    /// `cplusplus` when it is C++.
    pub fn new(offload: bool, cplusplus: bool) -> Session {
        Session { offload, cplusplus, ..Session::default() }
    }

    /// Turns on zero-source-change mode.
    pub fn set_auto(&mut self, mode: AutoMode) {
        self.auto = Some(mode);
    }

    /// Marks the compilation as one for an offload device.
    pub fn set_device(&mut self) {
        self.device = true;
    }

    /// Handles the tokens of one `#pragma omp` line (everything after `omp`).
    pub fn on_pragma(&mut self, toks: &[Tok], ctx: &PragmaContext) -> Reply {
        let word = |i: usize, w: &str| toks.get(i).is_some_and(|t| t.is_ident(w));
        let mut diags = Vec::new();
        // Governed: the directive that starts an explicit directive's statement (not one in a
        // block that statement opens).
        let governed =
            ctx.first_in_statement && self.pending.last().is_some_and(|p| !matches!(p, Pending::Auto { .. } | Pending::Enclosing { .. }));
        self.data.prune(&ctx.open);
        let is_meta = word(0, "metadirective");
        if !is_meta {
            self.declare_not_followed(&mut diags);
        }
        let mut save = false;
        let outcome = if word(0, "begin") && word(1, "adaptation") {
            self.begin(toks, ctx, &mut diags)
        } else if word(0, "end") && word(1, "adaptation") {
            self.end(toks, ctx, &mut diags)
        } else if word(0, "adaptation") && governed && self.awaits_statement() {
            diags.push(Diagnostic::error(
                0,
                toks.len().min(1),
                "a second adaptation directive on the statement of another: one statement takes one adaptation directive (put this one and its statement in a block of their own, '{ ... }', to nest regions)",
            ));
            self.pending.push(Pending::Plain);
            Outcome::NeedStatement
        } else if word(0, "adaptation") {
            self.single(toks, ctx, &mut diags)
        } else if word(0, "declare") && word(1, "adaptation") {
            let o = self.declare(toks, ctx, &mut diags);
            save = o == Outcome::NeedNextToken;
            o
        } else if is_meta && self.declare.is_some() {
            self.declared_metadirective(toks, ctx, &mut diags)
        } else if is_meta && selector::uses_adaptation(toks) {
            self.metadirective(toks, ctx, &mut diags)
        } else if let Some(at) = crate::directive_variant::stray_when(toks) {
            let name = toks
                .iter()
                .take_while(|t| t.kind == TokKind::Ident && !t.is_ident("when"))
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            diags.push(Diagnostic::error(
                at,
                at + 1,
                format!(
                    "'when' is a clause of 'metadirective', not of '{name}' (clang 19 would loop on it here); the directive is dropped"
                ),
            ));
            Outcome::Emit(vec![])
        } else if let Some(o) = self.auto_construct(toks, ctx, governed, &mut diags) {
            o
        } else {
            self.note_declare_target(toks);
            // A data directive is remembered (its tokens saved) for the regions inside it.
            save = self.data.note(toks, self.saved.len() as u32, ctx.block, &ctx.location);
            Outcome::NotOurs
        };
        if save {
            self.saved.push(toks.to_vec());
        }
        Reply { outcome, diags, save }
    }

    /// Completes a directive that returned `NeedStatement`; `stmt` are the statement's tokens.
    pub fn on_statement(&mut self, stmt: &[Tok]) -> Vec<Piece> {
        self.statement_diags.clear();
        match self.pending.pop() {
            Some(Pending::Region { desc, toks, data, auto_at }) => {
                self.open.pop();
                self.region_statement(*desc, &toks, &data, stmt, auto_at)
            }
            Some(Pending::Auto { desc, data }) => self.auto_statement(*desc, &data, stmt),
            Some(Pending::Metadirective(arms, data)) => {
                let mut diags = Vec::new();
                stale_host_copies(arms.iter().map(|a| &a.directive), &data, &self.saved, stmt, &mut diags);
                self.statement_diags = diags;
                metadirective_chain(&arms)
            }
            Some(Pending::Declared { mut pieces, id, arms, bare, data }) => {
                let mut diags = Vec::new();
                stale_host_copies(arms.iter().map(|(_, d)| d), &data, &self.saved, stmt, &mut diags);
                self.statement_diags = diags;
                let arms: Vec<ChoiceArm> = arms.iter().map(|(v, d)| ChoiceArm { variant: *v, directive: d }).collect();
                pieces.extend(lower::choice(id, &arms, true, bare));
                pieces.push(lower::end_region(id));
                pieces.push(Piece::Text("}".into()));
                pieces
            }
            Some(Pending::Plain | Pending::Enclosing { .. }) | None => vec![Piece::Statement],
        }
    }

    /// Whether an explicit directive waits for its statement (the next pragma is its statement's).
    fn awaits_statement(&self) -> bool {
        matches!(self.pending.last(), Some(Pending::Region { .. } | Pending::Metadirective(..) | Pending::Declared { .. }))
    }

    /// The diagnostics of the last `on_statement` call.
    pub fn take_statement_diags(&mut self) -> Diags {
        std::mem::take(&mut self.statement_diags)
    }

    /// How many token lists have been saved.
    pub fn saved_lists(&self) -> usize {
        self.saved.len()
    }

    /// Keeps the numbering of saved lists in step with the plugin's after a failure.
    pub fn pad_saved_lists(&mut self, n: usize) {
        self.saved.resize_with(n.max(self.saved.len()), Vec::new);
    }

    /// Looking ahead in file `file` is done.
    pub fn lookahead_done(&mut self, file: u64) {
        self.scanned.insert(file);
    }

    /// Regions opened by `begin adaptation` and never closed: (model, loc_cookie).
    pub fn unclosed_regions(&self) -> Vec<(String, u64)> {
        self.open.iter().filter(|r| r.begin_end).map(|r| (r.model.clone(), r.loc_cookie)).collect()
    }
}

mod declared;
mod metadirectives;
mod names;
mod region_body;
mod regions;
mod zero_source;

#[cfg(test)]
mod tests;
