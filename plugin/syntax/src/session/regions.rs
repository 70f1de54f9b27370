//! The explicit adaptation regions: `begin adaptation` ... `end adaptation` and the single
//! `adaptation` directive before a statement, with what their clauses say and how their
//! statement is lowered (the pass form when the variants name kinds).

use super::names::guess_model_name;
use super::{OpenRegion, Outcome, Pending, PragmaContext, Session, BEGIN, END, SINGLE};
use crate::adaptation::{parse_clauses, Clauses, ADAPTATION_CLAUSES};
use crate::brackets::Brackets;
use crate::clauses::ModelKind;
use crate::diag::{Diagnostic, Diags};
use crate::lower::{self, ExprRef, RegionDesc};
use crate::piece::Piece;
use crate::token::{spell_written, Src, Tok};
use crate::variants::VariantSet;
use ompadapt_abi::LoopNames;

impl Session {
    pub(super) fn require_function(&self, directive: &str, ctx: &PragmaContext, end: usize, diags: &mut Diags) -> bool {
        if ctx.block == 0 {
            diags.push(Diagnostic::error(0, end, format!("'{directive}' must appear inside a function body")));
        }
        ctx.block != 0
    }

    /// The clauses of `begin adaptation` / `adaptation`, checked; None after an error.
    pub(super) fn check_clauses(
        &self,
        toks: &[Tok],
        start: usize,
        directive: &str,
        ctx: &PragmaContext,
        diags: &mut Diags,
    ) -> Option<Clauses> {
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

    pub(super) fn open_region(&mut self, c: Option<&Clauses>, begin_end: bool, ctx: &PragmaContext, toks: &[Tok]) -> u32 {
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

    pub(super) fn region_desc(&self, id: u32, c: &Clauses, toks: &[Tok], location: &str) -> RegionDesc {
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

    pub(super) fn begin_pieces(&self, desc: &RegionDesc, toks: &[Tok]) -> Vec<Piece> {
        let saved = &self.saved;
        let tokens = |s: Src| -> &[Tok] {
            match s {
                Src::Here => toks,
                Src::Saved(k) => saved.get(k as usize).map_or(&[][..], |v| v.as_slice()),
            }
        };
        lower::begin_region(desc, &tokens, self.cplusplus)
    }

    pub(super) fn begin(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let c = self.check_clauses(toks, 2, BEGIN, ctx, diags);
        let id = self.open_region(c.as_ref(), true, ctx, toks);
        let Some(c) = c else { return Outcome::Emit(vec![]) };
        let desc = self.region_desc(id, &c, toks, &ctx.location);
        Outcome::Emit(self.begin_pieces(&desc, toks))
    }

    pub(super) fn end(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
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

    pub(super) fn single(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
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
}
