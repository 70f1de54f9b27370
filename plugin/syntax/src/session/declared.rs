//! Liao et al.'s `declare adaptation` and the metadirective after it: primary regions (named
//! by `model_name`, or not) and associated regions (`use_model`, `variant_mapping`), whose
//! primary may be declared further down the file (found by looking ahead).

use super::names::{short_location, variant_names};
use super::{Outcome, Pending, PendingDeclare, PragmaContext, Primary, Session};
use crate::brackets::Brackets;
use crate::clauses::ModelKind;
use crate::declare::{self, DeclareClauses, DECLARE};
use crate::diag::{has_error, Diagnostic, Diags};
use crate::directive_variant::DirectiveVariant;
use crate::lower::{self, ChoiceArm, ExprRef, RegionDesc};
use crate::metadirective::{self, parse_arms};
use crate::piece::Piece;
use crate::token::{spell_written, Src, Tok};
use crate::variants::VariantSet;
use ompadapt_abi::Association;

impl Session {
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

    /// The error for a pending `declare adaptation` that no metadirective took.
    pub(super) fn declare_not_followed(&mut self, diags: &mut Diags) {
        if let Some(d) = self.declare.take() {
            diags.push(Diagnostic::error(0, 2, format!("'{DECLARE}' must be followed immediately by a 'metadirective'")).in_saved(d.saved));
        }
    }

    /// `declare adaptation`: checks its clauses and waits for the metadirective.
    pub(super) fn declare(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
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
    pub(super) fn declared_metadirective(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
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
    pub(super) fn describe_primary(
        &mut self,
        c: &DeclareClauses,
        saved: u32,
        names: Vec<String>,
        desc: &mut RegionDesc,
        diags: &mut Diags,
    ) -> bool {
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
    pub(super) fn describe_associated(
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
            Some(Association { primary: primary_name.to_string(), mapping, primary_descriptor: known.and_then(|p| p.spec).map(Box::new) });
        true
    }

    /// A metadirective whose `declare adaptation` had errors: its statement runs unchanged (a
    /// standalone one is dropped), without further errors.
    pub(super) fn plain_metadirective(&mut self, toks: &[Tok]) -> Outcome {
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
        d
    });
    Primary { spec, nvariants, region }
}
