use super::*;
use proptest::prelude::*;

fn parse(text: &str) -> Result<Parsed, DescriptorError> {
    RegionDescriptor::parse(text)
}

#[test]
fn full_descriptor() {
    let p = parse("ompadapt1;model=mm;loc=mm.c:42;features=N,M * 2;variants=cpu,gpu;values=0,1;numeric=0;model_type=rfc").unwrap();
    assert!(p.warnings.is_empty());
    let s = p.descriptor;
    assert_eq!((s.model.as_str(), s.loc.as_str()), ("mm", "mm.c:42"));
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
    let s: RegionDescriptor = "ompadapt1;model=t;variants=1,2,4,8;future_key=whatever;noequals;".parse().unwrap();
    assert_eq!(s.loc, "?");
    assert!(s.features.is_empty());
    assert_eq!(s.values, vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(s.model_type, ModelType::Auto, "no model type: the runtime chooses");
    for (t, m) in [("auto", ModelType::Auto), ("dtree", ModelType::DecisionTree), ("logistic", ModelType::Logistic)] {
        let s: RegionDescriptor = format!("ompadapt1;model=t;variants=a,b;model_type={t}").parse().unwrap();
        assert_eq!(s.model_type, m);
    }
    let s: RegionDescriptor = "ompadapt1;model=t;variants=a,b;values=1.5,-2;numeric=1;features=".parse().unwrap();
    assert_eq!(s.values, vec![1.5, -2.0]);
    assert!(s.numeric && s.features.is_empty());
}

#[test]
fn unknown_model_type_warns() {
    let p = parse("ompadapt1;model=t;variants=a,b;model_type=logreg").unwrap();
    assert_eq!(p.descriptor.model_type, ModelType::DecisionTree);
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
        ("ompadapt1;model=x;variants=a,b;feature_ranges=3:1", "x"),
        ("ompadapt1;model=x;variants=a,b;feature_ranges=zz", "x"),
        ("ompadapt1;model=x;variants=a,b;min_sample_points=0", "x"),
        ("ompadapt1;model=x;variants=a;use_model=p", "x"),
        ("ompadapt1;model=x;variants=a;use_model=p;variant_mapping=1,2", "x"),
        ("ompadapt1;model=x;variants=a;use_model=p;variant_mapping=q", "x"),
    ];
    for (text, region) in cases {
        let e = parse(text).expect_err(text);
        assert!(e.region.starts_with(region), "{text}: region {}", e.region);
        let line = e.to_string();
        assert!(!line.contains('\n') && line.contains(&e.region), "one line naming the region: {line}");
    }
    let many = |n: usize| format!("ompadapt1;model=x;variants={}", (0..n).map(|i| format!("v{i}")).collect::<Vec<_>>().join(","));
    assert!(parse(&many(MAX_VARIANTS + 1)).is_err());
    assert_eq!(parse(&many(MAX_VARIANTS)).unwrap().descriptor.variants.len(), MAX_VARIANTS);
}

#[test]
fn declared_and_associated_fields() {
    let s = parse(
        "ompadapt1;model=declare@sw.c:13;loc=sw.c:13;features=nDiag,max(a%2C b);variants=plain,parallel for,target;\
         values=0,1,2;numeric=0;model_type=logistic;feature_ranges=0:30000,;min_sample_points=25,4",
    )
    .unwrap()
    .descriptor;
    assert_eq!(s.features, vec!["nDiag", "max(a, b)"]);
    assert_eq!(s.model_type, ModelType::Logistic);
    assert_eq!(s.feature_ranges, vec![Some((0.0, 30000.0)), None]);
    assert_eq!(s.suggested_training_size(), Some(25 * 4 * 3));
    assert!(s.association.is_none());
    let a = parse(
        "ompadapt1;model=p<-sw.c:3;variants=enter data;use_model=scoring_loop;variant_mapping=2;\
         primary=ompadapt1%3Bmodel%3Dscoring_loop%3Bvariants%3Da%2Cb%2Cc",
    )
    .unwrap()
    .descriptor;
    let assoc = a.association.unwrap();
    assert_eq!((assoc.primary.as_str(), assoc.mapping.as_slice()), ("scoring_loop", &[2usize][..]));
    let primary = assoc.primary_descriptor.as_deref().unwrap();
    assert_eq!((primary.model.as_str(), primary.variants.as_slice()), ("scoring_loop", &["a".to_owned(), "b".into(), "c".into()][..]));
}

/// A nested primary descriptor is read with the one that holds it: its remarks come along, and
/// one that cannot be read is left out with a warning (the region still follows its primary by
/// name), not an error of the associated region.
#[test]
fn nested_primary_descriptor() {
    let assoc = |nested: &str| format!("ompadapt1;model=p<-a.c:3;variants=x;use_model=p;variant_mapping=1;primary={nested}");
    let p = parse(&assoc("ompadapt1%3Bmodel%3Dp%3Bvariants%3Da%2Cb%3Bmodel_type%3Dlogreg")).unwrap();
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert!(p.warnings[0].contains("logreg"));
    let nested = p.descriptor.association.unwrap().primary_descriptor.unwrap();
    assert_eq!((nested.model_type, nested.variants.len()), (ModelType::DecisionTree, 2));
    let p = parse(&assoc("ompadapt1%3Bmodel%3Dp%3Bvariants%3Da%2Ca")).unwrap();
    let a = p.descriptor.association.unwrap();
    assert_eq!((a.primary.as_str(), a.mapping.as_slice(), a.primary_descriptor), ("p", &[1usize][..], None));
    assert_eq!(p.warnings.len(), 1);
    assert!(p.warnings[0].contains("region 'p<-a.c:3'") && p.warnings[0].contains("listed twice"), "{}", p.warnings[0]);
}

#[test]
fn same_region_ignores_location() {
    let a: RegionDescriptor = "ompadapt1;model=x;loc=a.c:1;variants=a,b".parse().unwrap();
    let b: RegionDescriptor = "ompadapt1;model=x;loc=b.c:9;variants=a,b".parse().unwrap();
    let c: RegionDescriptor = "ompadapt1;model=x;loc=b.c:9;variants=a,b,c".parse().unwrap();
    assert!(a.same_region(&b) && !a.same_region(&c));
}

/// What the frontend has always written for a plain region, and for one with every field.
#[test]
fn encoding() {
    let mut d = RegionDescriptor::new("m", "a.c:3", vec!["0.5".into(), "1".into()]);
    d.features = vec!["f(a, b)".into()];
    d.values = vec![0.5, 1.0];
    d.numeric = true;
    d.model_type = ModelType::RandomForest;
    assert_eq!(d.to_string(), "ompadapt1;model=m;loc=a.c:3;features=f(a%2C b);variants=0.5,1;values=0.5,1;numeric=1;model_type=rfc");
    let mut d = RegionDescriptor::new("p<-a.c:1", "a.c:1", vec!["enter data".into()]);
    d.features = vec!["N".into(), "M".into()];
    d.model_type = ModelType::DecisionTree;
    d.feature_ranges = vec![Some((0.0, 30000.0)), None];
    d.min_sample_points = vec![Some(25), None];
    d.association = Some(Association {
        primary: "p".into(),
        mapping: vec![1],
        primary_descriptor: Some(Box::new(RegionDescriptor::new("p", "?", vec!["a".into(), "b".into()]))),
    });
    let s = d.to_string();
    assert!(s.contains(";feature_ranges=0:30000,;min_sample_points=25,;use_model=p;variant_mapping=1;"), "{s}");
    assert!(
        s.ends_with(
            ";primary=ompadapt1%3Bmodel%3Dp%3Bloc%3D?%3Bfeatures%3D%3Bvariants%3Da%2Cb%3Bvalues%3D0%2C1%3Bnumeric%3D0%3Bmodel_type%3Dauto"
        ),
        "{s}"
    );
    d.add_features(&["trip_count(i,j)".into()]);
    assert!(d.to_string().contains("features=N,M,trip_count(i%2Cj);") && d.to_string().contains("feature_ranges=0:30000,,;"));
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![r"[a-z_][a-z0-9_@:.]{0,12}", r"[ -~]{1,16}", any::<String>().prop_filter("non-empty", |s| !s.is_empty())]
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![(-1000i64..1000).prop_map(|i| i as f64), any::<f64>().prop_filter("finite", |v| v.is_finite())]
}

/// A descriptor without an association (a primary region's).
fn plain_descriptor() -> impl Strategy<Value = RegionDescriptor> {
    (
        text(),
        text(),
        prop::collection::vec(text(), 0..4),
        prop::collection::btree_set(text(), 1..5),
        any::<bool>(),
        0usize..4,
        prop::option::of(text()),
    )
        .prop_flat_map(|(model, loc, features, variants, numeric, mt, explore)| {
            let nv = variants.len();
            let nf = features.len();
            (
                Just((model, loc, features, variants.into_iter().collect::<Vec<_>>(), numeric, mt, explore)),
                prop::collection::vec(number(), nv),
                prop::collection::vec(prop::option::of((number(), 0.0..1e6f64).prop_map(|(lo, w)| (lo, lo + w))), nf),
                prop::collection::vec(prop::option::of(1u64..100), nf),
            )
        })
        .prop_map(|((model, loc, features, variants, numeric, mt, explore), values, ranges, counts)| {
            let mut d = RegionDescriptor::new(model, loc, variants);
            d.features = features;
            d.values = values;
            d.numeric = numeric;
            d.model_type = [ModelType::Auto, ModelType::DecisionTree, ModelType::RandomForest, ModelType::Logistic][mt];
            // written only when one is declared: all-None reads back as empty
            d.feature_ranges = if ranges.iter().any(Option::is_some) { ranges } else { Vec::new() };
            d.min_sample_points = if counts.iter().any(Option::is_some) { counts } else { Vec::new() };
            d.explore = explore.map(Setting::read);
            d.as_written_in_parallel = d.model.len() % 2 == 0;
            d.instanced = d.loc.len() % 2 == 1;
            d
        })
}

/// Any descriptor: a primary region's, or an associated one's with its primary's nested.
fn descriptor() -> impl Strategy<Value = RegionDescriptor> {
    plain_descriptor().prop_flat_map(|d| {
        let nv = d.variants.len();
        let assoc = prop::option::of((text(), prop::collection::vec(0usize..8, nv), prop::option::of(plain_descriptor())));
        (Just(d), assoc).prop_map(|(mut d, assoc)| {
            d.association = assoc.map(|(primary, mapping, p)| Association { primary, mapping, primary_descriptor: p.map(Box::new) });
            d
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// One encoding, one parser: whatever a writer puts in, the runtime reads back.
    #[test]
    fn round_trip(d in descriptor()) {
        let text = d.to_string();
        prop_assert!(!text.contains('\n'));
        let back = RegionDescriptor::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(back.descriptor, d, "{}", text);
        prop_assert!(back.warnings.is_empty());
    }

    /// The pass's `auto_features=`, appended to whatever the frontend printed, reads as that
    /// descriptor with the names added after its features (what the runtime read when the pass
    /// printed the whole descriptor again), and prints as that.
    #[test]
    fn auto_features_appended(d in descriptor(), names in prop::collection::vec(text(), 0..4)) {
        let auto = AutoFeatures { names };
        let text = auto.append_to(&d.to_string());
        let back = RegionDescriptor::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let mut want = d.clone();
        want.add_features(&auto.names);
        prop_assert_eq!(&back.descriptor, &want, "{}", text);
        prop_assert_eq!(back.descriptor.to_string(), want.to_string());
    }

    /// Any text at all: an error or a descriptor, never a panic.
    #[test]
    fn never_panics(s in ".{0,200}") {
        let _ = RegionDescriptor::parse(&s);
    }
}

#[test]
fn instances_are_named_after_their_template_arguments() {
    let n = |model, pretty| crate::descriptor::instance_name(model, pretty);
    assert_eq!(n("fasten@bude.h:148", "void fasten(T *, int) [T = float]").as_deref(), Some("fasten<float>@bude.h:148"));
    assert_eq!(
        n("Grid::relax@g.cpp:9", "void Grid<double, 4>::relax(T) [T = double, N = 4]").as_deref(),
        Some("Grid::relax<double,4>@g.cpp:9")
    );
    assert_eq!(
        n("ns::get@p.cpp:3#2", "V ns::get(std::pair<K, V>) [K = std::pair<int, float>, V = float]").as_deref(),
        Some("ns::get<std::pair<int, float>,float>@p.cpp:3#2")
    );
    assert_eq!(
        n("main@l.cpp:7", "auto main()::(anonymous class)::operator()(auto) const [x:auto = double]").as_deref(),
        Some("main<double>@l.cpp:7")
    );
    assert_eq!(n("f@a.c:1", "void f(int)"), None);
    let t = crate::descriptor::template_of;
    assert_eq!(t("fasten<float>@bude.h:148").as_deref(), Some("fasten@bude.h:148"));
    assert_eq!(t("ns::get<std::pair<int, float>,float>@p.cpp:3#2").as_deref(), Some("ns::get@p.cpp:3#2"));
    assert_eq!(t("fasten@bude.h:148"), None);
    assert_eq!(t("scale_all"), None);
    assert_eq!(n("f@a.c:1", "void f(int) []"), None);
}
