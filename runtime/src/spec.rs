//! Parsing of the region descriptor ("spec") the plugin emits.
//!
//! Format (see `include/ompadapt.h`), one line of `;`-separated fields, the first one being the
//! format tag:
//!
//! ```text
//! ompadapt1;model=NAME;loc=FILE:LINE;features=F1,F2;variants=V1,V2;values=X1,X2;numeric=0|1;model_type=auto|dtree|rfc|logistic
//! ```
//!
//! Liao et al.'s `declare adaptation` adds optional fields: `feature_ranges=LO:HI,` (per feature,
//! empty when not declared), `min_sample_points=N,` (likewise), and for an associated region
//! `use_model=PRIMARY;variant_mapping=2,3[;primary=<the primary's descriptor>]`.
//! Names and source text are percent-encoded where they contain `%`, `;` or `,`.
//!
//! * `model` and `variants` are required; everything else has a default (`loc=?`, no feature
//!   names, `values` = the variant indices, `numeric=0`, `model_type=auto`).
//! * Unknown keys, and fields without `=`, are ignored so that a newer plugin can add fields.
//! * An unknown `model_type` (a newer plugin's model) is not an error: it warns and uses `dtree`.
//! * Anything else that is wrong (another format tag, no model name, no variants, a `values`
//!   list of the wrong length or with a non-number, `numeric` other than 0/1, duplicate variant
//!   names, more than [`MAX_VARIANTS`] variants) makes the spec malformed: the caller prints
//!   [`SpecError`]'s one line and runs variant 0 forever.

use std::fmt;

/// Most variants a region may have; the plugin accepts exactly as many
/// (plugin/syntax/src/limits.rs), so a region that compiles always adapts. A power of two.
pub const MAX_VARIANTS: usize = 1024;

/// The model family named by `model_type=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    /// `dtree`: one decision tree; param1 = max depth.
    DecisionTree,
    /// `rfc`: random forest classifier; param1 = trees, param2 = max depth.
    RandomForest,
    /// `logistic`: multinomial logistic regression.
    Logistic,
    /// `auto` (what the plugin passes when the directive names no model type, and the default
    /// of a spec without `model_type=`): the runtime chooses by cross-validated regret.
    Auto,
}

impl ModelType {
    /// The spelling used in specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            ModelType::DecisionTree => "dtree",
            ModelType::RandomForest => "rfc",
            ModelType::Logistic => "logistic",
            ModelType::Auto => "auto",
        }
    }
}

/// A parsed region descriptor.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// `model=`: the region's identity (two call sites with one model share one region).
    pub model: String,
    /// `loc=`: `FILE:LINE` of the directive.
    pub loc: String,
    /// `features=`: source text of each feature (may be shorter than the features passed).
    pub features: Vec<String>,
    /// `variants=`: variant names in declaration order.
    pub variants: Vec<String>,
    /// `values=`: numeric value of each variant (indices when categorical).
    pub values: Vec<f64>,
    /// `numeric=`: whether the variants are numeric values (e.g. thread counts).
    pub numeric: bool,
    /// `model_type=`.
    pub model_type: ModelType,
    /// `feature_ranges=`: the declared range of each feature (Liao et al. `range[lo:hi]`).
    pub feature_ranges: Vec<Option<(f64, f64)>>,
    /// `min_sample_points=`: per feature, values to sample before training (Liao et al.).
    pub min_sample_points: Vec<Option<u64>>,
    /// `use_model=` …: the region is associated with a primary region (Liao et al.).
    pub assoc: Option<AssocSpec>,
}

/// An associated region's link to its primary region.
#[derive(Clone, Debug, PartialEq)]
pub struct AssocSpec {
    /// `use_model=`: the primary region's model name.
    pub primary: String,
    /// `variant_mapping=`: for each variant of this region, the primary's variant it runs with.
    pub mapping: Vec<usize>,
    /// `primary=`: the primary's own descriptor, when the compiler knew it.
    pub primary_spec: Option<String>,
}

impl Spec {
    /// Whether two specs describe the same region apart from the call site.
    pub fn same_region(&self, other: &Spec) -> bool {
        self.model == other.model
            && self.features == other.features
            && self.variants == other.variants
            && self.values == other.values
            && self.numeric == other.numeric
            && self.model_type == other.model_type
    }

    /// Liao et al.'s suggested training-set size: the product of the features' `min_sample_points`
    /// times the number of variants; None when no feature declares one.
    pub fn suggested_training_size(&self) -> Option<usize> {
        if self.min_sample_points.iter().all(Option::is_none) {
            return None;
        }
        let product = self.min_sample_points.iter().flatten().fold(1u64, |a, &n| a.saturating_mul(n.max(1)));
        Some(product.saturating_mul(self.variants.len() as u64).min(usize::MAX as u64) as usize)
    }

    /// Display name of feature `i` (its source text, or `f<i>` when the spec has none).
    pub fn feature_name(&self, i: usize) -> String {
        match self.features.get(i) {
            Some(f) if !f.trim().is_empty() => f.trim().to_owned(),
            _ => format!("f{i}"),
        }
    }
}

/// Why a spec could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecError {
    /// Best-effort name of the region (its model name, else its location, else the spec text).
    pub region: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "region '{}': malformed region descriptor ({}); it will always run its first variant \
             (rebuild it with the same version of the ompadapt plugin and runtime)",
            self.region, self.reason
        )
    }
}

/// A successfully parsed spec plus non-fatal remarks (printed once by the caller).
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub spec: Spec,
    pub warnings: Vec<String>,
}

fn split_list(v: &str) -> Vec<String> {
    if v.is_empty() {
        Vec::new()
    } else {
        v.split(',').map(|s| decode(s.trim())).collect()
    }
}

/// Undoes the plugin's percent-encoding (`%2C` is a comma); anything else is kept as it is.
pub fn decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() + 1 && i + 3 <= b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `LO:HI` or empty, per feature.
fn parse_ranges(v: &str) -> Result<Vec<Option<(f64, f64)>>, String> {
    v.split(',')
        .map(|x| {
            let x = x.trim();
            if x.is_empty() {
                return Ok(None);
            }
            let (lo, hi) = x.split_once(':').ok_or_else(|| format!("feature range '{x}' is not LO:HI"))?;
            match (lo.trim().parse::<f64>(), hi.trim().parse::<f64>()) {
                (Ok(lo), Ok(hi)) if lo <= hi => Ok(Some((lo, hi))),
                _ => Err(format!("feature range '{x}' is not LO:HI with LO <= HI")),
            }
        })
        .collect()
}

/// Parses a spec.
pub fn parse(text: &str) -> Result<Parsed, SpecError> {
    let mut fields = text.trim().split(';');
    let tag = fields.next().unwrap_or("").trim();

    let mut model = None;
    let mut loc = None;
    let mut features = Vec::new();
    let mut variants = None;
    let mut values_text = None;
    let mut numeric_text = None;
    let mut model_type_text = None;
    let (mut ranges_text, mut min_points_text, mut use_model, mut mapping_text, mut primary) = (None, None, None, None, None);
    for field in fields {
        let Some((k, v)) = field.split_once('=') else { continue };
        match k.trim() {
            "model" => model = Some(decode(v.trim())),
            "loc" => loc = Some(decode(v.trim())),
            "feature_ranges" => ranges_text = Some(v.to_owned()),
            "min_sample_points" => min_points_text = Some(v.to_owned()),
            "use_model" => use_model = Some(decode(v.trim())),
            "variant_mapping" => mapping_text = Some(v.trim().to_owned()),
            "primary" => primary = Some(decode(v.trim())),
            "features" => features = split_list(v),
            "variants" => variants = Some(split_list(v.trim())),
            "values" => values_text = Some(v.trim().to_owned()),
            "numeric" => numeric_text = Some(v.trim().to_owned()),
            "model_type" => model_type_text = Some(v.trim().to_owned()),
            _ => {} // forward compatibility
        }
    }

    let model = model.filter(|m| !m.is_empty());
    let region = match (&model, &loc) {
        (Some(m), _) => m.clone(),
        (None, Some(l)) if !l.is_empty() => format!("<unnamed at {l}>"),
        _ => {
            let t: String = text.chars().take(80).collect();
            format!("<spec \"{t}\">")
        }
    };
    let fail = |reason: String| Err(SpecError { region: region.clone(), reason });

    if tag != "ompadapt1" {
        return fail(if tag.starts_with("ompadapt") {
            format!("format '{tag}' is not supported by this runtime, which reads 'ompadapt1'")
        } else {
            "it does not start with 'ompadapt1'".to_owned()
        });
    }
    let Some(model) = model else { return fail("no 'model=' name".to_owned()) };
    let variants = variants.unwrap_or_default();
    if variants.is_empty() || variants.iter().any(|v| v.is_empty()) {
        return fail("'variants=' is missing or has an empty name".to_owned());
    }
    if variants.len() > MAX_VARIANTS {
        return fail(format!("{} variants, at most {MAX_VARIANTS} are supported", variants.len()));
    }
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].contains(v) {
            return fail(format!("variant '{v}' is listed twice"));
        }
    }
    let values = match values_text {
        None => (0..variants.len()).map(|i| i as f64).collect(),
        Some(t) => {
            let mut out = Vec::new();
            for x in split_list(&t) {
                match x.parse::<f64>() {
                    Ok(v) if v.is_finite() => out.push(v),
                    _ => return fail(format!("variant value '{x}' is not a number")),
                }
            }
            if out.len() != variants.len() {
                return fail(format!("{} values for {} variants", out.len(), variants.len()));
            }
            out
        }
    };
    let numeric = match numeric_text.as_deref() {
        None | Some("0") => false,
        Some("1") => true,
        Some(x) => return fail(format!("numeric={x}, expected 0 or 1")),
    };
    let mut warnings = Vec::new();
    let model_type = match model_type_text.as_deref() {
        None | Some("") | Some("auto") => ModelType::Auto,
        Some("dtree") => ModelType::DecisionTree,
        Some("rfc") => ModelType::RandomForest,
        Some("logistic") => ModelType::Logistic,
        Some(x) => {
            warnings.push(format!(
                "region '{model}': model type '{x}' is not supported by this runtime; using a \
                 decision tree (dtree)"
            ));
            ModelType::DecisionTree
        }
    };
    let feature_ranges = match ranges_text.as_deref().map(parse_ranges) {
        None => Vec::new(),
        Some(Ok(r)) => r,
        Some(Err(e)) => return fail(e),
    };
    let mut min_sample_points = Vec::new();
    for x in min_points_text.as_deref().map(|t| t.split(',').collect::<Vec<_>>()).unwrap_or_default() {
        match x.trim() {
            "" => min_sample_points.push(None),
            n => match n.parse::<u64>() {
                Ok(n) if n >= 1 => min_sample_points.push(Some(n)),
                _ => return fail(format!("min_sample_points '{n}' is not a positive integer")),
            },
        }
    }
    let assoc = match (use_model, mapping_text) {
        (None, None) => None,
        (Some(p), Some(m)) if !p.is_empty() => {
            let mut mapping = Vec::new();
            for x in m.split(',') {
                match x.trim().parse::<usize>() {
                    Ok(v) if v < MAX_VARIANTS => mapping.push(v),
                    _ => return fail(format!("variant_mapping entry '{}' is not a variant index", x.trim())),
                }
            }
            if mapping.len() != variants.len() {
                return fail(format!("variant_mapping has {} entries for {} variants", mapping.len(), variants.len()));
            }
            Some(AssocSpec { primary: p, mapping, primary_spec: primary })
        }
        _ => return fail("use_model and variant_mapping come together".to_owned()),
    };
    Ok(Parsed {
        spec: Spec {
            model,
            loc: loc.filter(|l| !l.is_empty()).unwrap_or_else(|| "?".to_owned()),
            features,
            variants,
            values,
            numeric,
            model_type,
            feature_ranges,
            min_sample_points,
            assoc,
        },
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_spec() {
        let p = parse(
            "ompadapt1;model=mm;loc=mm.c:42;features=N,M * 2;variants=cpu,gpu;values=0,1;\
             numeric=0;model_type=rfc",
        )
        .unwrap();
        assert!(p.warnings.is_empty());
        let s = p.spec;
        assert_eq!(s.model, "mm");
        assert_eq!(s.loc, "mm.c:42");
        assert_eq!(s.features, vec!["N", "M * 2"]);
        assert_eq!(s.variants, vec!["cpu", "gpu"]);
        assert_eq!(s.values, vec![0.0, 1.0]);
        assert!(!s.numeric);
        assert_eq!(s.model_type, ModelType::RandomForest);
        assert_eq!(s.feature_name(1), "M * 2");
        assert_eq!(s.feature_name(2), "f2");
    }

    #[test]
    fn defaults_and_unknown_keys() {
        let s = parse("ompadapt1;model=t;variants=1,2,4,8;future_key=whatever;noequals;").unwrap().spec;
        assert_eq!(s.loc, "?");
        assert!(s.features.is_empty());
        assert_eq!(s.values, vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(s.model_type, ModelType::Auto, "no model type: the runtime chooses");
        let s = parse("ompadapt1;model=t;variants=a,b;model_type=auto").unwrap().spec;
        assert_eq!(s.model_type, ModelType::Auto);
        let s = parse("ompadapt1;model=t;variants=a,b;model_type=dtree").unwrap().spec;
        assert_eq!(s.model_type, ModelType::DecisionTree);
        let s = parse("ompadapt1;model=t;variants=a,b;values=1.5,-2;numeric=1;features=").unwrap();
        assert_eq!(s.spec.values, vec![1.5, -2.0]);
        assert!(s.spec.numeric);
        assert!(s.spec.features.is_empty());
    }

    #[test]
    fn unknown_model_type_warns() {
        let p = parse("ompadapt1;model=t;variants=a,b;model_type=logreg").unwrap();
        assert_eq!(p.spec.model_type, ModelType::DecisionTree);
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("logreg"));
    }

    #[test]
    fn malformed() {
        let cases = [
            ("", "<spec"),
            ("garbage", "<spec"),
            ("ompadapt2;model=x;variants=a", "x"),
            ("ompadapt1;loc=a.c:3;variants=a", "<unnamed at a.c:3>"),
            ("ompadapt1;model=;variants=a", "<spec"),
            ("ompadapt1;model=x", "x"),
            ("ompadapt1;model=x;variants=", "x"),
            ("ompadapt1;model=x;variants=a,,b", "x"),
            ("ompadapt1;model=x;variants=a,a", "x"),
            ("ompadapt1;model=x;variants=a,b;values=1", "x"),
            ("ompadapt1;model=x;variants=a,b;values=1,zz", "x"),
            ("ompadapt1;model=x;variants=a,b;values=1,inf", "x"),
            ("ompadapt1;model=x;variants=a,b;numeric=yes", "x"),
        ];
        for (text, region) in cases {
            let e = parse(text).expect_err(text);
            assert!(e.region.starts_with(region), "{text}: region {}", e.region);
            let line = e.to_string();
            assert!(!line.contains('\n'), "one line: {line}");
            assert!(line.contains(&e.region));
        }
        let many = |n: usize| format!("ompadapt1;model=x;variants={}", (0..n).map(|i| format!("v{i}")).collect::<Vec<_>>().join(","));
        assert!(parse(&many(MAX_VARIANTS + 1)).is_err());
        assert_eq!(parse(&many(MAX_VARIANTS)).unwrap().spec.variants.len(), MAX_VARIANTS);
        for bad in [
            "ompadapt1;model=x;variants=a,b;feature_ranges=3:1",
            "ompadapt1;model=x;variants=a,b;feature_ranges=zz",
            "ompadapt1;model=x;variants=a,b;min_sample_points=0",
            "ompadapt1;model=x;variants=a;use_model=p",
            "ompadapt1;model=x;variants=a;use_model=p;variant_mapping=1,2",
            "ompadapt1;model=x;variants=a;use_model=p;variant_mapping=q",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn declare_adaptation_fields() {
        let p = parse(
            "ompadapt1;model=declare@sw.c:13;loc=sw.c:13;features=nDiag,max(a%2C b);variants=plain,parallel for,target;\
             values=0,1,2;numeric=0;model_type=logistic;feature_ranges=0:30000,;min_sample_points=25,4",
        )
        .unwrap();
        assert!(p.warnings.is_empty());
        let s = p.spec;
        assert_eq!(s.features, vec!["nDiag", "max(a, b)"]);
        assert_eq!(s.model_type, ModelType::Logistic);
        assert_eq!(s.feature_ranges, vec![Some((0.0, 30000.0)), None]);
        assert_eq!(s.suggested_training_size(), Some(25 * 4 * 3));
        assert!(s.assoc.is_none());
        let a = parse(
            "ompadapt1;model=p<-sw.c:3;variants=enter data;use_model=scoring_loop;variant_mapping=2;\
             primary=ompadapt1%3Bmodel%3Dscoring_loop%3Bvariants%3Da%2Cb%2Cc;fallback=1",
        )
        .unwrap()
        .spec;
        let assoc = a.assoc.unwrap();
        assert_eq!((assoc.primary.as_str(), assoc.mapping.as_slice()), ("scoring_loop", &[2usize][..]));
        let primary = parse(assoc.primary_spec.as_deref().unwrap()).unwrap().spec;
        assert_eq!(primary.variants, vec!["a", "b", "c"]);
        assert_eq!(decode("100%25%zz%2"), "100%%zz%2");
    }

    #[test]
    fn same_region_ignores_location() {
        let a = parse("ompadapt1;model=x;loc=a.c:1;variants=a,b").unwrap().spec;
        let b = parse("ompadapt1;model=x;loc=b.c:9;variants=a,b").unwrap().spec;
        let c = parse("ompadapt1;model=x;loc=b.c:9;variants=a,b,c").unwrap().spec;
        assert!(a.same_region(&b));
        assert!(!a.same_region(&c));
    }
}
