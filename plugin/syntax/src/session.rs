//! One translation unit's worth of directive handling: which adaptation regions are open, which
//! `declare adaptation` waits for its metadirective, which primary regions are known, and what
//! each `#pragma omp` line becomes.

use crate::adaptation::{parse_clauses, Clauses, ADAPTATION_CLAUSES};
use crate::auto_mode::{self, AutoMode};
use crate::brackets::Brackets;
use crate::clauses::ModelKind;
use crate::data_env::{DataDirective, DataEnv};
use crate::declare::{self, DeclareClauses, DECLARE};
use crate::diag::{has_error, Diagnostic, Diags};
use crate::directive_variant::DirectiveVariant;
use crate::kinds::{self, Kind};
use crate::lower::{self, ChoiceArm, ExprRef, RegionDesc};
use crate::metadirective::{self, parse_arms};
use crate::piece::Piece;
use crate::selector::{self, CondPiece, ModelRef};
use crate::token::{spell_written, Src, Tok, TokKind};
use crate::variants::VariantSet;
use crate::{kernel_scan, pass_form};
use ompadapt_abi::{Association, LoopNames};
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
    spec: Option<String>,
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

    /// The statement of a single `adaptation` directive: the pass form when its variants name
    /// kinds, else the region around the statement as written.
    fn region_statement(
        &mut self,
        mut desc: RegionDesc,
        toks: &[Tok],
        data: &[DataDirective],
        stmt: &[Tok],
        auto_at: Option<usize>,
    ) -> Vec<Piece> {
        let mut diags = Vec::new();
        if desc.auto_features.is_some() {
            desc.auto_features = crate::loops::loops_of(stmt);
            if let (None, Some(at)) = (&desc.auto_features, auto_at) {
                diags.push(Diagnostic::warning(
                    at,
                    at + 1,
                    "no automatic features: the statement has no OpenMP construct whose loops and launch they describe",
                ));
            }
        }
        let mut body = vec![Piece::Statement];
        if let Some(kinds) = desc.variants().kinds().filter(|k| kinds_apply(k, stmt)) {
            let site = pass_form::Site {
                id: desc.id,
                model: desc.name(),
                variants: desc.variants(),
                kinds: &kinds,
                stmt,
                data,
                saved: &self.saved,
                offload: self.offload,
                device: self.device,
                cplusplus: self.cplusplus,
            };
            match pass_form::lower(&site, &mut diags) {
                Some(lowered) => {
                    body = lowered.body;
                    // The variants that cannot be generated have left the region.
                    if let Some(remaining) = lowered.remaining {
                        desc.set_variants(remaining);
                    }
                }
                None if has_error(&diags) => {
                    self.statement_diags = diags;
                    return vec![Piece::Statement];
                }
                None => {}
            }
        } else if desc.model_output.is_none() && kernel_scan::construct(stmt).is_some_and(|c| c.offloads()) {
            warn_host_names_before_offload(desc.variants(), &mut diags);
        }
        self.statement_diags = diags;
        let mut pieces = vec![Piece::Text("{".into())];
        pieces.extend(self.begin_pieces(&desc, toks));
        pieces.extend(body);
        pieces.push(lower::end_region_of(&desc));
        pieces.push(Piece::Text("}".into()));
        pieces
    }

    /// After a `declare adaptation` (saved as list `saved`) and the token that follows it: an
    /// error if no metadirective took it.
    pub fn after_next_token(&mut self, saved: u32) -> Diags {
        let mut diags = Vec::new();
        if self.declare.as_ref().is_some_and(|d| d.saved == saved) {
            self.declare_not_followed(&mut diags);
        }
        diags
    }

    /// A `declare adaptation` line found by looking ahead in a file (`toks`: after `omp`), and
    /// the `metadirective` line after it if there is one. Its tokens become the next saved list.
    pub fn on_lookahead(&mut self, toks: &[Tok], meta: &[Tok], location: &str) {
        let list = self.saved.len() as u32;
        self.saved.push(toks.to_vec());
        let mut quiet = Vec::new();
        let Some(b) = Brackets::new(toks, &mut quiet) else { return };
        let Some(c) = declare::parse(toks, 2, &b, &mut quiet) else { return };
        let Some((name, _)) = c.model_name.clone() else { return };
        if self.primaries.contains_key(&name) || self.ahead.contains_key(&name) {
            return;
        }
        let variants = (|| {
            let w = |i: usize, s: &str| meta.get(i).is_some_and(|t| t.is_ident(s));
            if !w(0, "metadirective") {
                return None;
            }
            let meta_brackets = Brackets::new(meta, &mut quiet)?;
            let arms = parse_arms(meta, 1, &meta_brackets, &mut quiet)?;
            Some(variant_names(meta, arms.iter().map(|a| &a.variant)))
        })();
        let mut region = RegionDesc::new(0, name.clone(), location, VariantSet::categorical(Vec::new()));
        region.descriptor.model_type = model_kind(&c);
        add_features(&mut region, &c, Src::Saved(list), toks);
        self.ahead.insert(name, primary(region, variants));
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

    /// The error for a pending `declare adaptation` that no metadirective took.
    fn declare_not_followed(&mut self, diags: &mut Diags) {
        if let Some(d) = self.declare.take() {
            diags.push(Diagnostic::error(0, 2, format!("'{DECLARE}' must be followed immediately by a 'metadirective'")).in_saved(d.saved));
        }
    }

    fn require_function(&self, directive: &str, ctx: &PragmaContext, end: usize, diags: &mut Diags) -> bool {
        if ctx.block == 0 {
            diags.push(Diagnostic::error(0, end, format!("'{directive}' must appear inside a function body")));
        }
        ctx.block != 0
    }

    /// The clauses of `begin adaptation` / `adaptation`, checked; None after an error.
    fn check_clauses(&self, toks: &[Tok], start: usize, directive: &str, ctx: &PragmaContext, diags: &mut Diags) -> Option<Clauses> {
        let b = Brackets::new(toks, diags)?;
        let c = parse_clauses(toks, start, &b, directive, &ADAPTATION_CLAUSES, diags)?;
        let mut ok = true;
        if c.model_name.is_none() {
            diags.push(Diagnostic::error(0, start, format!("'{directive}' requires a 'model_name' clause")));
            ok = false;
        }
        if c.variants.is_none() {
            diags.push(Diagnostic::error(0, start, format!("'{directive}' requires a 'variants' clause")));
            ok = false;
        }
        ok &= self.require_function(directive, ctx, start, diags);
        ok.then_some(c)
    }

    fn open_region(&mut self, c: Option<&Clauses>, begin_end: bool, ctx: &PragmaContext, toks: &[Tok]) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        // An erroneous directive still opens its region, named as well as can be told, so that
        // its `end` and its selectors do not draw further errors.
        let model = c.and_then(|c| c.model_name.as_ref().map(|m| m.0.clone())).unwrap_or_else(|| guess_model_name(toks));
        self.open.push(OpenRegion {
            model,
            id,
            variants: c.and_then(|c| c.variants.clone()),
            begin_end,
            block: ctx.block,
            location: ctx.location.clone(),
            loc_cookie: ctx.loc_cookie,
        });
        id
    }

    fn region_desc(&self, id: u32, c: &Clauses, toks: &[Tok], location: &str) -> RegionDesc {
        let name = c.model_name.as_ref().map(|m| m.0.clone()).unwrap_or_default();
        let variants = c.variants.clone().unwrap_or_else(|| VariantSet::categorical(vec![]));
        let mut desc = RegionDesc::new(id, name, location, variants);
        for f in &c.features {
            desc.add_feature(ExprRef::here(f.expr.clone()), spell_written(toks, f.expr.clone()), f.range, f.min_samples);
        }
        desc.descriptor.model_type = c.model_type.as_ref().map_or(ModelKind::Auto, |m| m.kind);
        desc.min_train = c.min_train.clone().map(ExprRef::here);
        desc.params = c.model_type.as_ref().map(|m| m.params.iter().cloned().map(ExprRef::here).collect()).unwrap_or_default();
        desc.model_output = c.model_output.clone().map(ExprRef::here);
        desc.auto_features = c.auto_features.map(|_| LoopNames::default());
        desc
    }

    fn begin_pieces(&self, desc: &RegionDesc, toks: &[Tok]) -> Vec<Piece> {
        let saved = &self.saved;
        let tokens = |s: Src| -> &[Tok] {
            match s {
                Src::Here => toks,
                Src::Saved(k) => saved.get(k as usize).map_or(&[][..], |v| v.as_slice()),
            }
        };
        lower::begin_region(desc, &tokens, self.cplusplus)
    }

    fn begin(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let c = self.check_clauses(toks, 2, BEGIN, ctx, diags);
        let id = self.open_region(c.as_ref(), true, ctx, toks);
        let Some(c) = c else { return Outcome::Emit(vec![]) };
        let desc = self.region_desc(id, &c, toks, &ctx.location);
        Outcome::Emit(self.begin_pieces(&desc, toks))
    }

    fn end(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let Some(b) = Brackets::new(toks, diags) else { return Outcome::Emit(vec![]) };
        let Some(c) = parse_clauses(toks, 2, &b, END, &["model_name"], diags) else { return Outcome::Emit(vec![]) };
        let Some(top) = self.open.last() else {
            diags.push(Diagnostic::error(0, 2, "'end adaptation' without a matching 'begin adaptation'"));
            return Outcome::Emit(vec![]);
        };
        if !top.begin_end {
            diags.push(Diagnostic::error(
                0,
                2,
                format!("'end adaptation' inside the structured block of the 'adaptation' directive for '{}'", top.model),
            ));
            return Outcome::Emit(vec![]);
        }
        if let Some((name, at)) = &c.model_name {
            if *name != top.model {
                diags.push(Diagnostic::error(
                    *at,
                    *at + 1,
                    format!("'end adaptation' names '{name}' but the innermost open adaptation region is '{}'", top.model),
                ));
                diags.push(Diagnostic::note(*at, *at + 1, format!("'{}' was opened at {}", top.model, top.location)));
                return Outcome::Emit(vec![]);
            }
        }
        if top.block != ctx.block {
            diags.push(Diagnostic::error(
                0,
                2,
                format!("'end adaptation' must be in the same block as the 'begin adaptation' of '{}' ({})", top.model, top.location),
            ));
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
        let Some(c) = self.check_clauses(toks, 1, SINGLE, ctx, diags) else {
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        };
        let id = self.open_region(Some(&c), false, ctx, toks);
        let desc = self.region_desc(id, &c, toks, &ctx.location);
        let data = self.data.in_view(&ctx.open).into_iter().cloned().collect();
        self.pending.push(Pending::Region { desc: Box::new(desc), toks: toks.to_vec(), data, auto_at: c.auto_features });
        Outcome::NeedStatement
    }

    fn metadirective(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let Some(b) = Brackets::new(toks, diags) else {
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        };
        let open = &self.open;
        // A region whose directive had errors: accept any selector on it silently.
        let names: HashSet<&str> = open.iter().filter(|r| r.variants.is_none()).map(|r| r.model.as_str()).collect();
        if toks.iter().any(|t| t.kind == TokKind::Ident && names.contains(t.text.as_str())) {
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        }
        let lookup = |name: &str| -> Option<ModelRef<'_>> {
            let r = open.iter().rev().find(|r| r.model == name)?;
            Some(ModelRef { variant_expr: format!("{}.variant", lower::context_var(r.id)), variants: r.variants.as_ref()? })
        };
        match selector::parse_metadirective(toks, 1, &b, &lookup, diags) {
            Some(arms) => {
                let data = self.data.in_view(&ctx.open).into_iter().cloned().collect();
                self.pending.push(Pending::Metadirective(arms, data))
            }
            None => self.pending.push(Pending::Plain),
        }
        Outcome::NeedStatement
    }

    /// `declare adaptation`: checks its clauses and waits for the metadirective.
    fn declare(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let before = diags.len();
        let clauses = Brackets::new(toks, diags).and_then(|b| declare::parse(toks, 2, &b, diags));
        if let Some((primary, at)) = clauses.as_ref().and_then(|c| c.use_model.clone()) {
            let known = self.primaries.get(&primary).or_else(|| self.ahead.get(&primary));
            if known.is_none() && !self.scanned.contains(&ctx.file) {
                // Liao et al. Figure 7: an associated region before its primary; its features are
                // in the primary's directive further down this file.
                diags.truncate(before);
                return Outcome::NeedLookahead;
            }
            if let (Some(p), Some(c)) = (known, clauses.as_ref()) {
                if let Some(n) = p.nvariants {
                    if let Some(&(bad, bad_at)) = c.mapping.iter().find(|(m, _)| *m as usize >= n) {
                        diags.push(Diagnostic::error(
                            bad_at,
                            bad_at + 1,
                            format!("primary region '{primary}' has no variant {bad}: it has {n} (IDs 0 to {})", n - 1),
                        ));
                        diags.push(Diagnostic::note(at, at + 1, format!("'{primary}' is declared at {}", p.region.location())));
                    } else if c.mapping.len() > n {
                        let m = c.mapping_at.unwrap_or(at);
                        diags.push(Diagnostic::error(
                            m,
                            m + 1,
                            format!("an associated region cannot have more variants than its primary region '{primary}' ({n})"),
                        ));
                    }
                }
            }
        }
        let ok = !has_error(&diags[before..]) & self.require_function(DECLARE, ctx, 2, diags);
        if ctx.block == 0 {
            // Outside a function nothing follows that could take it: no second error.
            return Outcome::Emit(vec![]);
        }
        self.declare =
            Some(PendingDeclare { clauses: clauses.filter(|_| ok), saved: self.saved.len() as u32, location: ctx.location.clone() });
        Outcome::NeedNextToken
    }

    /// The metadirective after a `declare adaptation`: each `when`/`default` is a variant.
    fn declared_metadirective(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let decl = self.declare.take().expect("checked by the caller");
        let arms = Brackets::new(toks, diags).and_then(|b| parse_arms(toks, 1, &b, diags));
        let (Some(c), Some(arms)) = (decl.clauses, arms) else {
            return self.plain_metadirective(toks);
        };
        let standalone = metadirective::is_standalone(&arms);
        let declare_list = decl.saved;
        self.next_id += 1;
        let id = self.next_id;
        let names = variant_names(toks, arms.iter().map(|a| &a.variant));
        let mut desc = RegionDesc::new(id, String::new(), decl.location, VariantSet::categorical(names.clone()));
        desc.descriptor.model_type = model_kind(&c);
        desc.params =
            c.model.as_ref().map(|m| m.params.iter().map(|r| ExprRef::saved(declare_list, r.clone())).collect()).unwrap_or_default();
        let described = match &c.use_model {
            None => self.describe_primary(&c, declare_list, names, &mut desc, diags),
            Some((primary_name, _)) => self.describe_associated(&c, declare_list, primary_name, arms.len(), &mut desc, diags),
        };
        if !described {
            return self.plain_metadirective(toks);
        }
        // Each arm runs when its own index is decided. For an associated region that is when
        // the primary decides the variant it maps to (the runtime maps the primary's decision),
        // and a last, bare arm runs the statement when the primary decides one no arm maps to.
        let choice_arms: Vec<(usize, DirectiveVariant)> = arms.into_iter().enumerate().map(|(i, a)| (i, a.variant)).collect();
        let bare = c.use_model.is_some();
        let mut pieces = vec![Piece::Text("{".into())];
        pieces.extend(self.begin_pieces(&desc, toks));
        if standalone {
            let arms: Vec<ChoiceArm> = choice_arms.iter().map(|(v, d)| ChoiceArm { variant: *v, directive: d }).collect();
            pieces.extend(lower::choice(id, &arms, false, false));
            pieces.push(lower::end_region(id));
            pieces.push(Piece::Text("}".into()));
            return Outcome::Emit(pieces);
        }
        let data = self.data.in_view(&ctx.open).into_iter().cloned().collect();
        self.pending.push(Pending::Declared { pieces, id, arms: choice_arms, bare, data });
        Outcome::NeedStatement
    }

    /// A primary region (`model_name`, or none): its name and features, recorded for the
    /// associated regions; false (after an error) when it was declared before with another
    /// number of variants.
    fn describe_primary(&mut self, c: &DeclareClauses, saved: u32, names: Vec<String>, desc: &mut RegionDesc, diags: &mut Diags) -> bool {
        let name = c.model_name.as_ref().map_or_else(|| format!("declare@{}", short_location(desc.location())), |m| m.0.clone());
        let nvariants = names.len();
        desc.descriptor.model = name.clone();
        add_features(desc, c, Src::Saved(saved), &self.saved[saved as usize]);
        let p = primary(desc.clone(), Some(names));
        if let Some(prev) = self.primaries.get(&name) {
            if prev.nvariants != p.nvariants {
                diags.push(Diagnostic::error(0, 1, format!("primary region '{name}' is declared again with {nvariants} variants")));
                diags.push(Diagnostic::note(
                    0,
                    1,
                    format!("'{name}' was declared at {} with {} variants", prev.region.location(), prev.nvariants.unwrap_or(0)),
                ));
                return false;
            }
        }
        self.primaries.insert(name, p);
        true
    }

    /// An associated region (`use_model`) of `narms` variants: named after its primary, whose
    /// features it evaluates at its own directive; false (after an error) when its mapping
    /// does not list one primary variant per arm.
    fn describe_associated(
        &self,
        c: &DeclareClauses,
        saved: u32,
        primary_name: &str,
        narms: usize,
        desc: &mut RegionDesc,
        diags: &mut Diags,
    ) -> bool {
        let mapping: Vec<usize> = c.mapping.iter().map(|m| m.0 as usize).collect();
        if mapping.len() != narms {
            diags.push(Diagnostic::error(
                0,
                1,
                format!(
                    "this metadirective has {narms} variant{} but 'variant_mapping' lists {}",
                    if narms == 1 { "" } else { "s" },
                    mapping.len()
                ),
            ));
            let m = c.mapping_at.unwrap_or(0);
            diags.push(Diagnostic::note(m, m + 1, "'variant_mapping' is here").in_saved(saved));
            return false;
        }
        let known = self.primaries.get(primary_name).or_else(|| self.ahead.get(primary_name)).cloned();
        desc.descriptor.model = format!("{primary_name}<-{}", short_location(desc.location()));
        let use_model_at = c.use_model.as_ref().map_or(0, |u| u.1);
        if let Some(p) = &known {
            let (features, d) = (&p.region.features, &p.region.descriptor);
            for (i, expr) in features.iter().enumerate() {
                let at = ExprRef { at: Some((Src::Saved(saved), use_model_at)), ..expr.clone() };
                desc.add_feature(at, d.features[i].clone(), d.feature_ranges[i], d.min_sample_points[i]);
            }
        }
        desc.descriptor.association =
            Some(Association { primary: primary_name.to_string(), mapping, primary_descriptor: known.and_then(|p| p.spec) });
        true
    }

    /// Zero-source-change mode: an offloading target construct or host parallel region that is
    /// not governed by an explicit directive becomes a region (`NeedConstruct`); an ineligible
    /// one is left as written with a remark saying why. None: not a construct this mode looks at.
    fn auto_construct(&mut self, toks: &[Tok], ctx: &PragmaContext, governed: bool, diags: &mut Diags) -> Option<Outcome> {
        let mode = self.auto.as_ref()?;
        let c = auto_mode::directive(toks)?;
        if !auto_mode::considered(&c) || governed || ctx.block == 0 {
            return None;
        }
        let what = if c.offloads() { "target construct".to_owned() } else { format!("'{}' construct", c.words.join(" ")) };
        if let Some((at, why)) = self.auto_ineligible(&c) {
            diags.push(Diagnostic::remark(at, at + 1, format!("this {what} is left as written: {why}")));
            return Some(self.enclosing(&what, ctx));
        }
        let mut kept_diags = Vec::new();
        let variants = auto_mode::fitting(mode.kinds_for(&c), &c, &mut kept_diags);
        if variants.variants.is_empty() {
            // a list without kinds for this kind of construct: nothing to say per construct
            if !mode.kinds_for(&c).variants.is_empty() {
                diags.extend(kept_diags);
                diags.push(Diagnostic::remark(
                    0,
                    1,
                    format!("this {what} is left as written: no variant kind of {} fits it", auto_mode::FLAG),
                ));
            }
            return Some(self.enclosing(&what, ctx));
        }
        diags.extend(kept_diags);
        let name = self.auto.as_mut().expect("checked").region_name(&ctx.function, &ctx.location);
        self.next_id += 1;
        let mut desc = RegionDesc::new(self.next_id, name, ctx.location.clone(), variants);
        desc.auto_features = Some(LoopNames::default());
        desc.descriptor.as_written_in_parallel = !c.offloads();
        desc.descriptor.instanced = ctx.templated;
        let data = self.data.in_view(&ctx.open).into_iter().cloned().collect();
        self.pending.push(Pending::Auto { desc: Box::new(desc), data });
        Some(Outcome::NeedConstruct)
    }

    /// Why construct `c` is left as written in zero-source-change mode, if it is: where it is
    /// (in an adaptation region, nested in another construct, in device code), or its clauses.
    fn auto_ineligible(&self, c: &kernel_scan::Construct) -> Option<(usize, String)> {
        if let Some(r) = self.open.last() {
            return Some((0, format!("it is inside the adaptation region '{}' ({}), which decides how it runs", r.model, r.location)));
        }
        match self.pending.last() {
            Some(Pending::Auto { desc, .. }) => {
                let outer = if desc.as_written_when_nested() { "parallel region" } else { "target construct" };
                return Some((0, format!("it is nested in the {outer} at {}, a region of its own", short_location(desc.location()))));
            }
            Some(Pending::Enclosing { what, location }) => return Some((0, format!("it is nested in the {what} at {location}"))),
            Some(_) => return Some((0, "it is inside the statement of an adaptation directive, which decides how it runs".to_string())),
            None => {}
        }
        if self.declare_target > 0 {
            return Some((0, "it is in 'declare target' code, which is also compiled for the device".to_string()));
        }
        if !c.offloads() && self.device {
            return Some((0, "this compilation is for an offload device; the host compilation adapts host regions".to_string()));
        }
        auto_mode::ineligible_clause(c)
    }

    /// A construct left as written whose statement is still collected, so that the constructs
    /// nested in it are left as written too (a `parallel for` in a target region is device code).
    fn enclosing(&mut self, what: &str, ctx: &PragmaContext) -> Outcome {
        self.pending.push(Pending::Enclosing { what: what.to_owned(), location: short_location(&ctx.location) });
        Outcome::NeedConstruct
    }

    /// The construct of zero-source-change mode, directive included: lowered as the pass form
    /// lowers an explicit region, with everything it would warn about said as remarks; left as
    /// written when nothing can be generated.
    fn auto_statement(&mut self, mut desc: RegionDesc, data: &[DataDirective], stmt: &[Tok]) -> Vec<Piece> {
        let has_body = kernel_scan::construct(stmt).is_some_and(|c| !c.body.is_empty());
        if !has_body {
            // Clang reports the missing statement on the construct as written.
            return vec![Piece::Statement];
        }
        let mut early = Vec::new();
        // A kernel that asks where it runs would get another answer from the host version:
        // the program's output could change, so `cpu` is not one of its variants.
        if kernel_scan::mentions(stmt, 0..stmt.len(), auto_mode::WHERE_IT_RUNS) {
            let kept: Vec<_> = desc.variants().variants.iter().filter(|v| kinds::decode(&v.name) != Some(Kind::Cpu)).cloned().collect();
            if kept.len() < desc.variants().variants.len() {
                early.push(Diagnostic::remark(
                    0,
                    1,
                    format!(
                        "variant kind 'cpu' dropped for this construct: the kernel calls {}, which the host version answers differently",
                        auto_mode::WHERE_IT_RUNS
                    ),
                ));
                if kept.is_empty() {
                    self.statement_diags = early;
                    return vec![Piece::Statement];
                }
                desc.set_variants(VariantSet::remaining(kept));
            }
        }
        let pieces = self.region_statement(desc, &[], data, stmt, None);
        let mut diags = early;
        diags.extend(std::mem::take(&mut self.statement_diags));
        self.statement_diags = auto_mode::as_remarks(diags);
        pieces
    }

    /// Tracks `declare target` ... `end declare target` (and `begin declare target`): code
    /// between them is also compiled for the device.
    fn note_declare_target(&mut self, toks: &[Tok]) {
        let w = |i: usize, s: &str| toks.get(i).is_some_and(|t| t.is_ident(s));
        if w(0, "begin") && w(1, "declare") && w(2, "target") {
            self.declare_target += 1;
        } else if w(0, "end") && w(1, "declare") && w(2, "target") {
            self.declare_target = self.declare_target.saturating_sub(1);
        } else if w(0, "declare") && w(1, "target") {
            // The delimited form has no list: `declare target` alone (or with device_type).
            let listed = toks.get(2).is_some_and(|t| t.is_punct("("))
                || toks[2..].iter().any(|t| t.is_ident("to") || t.is_ident("enter") || t.is_ident("link"));
            if !listed {
                self.declare_target += 1;
            }
        }
    }

    /// A metadirective whose `declare adaptation` had errors: its statement runs unchanged (a
    /// standalone one is dropped), without further errors.
    fn plain_metadirective(&mut self, toks: &[Tok]) -> Outcome {
        let standalone = (|| {
            let b = Brackets::new(toks, &mut Vec::new())?;
            let arms = parse_arms(toks, 1, &b, &mut Vec::new())?;
            Some(metadirective::is_standalone(&arms))
        })()
        .unwrap_or(false);
        if standalone {
            return Outcome::Emit(vec![]);
        }
        self.pending.push(Pending::Plain);
        Outcome::NeedStatement
    }
}

/// `file:line` with the file's directory left out, for generated region names (which name the
/// region's folder of learned data: no slashes).
fn short_location(location: &str) -> String {
    location.rsplit('/').next().unwrap_or(location).to_string()
}

/// The name of a model in an erroneous directive, for suppressing follow-up errors.
fn guess_model_name(toks: &[Tok]) -> String {
    toks.windows(3)
        .find(|w| w[0].is_ident("model_name") && w[1].is_punct("("))
        .map(|w| w[2].text.trim_matches('"').to_string())
        .unwrap_or_default()
}

fn model_kind(c: &DeclareClauses) -> ModelKind {
    c.model.as_ref().map_or(ModelKind::Auto, |m| m.kind)
}

/// Adds the features of a `declare adaptation` (its tokens `toks`, at `src`) to `desc`.
fn add_features(desc: &mut RegionDesc, c: &DeclareClauses, src: Src, toks: &[Tok]) {
    for f in &c.features {
        desc.add_feature(ExprRef { src, range: f.expr.clone(), at: None }, spell_written(toks, f.expr.clone()), f.range, f.min_samples);
    }
}

/// A primary region's record (`region`: without its variants); its descriptor when its
/// variants are known.
fn primary(region: RegionDesc, variants: Option<Vec<String>>) -> Primary {
    let nvariants = variants.as_ref().map(Vec::len);
    let spec = variants.map(|v| {
        let mut d = region.descriptor.clone();
        d.variants = v;
        d.values = (0..d.variants.len()).map(|i| i as f64).collect();
        d.numeric = false;
        d.to_string()
    });
    Primary { spec, nvariants, region }
}

/// Display names of a metadirective's variants: the directive as written (`parallel for`), or
/// `plain` for a variant without a directive; unique (a repeated name gets `#index`).
fn variant_names<'a>(toks: &[Tok], variants: impl Iterator<Item = &'a DirectiveVariant>) -> Vec<String> {
    const LONGEST: usize = 64;
    let mut out: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (i, v) in variants.enumerate() {
        let mut name = if v.pieces.is_empty() {
            "plain".to_string()
        } else {
            v.pieces.iter().map(|r| spell_written(toks, r.clone())).collect::<Vec<_>>().join(" ")
        };
        if name.chars().count() > LONGEST {
            name = name.chars().take(LONGEST).collect::<String>() + "...";
        }
        if !seen.insert(name.clone()) {
            name = format!("{name} #{i}");
            seen.insert(name.clone());
        }
        out.push(name);
    }
    out
}

/// Warns at each host variant of a metadirective (a directive that is not a target construct)
/// that runs inside a device data environment the source shows, naming the mapped variables
/// the statement uses: their host copies are stale there.
fn stale_host_copies<'a>(
    directives: impl Iterator<Item = &'a DirectiveVariant>,
    data: &[DataDirective],
    saved: &[Vec<Tok>],
    stmt: &[Tok],
    diags: &mut Diags,
) {
    let mut names: Vec<String> = Vec::new();
    let mut sections: Vec<String> = Vec::new();
    for d in data {
        let Some(list) = saved.get(d.saved as usize) else { continue };
        for m in &d.items {
            if kernel_scan::mentions(stmt, 0..stmt.len(), &m.base) && !names.contains(&m.base) {
                names.push(m.base.clone());
                sections.push(spell_written(list, m.range.clone()));
            }
        }
    }
    let Some(first) = data.first() else { return };
    if names.is_empty() {
        return;
    }
    for directive in directives {
        let host = directive.words.first().is_some_and(|w| w != "target");
        let Some(at) = directive.pieces.first().map(|r| r.start).filter(|_| host) else { continue };
        diags.push(Diagnostic::warning(
            at,
            at + 1,
            format!(
                "this variant runs on the host inside the device data environment of '{}' at {}: the host copies of {} are stale there; add '#pragma omp target update from({})' before it and 'target update to(...)' for what it writes after it, or write the region as '#pragma omp adaptation ... variants(cpu, gpu)' before the target construct, which makes these copies itself",
                first.what,
                first.location,
                names.join(", "),
                sections.join(", ")
            ),
        ));
    }
}

/// `if (c1) { #pragma omp v1 \n stmt } else if (c2) { ... } else { [default] stmt }`
fn metadirective_chain(arms: &[selector::Arm]) -> Vec<Piece> {
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
        if !arm.directive.pieces.is_empty() {
            p.push(Piece::OmpBegin);
            p.extend(arm.directive.pieces.iter().map(|r| Piece::User(r.clone())));
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

/// Before a target construct, variants named like places (`host`, `GPU`) that name no kind all
/// run the offload as written: a warning at the first.
fn warn_host_names_before_offload(variants: &VariantSet, diags: &mut Diags) {
    let place_names = ["host", "device", "cpu_only", "offload", "accelerator", "CPU", "GPU"];
    if let Some(v) = variants.variants.iter().find(|v| place_names.contains(&v.name.as_str())) {
        diags.push(Diagnostic::warning(
            v.tok,
            v.tok + 1,
            format!(
                "variant '{}' names no variant kind: before a target construct every variant runs the offload as written; write variants(cpu, gpu) to run the host version for 'cpu', or use model_output to act on the choice",
                v.name
            ),
        ));
    }
}

/// Whether variant names that decode as kinds are the compiler's to generate: before an OpenMP
/// construct when one of them fits it (or every name is a kind: then an unfit one is an error
/// worth reporting), before a plain loop when every name is a kind (a warning says they need a
/// construct). Elsewhere — a structured block, a call — names are the user's categorical
/// identifiers, `serial` or `cpu` included (Georgakoudis et al.).
fn kinds_apply(kinds: &[Option<Kind>], stmt: &[Tok]) -> bool {
    let all = kinds.iter().all(Option::is_some);
    match kernel_scan::construct(stmt) {
        Some(c) => {
            all || kinds.iter().flatten().any(|k| {
                if c.offloads() {
                    k.for_target()
                } else {
                    (c.is_parallel_for() && k.for_parallel_for()) || (c.is_parallel_region() && k.sets_team_size())
                }
            })
        }
        None => all && stmt.first().is_some_and(|t| t.is_ident("for")),
    }
}

#[cfg(test)]
mod tests;
