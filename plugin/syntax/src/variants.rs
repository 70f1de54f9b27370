//! The `variants(...)` clause: categorical identifiers, or numbers and `[BEGIN:END:STEP]`
//! ranges (END inclusive, integer or floating point, constant expressions), expanded at compile
//! time so that the host and every device compilation agree on the variant list.

use crate::brackets::Brackets;
use crate::clauses::{constant, split_top_level};
use crate::diag::{Diagnostic, Diags};
use crate::kinds::{self, Kind};
use crate::limits::MAX_VARIANTS;
use crate::numeric_range::{format_value, parse_range, tidy, too_many};
use crate::token::{Tok, TokKind};
use std::collections::HashMap;
use std::ops::Range;

/// One variant of a region.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// Name used in selectors, reports and the region descriptor (`cpu`, `64`, `0.3`).
    pub name: String,
    /// Value stored into `model_output`: the number of a numeric variant or kind (`64`,
    /// `thread_limit=128`), the index of any other.
    pub value: f64,
    /// Token that introduced the variant (for diagnostics).
    pub tok: usize,
}

/// The variants of a region, in order; a variant's index is what the runtime chooses.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantSet {
    /// The variants are numbers (from numeric constants and ranges), each valued by its number;
    /// otherwise they are categorical.
    pub numeric: bool,
    /// The variants, in the order written (ranges expanded).
    pub variants: Vec<Variant>,
    /// Index of each name: selector lookups in O(1), whatever the number of variants.
    by_name: HashMap<String, usize>,
}

impl VariantSet {
    /// A set of `variants`, each looked up by its name.
    pub fn new(numeric: bool, variants: Vec<Variant>) -> VariantSet {
        let by_name = variants.iter().enumerate().map(|(i, v)| (v.name.clone(), i)).collect();
        VariantSet { numeric, variants, by_name }
    }
    /// The index of the variant named `name`.
    pub fn index_of_name(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }
    /// The index of the variant with value `value`: the one named by it, else the first within
    /// 1e-9 of it (relative, for values above 1).
    pub fn index_of_value(&self, value: f64) -> Option<usize> {
        // Numeric variants are named by their tidy value: exact hits are O(1).
        self.index_of_name(&format_value(tidy(value))).filter(|&i| self.variants[i].value == tidy(value)).or_else(|| {
            let tol = 1e-9 * value.abs().max(1.0);
            self.variants.iter().position(|v| (v.value - value).abs() <= tol)
        })
    }
    /// The variants' names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name.as_str()).collect()
    }
    /// Categorical variants with the given names, valued by their index.
    pub fn categorical(names: Vec<String>) -> VariantSet {
        let variants = names.into_iter().enumerate().map(|(i, name)| Variant { name, value: i as f64, tok: 0 }).collect();
        VariantSet::new(false, variants)
    }
    /// The categorical variants (identifiers or kinds) that remain of a set once some are
    /// dropped, valued again as `variants(...)` values them: indices move.
    pub fn remaining(mut kept: Vec<Variant>) -> VariantSet {
        settle_values(&mut kept);
        VariantSet::new(false, kept)
    }
    /// The variant kinds of the set: `Some` when at least one variant names a kind (the set is
    /// then the compiler's to generate); each entry `None` for a name that is not a kind.
    pub fn kinds(&self) -> Option<Vec<Option<Kind>>> {
        if self.numeric {
            return None;
        }
        let kinds: Vec<Option<Kind>> = self.variants.iter().map(|v| kinds::decode(&v.name)).collect();
        kinds.iter().any(Option::is_some).then_some(kinds)
    }
}

/// Values of categorical and schedule variants are their indices (`model_output` and selectors
/// read them); numeric kinds keep their number.
fn settle_values(variants: &mut [Variant]) {
    for (i, v) in variants.iter_mut().enumerate() {
        if !kinds::decode(&v.name).is_some_and(|k| k.is_numeric()) {
            v.value = i as f64;
        }
    }
}

/// Parses the arguments of `variants(...)`: `clause` is the index of the `variants` token,
/// `args` the tokens between the parentheses.
pub fn parse_variants(toks: &[Tok], clause: usize, args: Range<usize>, brackets: &Brackets, diags: &mut Diags) -> Option<VariantSet> {
    if args.is_empty() {
        diags.push(Diagnostic::error(clause, args.end + 1, "'variants' clause needs at least one variant"));
        return None;
    }
    let mut out: Vec<Variant> = Vec::new();
    let mut categorical_at: Option<usize> = None;
    let mut numeric_at: Option<usize> = None;
    for item in split_top_level(toks, args.clone(), brackets) {
        if item.is_empty() {
            diags.push(Diagnostic::error(item.start, item.start, "expected a variant"));
            return None;
        }
        let first = &toks[item.start];
        if first.is_punct("[") && brackets.close_of(item.start) == Some(item.end - 1) {
            numeric_at.get_or_insert(item.start);
            let vals = parse_range(toks, item.clone(), brackets, MAX_VARIANTS - out.len(), diags)?;
            out.extend(vals.into_iter().map(|v| Variant { name: format_value(v), value: v, tok: item.start }));
        } else if first.kind == TokKind::Ident && item.len() > 1 && kinds::is_kind_item(toks, item.clone(), brackets) {
            // A variant kind with a range or arguments (`thread_limit[64:256:64]`,
            // `schedule(dynamic, [1:64:x])`): categorical variants named by their decoded value.
            categorical_at.get_or_insert(item.start);
            for (name, value) in kinds::expand_kind_item(toks, item.clone(), brackets, MAX_VARIANTS - out.len(), diags)? {
                if out.len() == MAX_VARIANTS {
                    too_many(item.clone(), (out.len() + 1) as f64, diags);
                    return None;
                }
                out.push(Variant { name, value, tok: item.start });
            }
        } else if first.kind == TokKind::Ident && item.len() == 1 {
            categorical_at.get_or_insert(item.start);
            if out.len() == MAX_VARIANTS {
                too_many(item.clone(), (out.len() + 1) as f64, diags);
                return None;
            }
            let value = out.len() as f64;
            out.push(Variant { name: first.text.clone(), value, tok: item.start });
        } else if matches!(first.kind, TokKind::Number | TokKind::Punct) && !first.is_punct("[") {
            let n = constant(toks, item.clone(), brackets, "a numeric variant", diags)?;
            numeric_at.get_or_insert(item.start);
            if out.len() == MAX_VARIANTS {
                too_many(item.clone(), (out.len() + 1) as f64, diags);
                return None;
            }
            let value = tidy(n.value);
            out.push(Variant { name: format_value(value), value, tok: item.start });
        } else {
            diags.push(Diagnostic::error(
                item.start,
                item.end,
                "a variant is an identifier, a numeric constant or a range [BEGIN:END:STEP]",
            ));
            return None;
        }
        if let (Some(c), Some(n)) = (categorical_at, numeric_at) {
            let at = c.max(n);
            diags.push(Diagnostic::error(at, at + 1, "variants cannot mix identifiers and numbers"));
            return None;
        }
    }
    let mut first_at: HashMap<&str, usize> = HashMap::with_capacity(out.len());
    for v in &out {
        if let Some(&prev) = first_at.get(v.name.as_str()) {
            diags.push(Diagnostic::error(v.tok, v.tok + 1, format!("duplicate variant '{}'", v.name)));
            if prev != v.tok {
                diags.push(Diagnostic::note(prev, prev + 1, "first listed here"));
            }
            return None;
        }
        first_at.insert(&v.name, v.tok);
    }
    if numeric_at.is_none() {
        settle_values(&mut out);
    }
    Some(VariantSet::new(numeric_at.is_some(), out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::lex;

    fn variants(src: &str) -> (Option<VariantSet>, Diags) {
        let toks = lex(src);
        let mut d = Vec::new();
        let b = Brackets::new(&toks, &mut d).unwrap();
        let v = parse_variants(&toks, 0, 0..toks.len(), &b, &mut d);
        (v, d)
    }

    #[test]
    fn integer_range_is_inclusive() {
        let (v, d) = variants("[10:20:2]");
        assert!(d.is_empty());
        let v = v.unwrap();
        assert!(v.numeric);
        assert_eq!(v.names(), vec!["10", "12", "14", "16", "18", "20"]);
        assert_eq!(variants("[64:1024:64]").0.unwrap().variants.len(), 16);
        assert_eq!(variants("[32:1024:32]").0.unwrap().variants.len(), 32);
        assert_eq!(variants("[2*16:32*32:32]").0.unwrap().variants.len(), 32);
    }

    #[test]
    fn float_range_has_clean_values() {
        let (v, d) = variants("[0.0:1.0:0.1]");
        assert!(d.is_empty(), "{d:?}");
        let v = v.unwrap();
        assert_eq!(v.variants.len(), 11);
        assert_eq!(v.variants[3].value, 0.3);
        assert_eq!(v.variants[3].name, "0.3");
        assert_eq!(v.variants[10].value, 1.0);
        let v = variants("[0:1:0.01]").0.unwrap();
        assert_eq!(v.variants.len(), 101);
        assert_eq!(v.variants[37].name, "0.37");
    }

    #[test]
    fn categorical_values_are_indices() {
        let v = variants("cpu, gpu").0.unwrap();
        assert!(!v.numeric);
        assert_eq!(v.variants[1].value, 1.0);
        assert_eq!(v.index_of_name("gpu"), Some(1));
    }

    #[test]
    fn numbers_ranges_and_signs_mix() {
        let (v, d) = variants("-1, 4, [8:16:8], 2*16");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(v.unwrap().names(), vec!["-1", "4", "8", "16", "32"]);
    }

    #[test]
    fn limits() {
        assert_eq!(variants(&format!("[1:{MAX_VARIANTS}:1]")).0.unwrap().variants.len(), MAX_VARIANTS);
        let (v, d) = variants(&format!("[1:{}:1]", MAX_VARIANTS + 1));
        assert!(v.is_none());
        assert!(d[0].message.starts_with(&format!("this gives {} variants", MAX_VARIANTS + 1)), "{d:?}");
        let (_, d) = variants("[0:1e300:1e-300]");
        assert!(d[0].message.contains("at most"), "{d:?}");
        let names: Vec<String> = (0..MAX_VARIANTS + 1).map(|i| format!("v{i}")).collect();
        let (v, d) = variants(&names.join(","));
        assert!(v.is_none() && d[0].message.contains("at most"));
    }

    #[test]
    fn duplicates_are_found_in_linear_time() {
        let names: Vec<String> = (0..MAX_VARIANTS).map(|i| format!("v{i}")).collect();
        let t = std::time::Instant::now();
        let (v, _) = variants(&names.join(","));
        assert_eq!(v.unwrap().variants.len(), MAX_VARIANTS);
        assert!(t.elapsed().as_millis() < 500);
        let (_, d) = variants("a, b, a");
        assert_eq!(d[0].message, "duplicate variant 'a'");
        assert_eq!((d[0].tok, d[1].tok), (4, 0));
    }

    #[test]
    fn errors() {
        for (src, msg) in [
            ("[0:N:1]", "range END must be a numeric constant"),
            ("[0:8:0]", "range STEP must be positive"),
            ("[0:8:-2]", "range STEP must be positive"),
            ("[8:0:1]", "range END is smaller than BEGIN: the range is empty"),
            ("[0:8]", "a range is written [BEGIN:END:STEP]"),
            ("cpu, 4", "variants cannot mix identifiers and numbers"),
            ("cpu, cpu", "duplicate variant 'cpu'"),
            ("a+b", "a variant is an identifier, a numeric constant or a range [BEGIN:END:STEP]"),
            ("[1:2:1] x", "a variant is an identifier, a numeric constant or a range [BEGIN:END:STEP]"),
            ("1/0", "a numeric variant must be a numeric constant (division by zero)"),
        ] {
            let (v, d) = variants(src);
            assert!(v.is_none(), "{src}");
            assert_eq!(d[0].message, msg, "{src}");
        }
    }
}
