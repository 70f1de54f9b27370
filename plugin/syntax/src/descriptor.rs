//! The region descriptor ("spec") the runtime reads (format in runtime/include/ompadapt.h,
//! parser in runtime/src/spec.rs): one line of `;`-separated `key=value` fields. Names and
//! source text are percent-encoded where they contain `%`, `;`, `,` or control characters, so a
//! feature written `max(a, b)` keeps its comma.

use crate::clauses::ModelKind;
use crate::variants::{format_value, VariantSet};

/// Percent-encodes the characters that separate fields and list items.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '%' | ';' | ',' => out.push_str(&format!("%{:02X}", ch as u32)),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// One feature as the descriptor records it.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureSpec {
    /// Source text as written.
    pub text: String,
    pub range: Option<(f64, f64)>,
    pub min_samples: Option<u64>,
}

/// An associated region's link to its primary region (Liao et al. `use_model`).
#[derive(Clone, Debug, PartialEq)]
pub struct AssocSpec {
    pub primary: String,
    pub mapping: Vec<u32>,
    /// The primary's own descriptor, when this translation unit knows it: the runtime creates
    /// the primary from it if the associated region runs first.
    pub primary_spec: Option<String>,
}

/// Everything a descriptor says about a region.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecFields<'a> {
    pub name: &'a str,
    pub location: &'a str,
    pub features: &'a [FeatureSpec],
    pub variants: &'a VariantSet,
    pub model: ModelKind,
    pub assoc: Option<&'a AssocSpec>,
    /// Variant to run without a runtime (the generated fallback reads it).
    pub fallback: usize,
}

/// Builds the descriptor. Fields a region does not use are left out, so descriptors of plain
/// regions read exactly as before.
pub fn spec(f: &SpecFields) -> String {
    let list = |items: Vec<String>| items.join(",");
    let mut s = format!(
        "ompadapt1;model={};loc={};features={};variants={};values={};numeric={};model_type={}",
        escape(f.name),
        escape(f.location),
        list(f.features.iter().map(|x| escape(&x.text)).collect()),
        list(f.variants.variants.iter().map(|v| escape(&v.name)).collect()),
        list(f.variants.variants.iter().map(|v| format_value(v.value)).collect()),
        u8::from(f.variants.numeric),
        f.model.spec_name()
    );
    if f.features.iter().any(|x| x.range.is_some()) {
        let ranges = f
            .features
            .iter()
            .map(|x| x.range.map_or(String::new(), |(lo, hi)| format!("{}:{}", format_value(lo), format_value(hi))))
            .collect();
        s.push_str(&format!(";feature_ranges={}", list(ranges)));
    }
    if f.features.iter().any(|x| x.min_samples.is_some()) {
        let mins = f.features.iter().map(|x| x.min_samples.map_or(String::new(), |n| n.to_string())).collect();
        s.push_str(&format!(";min_sample_points={}", list(mins)));
    }
    if let Some(a) = f.assoc {
        s.push_str(&format!(";use_model={};variant_mapping={}", escape(&a.primary), list(a.mapping.iter().map(u32::to_string).collect())));
        if let Some(p) = &a.primary_spec {
            s.push_str(&format!(";primary={}", escape_all(p)));
        }
    }
    if f.fallback != 0 {
        s.push_str(&format!(";fallback={}", f.fallback));
    }
    s
}

/// Percent-encodes a whole descriptor nested in a field: also `=` so it stays one value.
fn escape_all(s: &str) -> String {
    escape(s).replace('=', "%3D")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::{Variant, VariantSet};

    #[test]
    fn plain_region_descriptor_is_unchanged() {
        let vs = VariantSet::new(
            true,
            vec![Variant { name: "0.5".into(), value: 0.5, tok: 0 }, Variant { name: "1".into(), value: 1.0, tok: 0 }],
        );
        let f = [FeatureSpec { text: "f(a, b)".into(), range: None, min_samples: None }];
        let s = spec(&SpecFields {
            name: "m",
            location: "a.c:3",
            features: &f,
            variants: &vs,
            model: ModelKind::RandomForest,
            assoc: None,
            fallback: 0,
        });
        assert_eq!(s, "ompadapt1;model=m;loc=a.c:3;features=f(a%2C b);variants=0.5,1;values=0.5,1;numeric=1;model_type=rfc");
    }

    #[test]
    fn declare_adaptation_fields() {
        let vs = VariantSet::categorical(vec!["enter data".into()]);
        let f = [
            FeatureSpec { text: "N".into(), range: Some((0.0, 30000.0)), min_samples: Some(25) },
            FeatureSpec { text: "M".into(), range: None, min_samples: None },
        ];
        let primary = "ompadapt1;model=p;variants=a,b";
        let a = AssocSpec { primary: "p".into(), mapping: vec![1], primary_spec: Some(primary.into()) };
        let s = spec(&SpecFields {
            name: "p<-a.c:1",
            location: "a.c:1",
            features: &f,
            variants: &vs,
            model: ModelKind::DecisionTree,
            assoc: Some(&a),
            fallback: 1,
        });
        assert!(s.contains(";feature_ranges=0:30000,;min_sample_points=25,;use_model=p;variant_mapping=1;"), "{s}");
        assert!(s.ends_with(";primary=ompadapt1%3Bmodel%3Dp%3Bvariants%3Da%2Cb;fallback=1"), "{s}");
        assert_eq!(escape("a;b%c\n"), "a%3Bb%25c%0A");
    }
}
