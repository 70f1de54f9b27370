//! The region descriptor the runtime reads, built from what the directive says. Its type,
//! encoding and parser are the contract crate's (`ompadapt-abi`): names and source text are
//! percent-encoded, so a feature written `max(a, b)` keeps its comma.

use ompadapt_abi::{Association, ModelType, RegionDescriptor};

use crate::clauses::ModelKind;
use crate::variants::VariantSet;

pub use ompadapt_abi::escape::escape;

/// One feature as the descriptor records it.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureSpec {
    /// Source text as written.
    pub text: String,
    /// `range[lo:hi]`: inclusive bounds of the values the model is meant for.
    pub range: Option<(f64, f64)>,
    /// `min_sample_points(n)`: distinct values to sample before training.
    pub min_samples: Option<u64>,
}

/// An associated region's link to its primary region (`declare adaptation ... use_model`).
#[derive(Clone, Debug, PartialEq)]
pub struct AssociationSpec {
    /// The primary region's name (`use_model(...)`).
    pub primary: String,
    /// For each variant of this region, the index of the primary's variant it runs with
    /// (`variant_mapping(...)`).
    pub mapping: Vec<u32>,
    /// The primary's own descriptor, when this translation unit knows it: the runtime creates
    /// the primary from it if the associated region runs first.
    pub primary_spec: Option<String>,
}

/// Everything a descriptor says about a region.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecFields<'a> {
    /// The region's name, the runtime's key for its model.
    pub name: &'a str,
    /// `file:line` of the directive.
    pub location: &'a str,
    /// The explicit features, in order.
    pub features: &'a [FeatureSpec],
    /// The variants, with their names and values.
    pub variants: &'a VariantSet,
    /// The model family.
    pub model: ModelKind,
    /// The link to the primary region, for an associated region.
    pub association: Option<&'a AssociationSpec>,
    /// A host region of zero-source-change mode: as written inside an active parallel region.
    pub as_written_in_parallel: bool,
    /// A region of zero-source-change mode in a template: one region per instantiation.
    pub instanced: bool,
}

/// Builds the descriptor (its encoding is the contract crate's). Fields a region does not use
/// are left out, so descriptors of plain regions read exactly as before.
pub fn spec(f: &SpecFields) -> String {
    let mut d = RegionDescriptor::new(f.name, f.location, f.variants.variants.iter().map(|v| v.name.clone()).collect());
    d.features = f.features.iter().map(|x| x.text.clone()).collect();
    d.values = f.variants.variants.iter().map(|v| v.value).collect();
    d.numeric = f.variants.numeric;
    d.model_type = ModelType::from_name(f.model.spec_name()).unwrap_or(ModelType::Auto);
    d.feature_ranges = f.features.iter().map(|x| x.range).collect();
    d.min_sample_points = f.features.iter().map(|x| x.min_samples).collect();
    d.association = f.association.map(|a| Association {
        primary: a.primary.clone(),
        mapping: a.mapping.iter().map(|&m| m as usize).collect(),
        primary_descriptor: a.primary_spec.clone(),
    });
    d.as_written_in_parallel = f.as_written_in_parallel;
    d.instanced = f.instanced;
    d.to_string()
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
            association: None,
            as_written_in_parallel: false,
            instanced: false,
        });
        assert_eq!(s, "ompadapt1;model=m;loc=a.c:3;features=f(a%2C b);variants=0.5,1;values=0.5,1;numeric=1;model_type=rfc");
    }

    #[test]
    fn declared_and_associated_fields() {
        let vs = VariantSet::categorical(vec!["enter data".into()]);
        let f = [
            FeatureSpec { text: "N".into(), range: Some((0.0, 30000.0)), min_samples: Some(25) },
            FeatureSpec { text: "M".into(), range: None, min_samples: None },
        ];
        let primary = "ompadapt1;model=p;variants=a,b";
        let a = AssociationSpec { primary: "p".into(), mapping: vec![1], primary_spec: Some(primary.into()) };
        let s = spec(&SpecFields {
            name: "p<-a.c:1",
            location: "a.c:1",
            features: &f,
            variants: &vs,
            model: ModelKind::DecisionTree,
            association: Some(&a),
            as_written_in_parallel: false,
            instanced: false,
        });
        assert!(s.contains(";feature_ranges=0:30000,;min_sample_points=25,;use_model=p;variant_mapping=1;"), "{s}");
        assert!(s.ends_with(";primary=ompadapt1%3Bmodel%3Dp%3Bvariants%3Da%2Cb"), "{s}");
    }
}
