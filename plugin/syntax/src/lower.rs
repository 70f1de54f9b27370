//! Lowering of adaptation regions into calls of the ompadapt runtime (runtime/include/
//! ompadapt.h). The generated code reaches the runtime through `__ompadapt_begin` and
//! `__ompadapt_end`, declared in the header the plugin injects (plugin/include/
//! ompadapt_lowering.h), whose loader loads the runtime on first use unless the program links it.
//!
//! Generated names carry the region's number in the translation unit, so that several regions
//! (also nested ones, also with the same model) can share a scope.

use crate::directive_variant::DirectiveVariant;
use crate::limits::MAX_FEATURES;
use crate::piece::Piece;
use crate::token::{Src, Tok, TokKind};
use crate::variants::VariantSet;
use ompadapt_abi::{markers, LoopNames, RegionDescriptor};
use std::ops::Range;

/// Tokens of a region's clause, in the directive or in a saved token list.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprRef {
    /// The token list `range` indexes.
    pub src: Src,
    /// The expression's tokens.
    pub range: Range<usize>,
    /// Where the copies are located instead of at the tokens themselves: an associated region
    /// evaluates its primary's features at its own `use_model`, so that Clang's errors on them
    /// (a name not in scope there) point at the associated region.
    pub at: Option<(Src, usize)>,
}

impl ExprRef {
    /// The expression at `range` of the directive being handled.
    pub fn here(range: Range<usize>) -> ExprRef {
        ExprRef { src: Src::Here, range, at: None }
    }
    /// The expression at `range` of saved token list `list`.
    pub fn saved(list: u32, range: Range<usize>) -> ExprRef {
        ExprRef { src: Src::Saved(list), range, at: None }
    }
    fn piece(&self, r: Range<usize>) -> Piece {
        match (self.src, self.at) {
            (Src::Saved(k), Some(at)) => Piece::SavedAt(k, r, at),
            (Src::Here, _) => Piece::User(r),
            (Src::Saved(k), None) => Piece::Saved(k, r),
        }
    }
    /// A text piece located at this expression's first token (or where its copies go).
    fn text_at(&self, text: impl Into<String>) -> Piece {
        match self.at.unwrap_or((self.src, self.range.start)) {
            (Src::Here, tok) => Piece::TextAt(text.into(), tok),
            (Src::Saved(k), tok) => Piece::TextAtSaved(text.into(), k, tok),
        }
    }
}

/// Everything the lowering needs about one region: the descriptor the runtime reads, built here
/// and printed once into the region's begin call, and the source the generated code copies.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionDesc {
    /// The region's number in the translation unit, part of its generated names.
    pub id: u32,
    /// What the runtime reads about the region: its name (`primary<-file:line` for an associated
    /// region), location, features, variants, model type and association. Its variants are
    /// [`RegionDesc::variants`]' (set them with [`RegionDesc::set_variants`]).
    pub descriptor: RegionDescriptor,
    /// The explicit features' expressions, in the descriptor's order.
    pub features: Vec<ExprRef>,
    /// The variants the region chooses among, with where each is written.
    variants: VariantSet,
    /// `min_train_data(...)`, passed to the runtime's begin (-1 without it).
    pub min_train: Option<ExprRef>,
    /// The model's parameters (`rfc`: trees and maximum depth; `dtree`: maximum depth), passed to
    /// the runtime's begin (-1 for each one missing).
    pub params: Vec<ExprRef>,
    /// `model_output(...)`: the lvalue that receives the chosen variant's value.
    pub model_output: Option<ExprRef>,
    /// `features(auto)`: the worksharing loops of the region's construct as the pass names
    /// their trip counts (see [`crate::loops`]); None without automatic features.
    pub auto_features: Option<LoopNames>,
}

impl RegionDesc {
    /// Region `id` named `name` at `location` choosing among `variants`, with no features, no
    /// model type (`auto`) and nothing passed at run time; set the rest as needed.
    pub fn new(id: u32, name: impl Into<String>, location: impl Into<String>, variants: VariantSet) -> RegionDesc {
        let mut r = RegionDesc {
            id,
            descriptor: RegionDescriptor::new(name, location, Vec::new()),
            features: Vec::new(),
            variants: VariantSet::categorical(Vec::new()),
            min_train: None,
            params: Vec::new(),
            model_output: None,
            auto_features: None,
        };
        r.set_variants(variants);
        r
    }

    /// The region's name, the runtime's key for its model.
    pub fn name(&self) -> &str {
        &self.descriptor.model
    }

    /// `file:line` of the directive.
    pub fn location(&self) -> &str {
        &self.descriptor.loc
    }

    /// The variants the region chooses among.
    pub fn variants(&self) -> &VariantSet {
        &self.variants
    }

    /// Sets the variants, in the descriptor too (names, values, numeric or not).
    pub fn set_variants(&mut self, variants: VariantSet) {
        let d = &mut self.descriptor;
        d.variants = variants.variants.iter().map(|v| v.name.clone()).collect();
        d.values = variants.variants.iter().map(|v| v.value).collect();
        d.numeric = variants.numeric;
        self.variants = variants;
    }

    /// Appends an explicit feature: its expression, its source text as written, and what
    /// `range[lo:hi]` and `min_sample_points(n)` declare about it.
    pub fn add_feature(&mut self, expr: ExprRef, text: String, range: Option<(f64, f64)>, min_samples: Option<u64>) {
        self.features.push(expr);
        self.descriptor.features.push(text);
        self.descriptor.feature_ranges.push(range);
        self.descriptor.min_sample_points.push(min_samples);
    }

    /// A host parallel region of zero-source-change mode: inside an active parallel region (an
    /// orphaned one called from another) it runs as written and is not recorded (the runtime
    /// checks), and without a runtime it runs as written too (variant -1).
    pub fn as_written_when_nested(&self) -> bool {
        self.descriptor.as_written_in_parallel
    }

    /// The variant generated code runs without a runtime: the first, or for an associated region
    /// the one mapped to its primary's first (none: `variants.len()`).
    pub fn fallback(&self) -> usize {
        match &self.descriptor.association {
            Some(a) => a.mapping.iter().position(|&m| m == 0).unwrap_or(a.mapping.len()),
            None => 0,
        }
    }

    /// The fallback's value (`model_output` receives it): 0 when it is no variant.
    pub fn fallback_value(&self) -> f64 {
        self.variants.variants.get(self.fallback()).map_or(0.0, |v| v.value)
    }
}

/// Names of the generated variables of region `id`. Block-scope names with one leading
/// underscore: not reserved (no -Wreserved-identifier), and unlikely to meet a user's.
pub fn context_var(id: u32) -> String {
    format!("_ompadapt_c{id}")
}

/// Escapes text for a C string literal.
pub fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            // `??x` would be a trigraph in C89 modes.
            '?' => out.push_str("\\?"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}\"\"", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Liao et al.'s OpenMP context identifiers, usable in features: what a parallel region (teams
/// construct) started here would get.
const CONTEXT_FEATURES: [(&str, &str); 2] =
    [("omp_num_threads", "__ompadapt_omp_get_max_threads()"), ("omp_num_teams", "__ompadapt_omp_get_max_teams()")];

/// A feature expression as pieces, with Liao et al.'s special identifiers replaced.
fn feature_pieces(e: &ExprRef, toks: &[Tok], p: &mut Vec<Piece>) {
    let mut run = e.range.start;
    for i in e.range.clone() {
        let t = &toks[i];
        if t.kind != TokKind::Ident {
            continue;
        }
        let Some((_, call)) = CONTEXT_FEATURES.iter().find(|(name, _)| t.text == *name) else { continue };
        let member = i > e.range.start && [".", "->", "::"].iter().any(|m| toks[i - 1].is_punct(m));
        let called = toks.get(i + 1).is_some_and(|n| n.is_punct("(")) && i + 1 < e.range.end;
        if member || called {
            continue;
        }
        if run < i {
            p.push(e.piece(run..i));
        }
        p.push(e.text_at(*call));
        run = i + 1;
    }
    if run < e.range.end {
        p.push(e.piece(run..e.range.end));
    }
}

/// The test, at compile time, whether the expression after it, in parentheses, is a number: its type
/// class (GCC's `__builtin_classify_type`, which clang gives both languages) one of integer (1),
/// character (2), enumeration (3), boolean (4), floating-point (8): bits of 0x11E. The
/// expression is not evaluated. C++ also lets a class through (12): one with a conversion to a
/// number is a feature, and the conversion says what is wrong with any other.
fn number_test(cplusplus: bool) -> &'static str {
    if cplusplus {
        "(0x111E >> __builtin_classify_type"
    } else {
        "(0x11E >> __builtin_classify_type"
    }
}

/// The error a feature that is not a number gets.
fn not_a_number(feature: &str) -> String {
    format!("ompadapt: feature '{feature}' is not a number: a feature is an integer or floating-point value the region's cost depends on (for a pointer or an array, the number of elements it holds)")
}

/// `{ [const] double <features>[n] = {f1, f2, ...` (the block stays open): each feature converted
/// to double, and checked at compile time to be a number first.
fn feature_array<'t>(r: &RegionDesc, tokens: &dyn Fn(Src) -> &'t [Tok], cplusplus: bool, features: &str, p: &mut Vec<Piece>) {
    // Explicit conversions (functional casts in C++: no -Wold-style-cast).
    let to_double = if cplusplus { "double(" } else { "(double)(" };
    // With automatic features the array has every slot: the pass stores its features after the
    // explicit ones, and appends their names to the descriptor (`auto_features=`).
    let (constness, slots) = if r.auto_features.is_some() { ("", MAX_FEATURES) } else { ("const ", r.features.len().max(1)) };
    p.push(Piece::Text(" {".into()));
    // a feature that is not a number (a pointer, an array, a struct) gets an error in ompadapt's
    // words, and no second one from the conversion, which then converts 0
    let assert = if cplusplus { "static_assert(" } else { "_Static_assert(" };
    for expr in &r.features {
        let toks = tokens(expr.src);
        let text: Vec<&str> = toks[expr.range.clone()].iter().map(|t| t.text.as_str()).collect();
        p.push(expr.text_at(format!("{assert}{}(", number_test(cplusplus))));
        feature_pieces(expr, toks, p);
        p.push(expr.text_at(format!(")) & 1, {});", c_string(&not_a_number(&text.join(" "))))));
    }
    p.push(Piece::Text(format!(" {constness}double {features}[{slots}] = {{")));
    if r.features.is_empty() {
        p.push(Piece::Text("0".into()));
    }
    for (i, expr) in r.features.iter().enumerate() {
        if i > 0 {
            p.push(Piece::Text(",".into()));
        }
        p.push(expr.text_at(format!("{to_double}__builtin_choose_expr({}(", number_test(cplusplus))));
        feature_pieces(expr, tokens(expr.src), p);
        p.push(expr.text_at(")) & 1, ("));
        feature_pieces(expr, tokens(expr.src), p);
        p.push(expr.text_at("), 0))"));
    }
}

/// Code for the start of a region: declare the context, call begin, store model_output.
/// `tokens(src)` gives the tokens a Src refers to.
pub fn begin_region<'t>(r: &RegionDesc, tokens: &dyn Fn(Src) -> &'t [Tok], cplusplus: bool) -> Vec<Piece> {
    let (handle, context, features) = (format!("_ompadapt_h{}", r.id), context_var(r.id), format!("_ompadapt_f{}", r.id));
    // (a functional cast in C++: no -Wold-style-cast)
    let to_long = if cplusplus { "long(" } else { "(long)(" };
    let mut p = vec![Piece::Text(format!("static void *{handle}; ompadapt_ctx {context};"))];
    // A host region of zero-source-change mode runs its variants only where the pass shows that
    // nothing it runs can observe its team (`__ompadapt_team_invariant`, 0 without the pass).
    if r.as_written_when_nested() {
        p.push(Piece::Text(format!(" int {} = {}({});", team_var(r.id), markers::TEAM_INVARIANT.name, c_string(r.name()))));
    }
    feature_array(r, tokens, cplusplus, &features, &mut p);
    // The descriptor's one printing between the plugin and the runtime (the pass appends the
    // automatic features' names to the text without reading it: abi's `AutoFeatures`).
    let descriptor = c_string(&r.descriptor.to_string());
    let (spec, nfeatures) = match &r.auto_features {
        Some(loops) => {
            let (spec_var, auto_count, explicit) = (format!("_ompadapt_s{}", r.id), format!("_ompadapt_a{}", r.id), r.features.len());
            p.push(Piece::Text(format!(
                "}}; const char *{spec_var} = {}; int {auto_count} = {}({features} + {explicit}, {} - {explicit}, &{spec_var}, {}, {});",
                descriptor,
                markers::AUTO_FEATURES.name,
                MAX_FEATURES,
                c_string(r.name()),
                c_string(&loops.to_string())
            )));
            (spec_var, format!("{explicit} + {auto_count}"))
        }
        None => {
            p.push(Piece::Text("};".into()));
            (descriptor, r.features.len().to_string())
        }
    };
    // Without a runtime the header's stand-in for begin leaves the context's variant and value
    // as they are: the region's fallback, known here. A host region of zero-source-change mode
    // falls back to variant -1, for which every table of its lowering reads "as written".
    let (fallback, value) = if r.as_written_when_nested() { (-1, 0.0) } else { (r.fallback() as i64, r.fallback_value()) };
    let guard = if r.as_written_when_nested() { format!("if ({}) ", team_var(r.id)) } else { String::new() };
    // a template's instantiation names its region (instanced=1 in the descriptor)
    let instance = if r.descriptor.instanced { format!(" {context}.instance = __PRETTY_FUNCTION__;") } else { String::new() };
    p.push(Piece::Text(format!(
        " {context}.variant = {fallback}; {context}.value = {value:?};{instance} {guard}{begin}(&{handle}, {spec}, ",
        begin = markers::RUNTIME_BEGIN
    )));
    let params = [r.min_train.clone(), r.params.first().cloned(), r.params.get(1).cloned()];
    for arg in params {
        match arg {
            Some(expr) => {
                p.push(expr.text_at(to_long));
                p.push(expr.piece(expr.range.clone()));
                p.push(expr.text_at("), "));
            }
            None => p.push(Piece::Text("-1L, ".into())),
        }
    }
    p.push(Piece::Text(format!("{features}, {nfeatures}, &{context}); }}")));
    if let Some(out) = &r.model_output {
        store_output(out, &context, cplusplus, &mut p);
    }
    p
}

/// `out = context.value`, converted explicitly to the lvalue's type (no -Wconversion on generated
/// code), after a type check that reports a non-arithmetic lvalue in ompadapt's words
/// (plugin/include/ompadapt_lowering.h).
fn store_output(out: &ExprRef, context: &str, cplusplus: bool, p: &mut Vec<Piece>) {
    let lvalue = || out.piece(out.range.clone());
    if cplusplus {
        // a function decays to a pointer in __builtin_classify_type: told apart here
        p.push(out.text_at("__ompadapt_check_output(__is_function(__remove_reference_t(__decltype(("));
        p.push(lvalue());
        p.push(out.text_at(")))) ? 10 : __builtin_classify_type("));
        p.push(lvalue());
        p.push(out.text_at("));"));
        let t = |p: &mut Vec<Piece>| {
            p.push(out.text_at("__ompadapt_output<__remove_cvref(__decltype("));
            p.push(lvalue());
            p.push(out.text_at("))>"));
        };
        p.push(out.text_at("__builtin_choose_expr("));
        t(p);
        p.push(out.text_at("::arithmetic, "));
        p.push(lvalue());
        p.push(out.text_at(", __ompadapt_sink) = "));
        t(p);
        p.push(out.text_at(format!("::convert({context}.value);")));
        return;
    }
    p.push(out.text_at("__ompadapt_check_output(__builtin_classify_type("));
    p.push(lvalue());
    p.push(out.text_at("));"));
    p.push(lvalue());
    // C: integer (1), bool (4) and real floating (8) type classes take the value, cast to their
    // type by a generic selection; anything else keeps its own value (the check above has
    // reported it, and no second error follows). `__extension__`: also in C89/C99 modes.
    let v = format!("{context}.value");
    let casts: String = [
        "_Bool",
        "char",
        "signed char",
        "unsigned char",
        "short",
        "unsigned short",
        "int",
        "unsigned int",
        "long",
        "unsigned long",
        "long long",
        "unsigned long long",
        "float",
        "double",
        "long double",
    ]
    .iter()
    .map(|t| format!("{t}: ({t})({v}), "))
    .collect();
    p.push(out.text_at(" = __extension__ __builtin_choose_expr((0x112u >> (__builtin_classify_type("));
    p.push(lvalue());
    p.push(out.text_at(") & 31)) & 1u, _Generic(("));
    p.push(lvalue());
    p.push(out.text_at(format!("), {casts}default: {v}), ")));
    p.push(lvalue());
    p.push(out.text_at(");"));
}

/// Code for the end of region `id`: the runtime's end call on its context.
pub fn end_region(id: u32) -> Piece {
    Piece::Text(format!("{}(&{});", markers::RUNTIME_END, context_var(id)))
}

/// Code for the end of region `r`: for a host region of zero-source-change mode, the end call
/// where its begin was called.
pub fn end_region_of(r: &RegionDesc) -> Piece {
    if !r.as_written_when_nested() {
        return end_region(r.id);
    }
    Piece::Text(format!("if ({}) {}(&{});", team_var(r.id), markers::RUNTIME_END, context_var(r.id)))
}

/// The variable that holds whether a host region of zero-source-change mode runs its variants.
fn team_var(id: u32) -> String {
    format!("_ompadapt_t{id}")
}

/// One arm of a run-time choice between directive variants.
pub struct ChoiceArm<'a> {
    /// The variant index that selects this arm.
    pub variant: usize,
    /// The directive variant the arm runs.
    pub directive: &'a DirectiveVariant,
}

/// `if (c.variant == 0) { #pragma omp v0  stmt } else if ... [else { stmt }]`. With
/// `statement`, each arm gets a copy of the statement, and `bare` adds a last arm that runs the
/// statement without a directive (for variants no arm names); the last arm of a full chain is
/// a plain `else`.
pub fn choice(id: u32, arms: &[ChoiceArm], statement: bool, bare: bool) -> Vec<Piece> {
    let mut p = Vec::new();
    let context = context_var(id);
    for (i, arm) in arms.iter().enumerate() {
        // A full chain over a statement ends in a plain `else`: the statement always runs.
        let last_else = statement && !bare && i + 1 == arms.len();
        let head = match (i, last_else) {
            (0, true) => "{".to_string(),
            (_, true) => "else {".to_string(),
            (0, false) => format!("if ({context}.variant == {}) {{", arm.variant),
            _ => format!("else if ({context}.variant == {}) {{", arm.variant),
        };
        p.push(Piece::Text(head));
        if !arm.directive.pieces.is_empty() {
            p.push(Piece::OmpBegin);
            p.extend(arm.directive.pieces.iter().map(|r| Piece::User(r.clone())));
            p.push(Piece::OmpEnd);
        }
        if statement {
            p.push(Piece::Statement);
        }
        p.push(Piece::Text("}".into()));
    }
    if statement && bare {
        p.push(Piece::Text(if arms.is_empty() { "{" } else { "else {" }.into()));
        p.push(Piece::Statement);
        p.push(Piece::Text("}".into()));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_strings_are_escaped() {
        assert_eq!(c_string("a\"b\\c??="), "\"a\\\"b\\\\c\\?\\?=\"");
        assert_eq!(c_string("\x01f"), "\"\\x01\"\"f\"");
    }

    #[test]
    fn context_identifiers_become_calls() {
        let toks = crate::token::lex("omp_num_threads * 2 + s.omp_num_teams + omp_num_teams");
        let e = ExprRef::here(0..toks.len());
        let mut p = Vec::new();
        feature_pieces(&e, &toks, &mut p);
        assert_eq!(
            p,
            vec![
                Piece::TextAt("__ompadapt_omp_get_max_threads()".into(), 0),
                Piece::User(1..8),
                Piece::TextAt("__ompadapt_omp_get_max_teams()".into(), 0),
            ]
        );
    }
}
