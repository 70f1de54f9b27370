//! Zero-source-change mode (`-fplugin-arg-ompadapt-auto`): which ordinary constructs become
//! regions, which are left as written and why, and how a construct made adaptive is lowered.

use super::names::short_location;
use super::{Outcome, Pending, PragmaContext, Session};
use crate::auto_mode;
use crate::data_env::DataDirective;
use crate::diag::{Diagnostic, Diags};
use crate::kernel_scan;
use crate::kinds::{self, Kind};
use crate::lower::RegionDesc;
use crate::piece::Piece;
use crate::token::Tok;
use crate::variants::VariantSet;
use ompadapt_abi::LoopNames;

impl Session {
    /// Zero-source-change mode: an offloading target construct or host parallel region that is
    /// not governed by an explicit directive becomes a region (`NeedConstruct`); an ineligible
    /// one is left as written with a remark saying why. None: not a construct this mode looks at.
    pub(super) fn auto_construct(&mut self, toks: &[Tok], ctx: &PragmaContext, governed: bool, diags: &mut Diags) -> Option<Outcome> {
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
    pub(super) fn auto_ineligible(&self, c: &kernel_scan::Construct) -> Option<(usize, String)> {
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
    pub(super) fn enclosing(&mut self, what: &str, ctx: &PragmaContext) -> Outcome {
        self.pending.push(Pending::Enclosing { what: what.to_owned(), location: short_location(&ctx.location) });
        Outcome::NeedConstruct
    }

    /// The construct of zero-source-change mode, directive included: lowered as the pass form
    /// lowers an explicit region, with everything it would warn about said as remarks; left as
    /// written when nothing can be generated.
    pub(super) fn auto_statement(&mut self, mut desc: RegionDesc, data: &[DataDirective], stmt: &[Tok]) -> Vec<Piece> {
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
    pub(super) fn note_declare_target(&mut self, toks: &[Tok]) {
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
}
