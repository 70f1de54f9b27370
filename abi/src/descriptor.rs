//! The region descriptor: one line of `;`-separated `key=value` fields that every call site of
//! a region passes to the runtime (`ompadapt_begin`), the first field being the format tag.
//!
//! ```text
//! ompadapt1;model=NAME;loc=FILE:LINE;features=F1,F2;variants=V1,V2;values=X1,X2;numeric=0|1;model_type=auto|dtree|rfc|logistic
//! ```
//!
//! followed, where they apply, by `feature_ranges=LO:HI,…` and `min_sample_points=N,…` (per
//! feature, empty where not declared), `use_model=P;variant_mapping=I,…[;primary=…]` (an
//! associated region), `in_parallel=as_written` (a host region that runs as written, unrecorded,
//! inside an active parallel region), `instanced=1` (a region of a template: one region per
//! instantiation) and the runtime options `explore=`, `repeats=`, `coarse=`
//! (typed in [`Setting`]s: a value the runtime cannot use is kept as written, for it to warn
//! about). Names and text are percent-encoded ([`crate::escape`]).
//!
//! The frontend prints a region's descriptor once; the runtime parses it once. The only field
//! added in between is `auto_features=` ([`AutoFeatures`]): the LLVM pass appends the names of
//! the automatic features it derived to the frontend's text without reading it, and the parse
//! appends them to [`RegionDescriptor::features`].
//!
//! Reading is lenient where a newer writer may have added something (unknown keys and fields
//! without `=` are ignored; an unknown `model_type` warns and reads as `dtree`; a nested
//! `primary=` descriptor that cannot be read warns and is left out) and strict about everything
//! else (see [`RegionDescriptor::parse`]).

use std::fmt;
use std::str::FromStr;

use crate::escape::{escape, escape_nested, unescape};
use crate::limits::MAX_VARIANTS;

mod auto_features;
mod options;
pub use auto_features::AutoFeatures;
pub use options::{Explore, OptionValue, Repeats, Setting};

/// The format tag, the descriptor's first field.
pub const FORMAT: &str = "ompadapt1";

/// The model family a region asks for (`model_type=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    /// `dtree`: one decision tree; the call's first model parameter is its depth.
    DecisionTree,
    /// `rfc`: a random forest; the parameters are the number of trees and their depth.
    RandomForest,
    /// `logistic`: multinomial logistic regression.
    Logistic,
    /// `auto` (also a descriptor without `model_type=`): the runtime chooses by
    /// cross-validated regret.
    Auto,
}

impl ModelType {
    /// The spelling in descriptors and reports.
    pub fn name(self) -> &'static str {
        match self {
            ModelType::DecisionTree => "dtree",
            ModelType::RandomForest => "rfc",
            ModelType::Logistic => "logistic",
            ModelType::Auto => "auto",
        }
    }

    /// The model type spelled `name` in a descriptor.
    pub fn from_name(name: &str) -> Option<ModelType> {
        [ModelType::DecisionTree, ModelType::RandomForest, ModelType::Logistic, ModelType::Auto].into_iter().find(|m| m.name() == name)
    }
}

/// An associated region's link to its primary region: it runs with the primary's decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Association {
    /// `use_model=`: the primary region's model name.
    pub primary: String,
    /// `variant_mapping=`: for each variant of this region, the primary's variant it runs with.
    pub mapping: Vec<usize>,
    /// `primary=`: the primary's own descriptor, when the compiler knew it (the runtime creates
    /// the primary from it if the associated region runs first). Written nested, as one
    /// encoded value ([`escape_nested`]), and read with the descriptor that holds it.
    pub primary_descriptor: Option<Box<RegionDescriptor>>,
}

/// Everything a descriptor says about a region.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionDescriptor {
    /// `model=`: the region's identity (call sites naming one model share one region).
    pub model: String,
    /// `loc=`: `FILE:LINE` of the directive (`?` when unknown).
    pub loc: String,
    /// `features=`: the source text of each feature (may be fewer than the features passed).
    pub features: Vec<String>,
    /// `variants=`: the variant names in declaration order.
    pub variants: Vec<String>,
    /// `values=`: the numeric value of each variant (its index when categorical).
    pub values: Vec<f64>,
    /// `numeric=`: whether the variants are numeric values (thread counts, fractions).
    pub numeric: bool,
    /// `model_type=`.
    pub model_type: ModelType,
    /// `feature_ranges=`: the declared range of each feature (empty: none declared).
    pub feature_ranges: Vec<Option<(f64, f64)>>,
    /// `min_sample_points=`: per feature, the values to sample before training.
    pub min_sample_points: Vec<Option<u64>>,
    /// `use_model=` …: set for a region associated with a primary region.
    pub association: Option<Association>,
    /// `explore=`: the exploration strategy.
    pub explore: Option<Setting<Explore>>,
    /// `repeats=`: measurements per pair.
    pub repeats: Option<Setting<Repeats>>,
    /// `coarse=`: one variant per feature vector for a whole run.
    pub coarse: Option<Setting<bool>>,
    /// `in_parallel=as_written`: a host parallel region that, when it starts inside an active
    /// parallel region (an orphaned region called from another), runs as written (variant -1:
    /// every table of its lowering reads the directive's own values) and is not recorded.
    pub as_written_in_parallel: bool,
    /// `instanced=1`: a region of zero-source-change mode in a template (a function template, a
    /// member of a class template, a generic lambda): each instantiation is a region of its own,
    /// named after its template arguments (the generated code passes the instantiation's
    /// `__PRETTY_FUNCTION__`; see [`instance_name`]).
    pub instanced: bool,
    /// `depends=`: the functions of other translation units the region's code calls (the pass's
    /// field, see [`crate::summary`]): the runtime runs its variants only where their summaries,
    /// read from the loaded images, show that none of them can observe the team.
    pub depends: crate::summary::Dependencies,
}

/// The name of the instantiation of region `model` (`function@file:line`) in the template
/// instantiation whose `__PRETTY_FUNCTION__` is `pretty`: its template arguments after the
/// function, `fasten<float>@bude.h:148` (from `void fasten(T *, int) [T = float]`). None when
/// `pretty` names no template arguments.
pub fn instance_name(model: &str, pretty: &str) -> Option<String> {
    let inner = pretty.trim_end().strip_suffix(']')?;
    let open = bracket_start(inner)?;
    let mut args = Vec::new();
    for binding in split_top_level(&inner[open + 1..]) {
        let (_, value) = binding.split_once(" = ")?;
        args.push(value.trim().to_owned());
    }
    if args.is_empty() {
        return None;
    }
    let (function, place) = model.split_once('@').unwrap_or((model, ""));
    let at = if place.is_empty() { String::new() } else { format!("@{place}") };
    Some(format!("{function}<{}>{at}", args.join(",")))
}

/// The name of the template region an instantiation's region belongs to:
/// `fasten<float>@bude.h:148` → `fasten@bude.h:148` (None: not an instantiation's name).
pub fn template_of(name: &str) -> Option<String> {
    let (function, place) = name.split_once('@')?;
    let inner = function.strip_suffix('>')?;
    let mut depth = 0usize;
    for (i, c) in inner.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' if depth == 0 => return Some(format!("{}@{place}", &inner[..i])),
            '<' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Where the `[...]` that ends `inner` (without its `]`) starts, brackets nested in it counted.
fn bracket_start(inner: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ']' => depth += 1,
            '[' if depth == 0 => return Some(i),
            '[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `text` split at the commas outside any `<>`, `()`, `[]` or `{}`.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

impl RegionDescriptor {
    /// A region named `model` at `loc` with categorical `variants` (values are their indices),
    /// no features, `model_type=auto`; set the other fields as needed.
    pub fn new(model: impl Into<String>, loc: impl Into<String>, variants: Vec<String>) -> RegionDescriptor {
        let values = (0..variants.len()).map(|i| i as f64).collect();
        RegionDescriptor {
            model: model.into(),
            loc: loc.into(),
            features: Vec::new(),
            variants,
            values,
            numeric: false,
            model_type: ModelType::Auto,
            feature_ranges: Vec::new(),
            min_sample_points: Vec::new(),
            association: None,
            explore: None,
            repeats: None,
            coarse: None,
            as_written_in_parallel: false,
            instanced: false,
            depends: Default::default(),
        }
    }

    /// Appends features (their source text), with no declared range or sample count.
    pub fn add_features(&mut self, names: &[String]) {
        self.features.extend(names.iter().cloned());
        if !self.feature_ranges.is_empty() {
            self.feature_ranges.extend(names.iter().map(|_| None));
        }
        if !self.min_sample_points.is_empty() {
            self.min_sample_points.extend(names.iter().map(|_| None));
        }
    }

    /// Whether two descriptors describe the same region apart from the call site.
    pub fn same_region(&self, other: &RegionDescriptor) -> bool {
        self.model == other.model
            && self.features == other.features
            && self.variants == other.variants
            && self.values == other.values
            && self.numeric == other.numeric
            && self.model_type == other.model_type
    }

    /// The training-set size the declared `min_sample_points` suggest: their product times
    /// the number of variants; None when no feature declares one.
    pub fn suggested_training_size(&self) -> Option<usize> {
        if self.min_sample_points.iter().all(Option::is_none) {
            return None;
        }
        let product = self.min_sample_points.iter().flatten().fold(1u64, |a, &n| a.saturating_mul(n.max(1)));
        Some(product.saturating_mul(self.variants.len() as u64).min(usize::MAX as u64) as usize)
    }

    /// Display name of feature `i` (its source text, or `f<i>` when the descriptor has none).
    pub fn feature_name(&self, i: usize) -> String {
        match self.features.get(i) {
            Some(f) if !f.trim().is_empty() => f.trim().to_owned(),
            _ => format!("f{i}"),
        }
    }

    /// Parses a descriptor; non-fatal remarks (an unknown model type) come back beside it.
    ///
    /// Malformed (an error naming the region as well as the text allows): another format tag,
    /// no model name, no variants or an empty variant name, a variant listed twice, more than
    /// [`MAX_VARIANTS`] variants, a `values` list of the wrong length or with a non-number,
    /// `numeric` other than 0/1, a bad range, sample count or variant mapping.
    pub fn parse(text: &str) -> Result<Parsed, DescriptorError> {
        let mut fields = text.trim().split(';');
        let tag = fields.next().unwrap_or("").trim();
        let mut raw = RawFields::default();
        for field in fields {
            if let Some((k, v)) = field.split_once('=') {
                raw.set(k.trim(), v);
            }
        }
        let model = raw.model.as_deref().map(|m| unescape(m.trim())).filter(|m| !m.is_empty());
        let loc = raw.loc.as_deref().map(|l| unescape(l.trim())).filter(|l| !l.is_empty());
        let region = match (&model, &loc) {
            (Some(m), _) => m.clone(),
            (None, Some(l)) => format!("<unnamed at {l}>"),
            _ => format!("<spec \"{}\">", text.chars().take(80).collect::<String>()),
        };
        let fail = |reason: String| DescriptorError { region: region.clone(), reason };
        if tag != FORMAT {
            return Err(fail(if tag.starts_with("ompadapt") {
                format!("format '{tag}' is not supported by this runtime, which reads '{FORMAT}'")
            } else {
                format!("it does not start with '{FORMAT}'")
            }));
        }
        let model = model.ok_or_else(|| fail("no 'model=' name".to_owned()))?;
        let mut warnings = Vec::new();
        let d = raw.build(model, loc, &mut warnings).map_err(fail)?;
        Ok(Parsed { descriptor: d, warnings })
    }
}

/// A parsed descriptor and the remarks to print once.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// What the text describes.
    pub descriptor: RegionDescriptor,
    /// Non-fatal remarks, one line each.
    pub warnings: Vec<String>,
}

/// Why a descriptor could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct DescriptorError {
    /// The region's model name, else its location, else the start of the text.
    pub region: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for DescriptorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "region '{}': malformed region descriptor ({}); it will always run its first variant \
             (rebuild it with the same version of the ompadapt plugin and runtime)",
            self.region, self.reason
        )
    }
}

impl std::error::Error for DescriptorError {}

impl FromStr for RegionDescriptor {
    type Err = DescriptorError;

    fn from_str(s: &str) -> Result<RegionDescriptor, DescriptorError> {
        RegionDescriptor::parse(s).map(|p| p.descriptor)
    }
}

/// `v` as the descriptor writes numbers: integers without a fraction, others in Rust's
/// shortest form that reads back exactly.
pub fn format_number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

impl fmt::Display for RegionDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>().join(",");
        write!(
            f,
            "{FORMAT};model={};loc={};features={};variants={};values={};numeric={};model_type={}",
            escape(&self.model),
            escape(&self.loc),
            list(&mut self.features.iter().map(|x| escape(x))),
            list(&mut self.variants.iter().map(|x| escape(x))),
            list(&mut self.values.iter().map(|&x| format_number(x))),
            u8::from(self.numeric),
            self.model_type.name()
        )?;
        if self.feature_ranges.iter().any(Option::is_some) {
            let range = |r: &Option<(f64, f64)>| r.map_or(String::new(), |(lo, hi)| format!("{}:{}", format_number(lo), format_number(hi)));
            write!(f, ";feature_ranges={}", list(&mut self.feature_ranges.iter().map(range)))?;
        }
        if self.min_sample_points.iter().any(Option::is_some) {
            let count = |n: &Option<u64>| n.map_or(String::new(), |n| n.to_string());
            write!(f, ";min_sample_points={}", list(&mut self.min_sample_points.iter().map(count)))?;
        }
        if let Some(a) = &self.association {
            write!(f, ";use_model={};variant_mapping={}", escape(&a.primary), list(&mut a.mapping.iter().map(usize::to_string)))?;
            if let Some(p) = &a.primary_descriptor {
                write!(f, ";primary={}", escape_nested(&p.to_string()))?;
            }
        }
        if self.as_written_in_parallel {
            write!(f, ";in_parallel=as_written")?;
        }
        if self.instanced {
            write!(f, ";instanced=1")?;
        }
        if !self.depends.is_empty() {
            write!(f, ";{}={}", crate::summary::DEPENDS_KEY, self.depends)?;
        }
        let options = [
            ("explore", self.explore.as_ref().map(Setting::to_string)),
            ("repeats", self.repeats.as_ref().map(Setting::to_string)),
            ("coarse", self.coarse.as_ref().map(Setting::to_string)),
        ];
        for (key, value) in options {
            if let Some(v) = value {
                write!(f, ";{key}={}", escape(&v))?;
            }
        }
        Ok(())
    }
}

/// The fields of a descriptor as written, before they are checked.
#[derive(Default)]
struct RawFields {
    model: Option<String>,
    loc: Option<String>,
    features: Option<String>,
    variants: Option<String>,
    values: Option<String>,
    numeric: Option<String>,
    model_type: Option<String>,
    feature_ranges: Option<String>,
    min_sample_points: Option<String>,
    use_model: Option<String>,
    variant_mapping: Option<String>,
    primary: Option<String>,
    explore: Option<String>,
    repeats: Option<String>,
    coarse: Option<String>,
    in_parallel: Option<String>,
    instanced: Option<String>,
    auto_features: Option<String>,
    depends: Option<String>,
}

impl RawFields {
    fn set(&mut self, key: &str, value: &str) {
        let slot = match key {
            "model" => &mut self.model,
            "loc" => &mut self.loc,
            "features" => &mut self.features,
            "variants" => &mut self.variants,
            "values" => &mut self.values,
            "numeric" => &mut self.numeric,
            "model_type" => &mut self.model_type,
            "feature_ranges" => &mut self.feature_ranges,
            "min_sample_points" => &mut self.min_sample_points,
            "use_model" => &mut self.use_model,
            "variant_mapping" => &mut self.variant_mapping,
            "primary" => &mut self.primary,
            "explore" => &mut self.explore,
            "repeats" => &mut self.repeats,
            "coarse" => &mut self.coarse,
            "in_parallel" => &mut self.in_parallel,
            "instanced" => &mut self.instanced,
            "auto_features" => &mut self.auto_features,
            crate::summary::DEPENDS_KEY => &mut self.depends,
            _ => return, // a newer writer's field
        };
        *slot = Some(value.to_owned());
    }

    fn build(self, model: String, loc: Option<String>, warnings: &mut Vec<String>) -> Result<RegionDescriptor, String> {
        let variants = self.variants.as_deref().map(split_list).unwrap_or_default();
        check_variants(&variants)?;
        let values = match self.values.as_deref() {
            None => (0..variants.len()).map(|i| i as f64).collect(),
            Some(t) => parse_values(t, variants.len())?,
        };
        let numeric = match self.numeric.as_deref().map(str::trim) {
            None | Some("0") => false,
            Some("1") => true,
            Some(x) => return Err(format!("numeric={x}, expected 0 or 1")),
        };
        let model_type = match self.model_type.as_deref().map(str::trim) {
            None | Some("") => ModelType::Auto,
            Some(x) => ModelType::from_name(x).unwrap_or_else(|| {
                warnings
                    .push(format!("region '{model}': model type '{x}' is not supported by this runtime; using a decision tree (dtree)"));
                ModelType::DecisionTree
            }),
        };
        let feature_ranges = self.feature_ranges.as_deref().map(parse_ranges).transpose()?.unwrap_or_default();
        let min_sample_points = self.min_sample_points.as_deref().map(parse_counts).transpose()?.unwrap_or_default();
        let association = association(self.use_model, self.variant_mapping, self.primary, variants.len(), &model, warnings)?;
        fn option<T: OptionValue>(v: Option<String>) -> Option<Setting<T>> {
            v.map(|v| Setting::read(unescape(v.trim())))
        }
        let as_written_in_parallel = match self.in_parallel.as_deref().map(str::trim) {
            None => false,
            Some("as_written") => true,
            Some(x) => return Err(format!("in_parallel={x}, expected as_written")),
        };
        let instanced = match self.instanced.as_deref().map(str::trim) {
            None | Some("0") => false,
            Some("1") => true,
            Some(x) => return Err(format!("instanced={x}, expected 0 or 1")),
        };
        let mut d = RegionDescriptor {
            model,
            loc: loc.unwrap_or_else(|| "?".to_owned()),
            features: self.features.as_deref().map(split_list).unwrap_or_default(),
            variants,
            values,
            numeric,
            model_type,
            feature_ranges,
            min_sample_points,
            association,
            explore: option(self.explore),
            repeats: option(self.repeats),
            coarse: option(self.coarse),
            as_written_in_parallel,
            instanced,
            depends: match self.depends.as_deref() {
                None => Default::default(),
                Some(t) => crate::summary::Dependencies::parse(t).ok_or_else(|| format!("depends={t}: not a list of K:symbol"))?,
            },
        };
        // the pass's automatic features, after the explicit ones (their values' order)
        if let Some(auto) = self.auto_features {
            d.add_features(&AutoFeatures::parse_value(&auto).names);
        }
        Ok(d)
    }
}

/// `use_model=`, `variant_mapping=` (for `nvariants` variants) and `primary=` of region `model`.
/// A nested primary descriptor that cannot be read is left out with a warning: the region then
/// follows its primary once that region has run, as it does when the compiler did not know it.
fn association(
    use_model: Option<String>,
    variant_mapping: Option<String>,
    primary: Option<String>,
    nvariants: usize,
    model: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<Association>, String> {
    let (p, m) = match (use_model, variant_mapping) {
        (None, None) => return Ok(None),
        (Some(p), Some(m)) if !p.trim().is_empty() => (unescape(p.trim()), m),
        _ => return Err("use_model and variant_mapping come together".to_owned()),
    };
    let mapping = parse_mapping(&m, nvariants)?;
    let primary_descriptor = primary.and_then(|text| match RegionDescriptor::parse(&unescape(text.trim())) {
        Ok(nested) => {
            warnings.extend(nested.warnings);
            Some(Box::new(nested.descriptor))
        }
        Err(e) => {
            warnings.push(format!(
                "region '{model}': the descriptor of its primary region '{p}' (primary=) is malformed ({}); \
                 it follows '{p}' once that region has run",
                e.reason
            ));
            None
        }
    });
    Ok(Some(Association { primary: p, mapping, primary_descriptor }))
}

fn split_list(v: &str) -> Vec<String> {
    if v.trim().is_empty() {
        Vec::new()
    } else {
        v.split(',').map(|s| unescape(s.trim())).collect()
    }
}

fn check_variants(variants: &[String]) -> Result<(), String> {
    if variants.is_empty() || variants.iter().any(|v| v.is_empty()) {
        return Err("'variants=' is missing or has an empty name".to_owned());
    }
    if variants.len() > MAX_VARIANTS {
        return Err(format!("{} variants, at most {MAX_VARIANTS} are supported", variants.len()));
    }
    match variants.iter().enumerate().find(|(i, v)| variants[..*i].contains(v)) {
        Some((_, v)) => Err(format!("variant '{v}' is listed twice")),
        None => Ok(()),
    }
}

fn parse_values(t: &str, n: usize) -> Result<Vec<f64>, String> {
    let values = split_list(t)
        .into_iter()
        .map(|x| x.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("variant value '{x}' is not a number")))
        .collect::<Result<Vec<f64>, String>>()?;
    if values.len() != n {
        return Err(format!("{} values for {n} variants", values.len()));
    }
    Ok(values)
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

/// A positive count or empty, per feature.
fn parse_counts(v: &str) -> Result<Vec<Option<u64>>, String> {
    v.split(',')
        .map(|x| match x.trim() {
            "" => Ok(None),
            n => n
                .parse::<u64>()
                .ok()
                .filter(|&n| n >= 1)
                .map(Some)
                .ok_or_else(|| format!("min_sample_points '{n}' is not a positive integer")),
        })
        .collect()
}

fn parse_mapping(m: &str, n: usize) -> Result<Vec<usize>, String> {
    let mapping = m
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<usize>()
                .ok()
                .filter(|&v| v < MAX_VARIANTS)
                .ok_or_else(|| format!("variant_mapping entry '{}' is not a variant index", x.trim()))
        })
        .collect::<Result<Vec<usize>, String>>()?;
    if mapping.len() != n {
        return Err(format!("variant_mapping has {} entries for {n} variants", mapping.len()));
    }
    Ok(mapping)
}

#[cfg(test)]
mod tests;
