use super::*;
use crate::token::{lex, Src};

fn ctx() -> PragmaContext {
    PragmaContext {
        location: "t.c:1".into(),
        block: 7,
        loc_cookie: 1,
        file: 1,
        open: vec![7],
        function: "f".into(),
        first_in_statement: false,
        templated: false,
    }
}

fn texts(p: &[Piece]) -> String {
    p.iter()
        .map(|p| match p {
            Piece::Text(t) | Piece::TextAt(t, _) | Piece::TextAtSaved(t, _, _) => t.clone(),
            Piece::User(r) => format!("<{}..{}>", r.start, r.end),
            Piece::Saved(k, r) | Piece::SavedAt(k, r, _) => format!("<s{k}:{}..{}>", r.start, r.end),
            Piece::OmpBegin => "#omp[".into(),
            Piece::OmpEnd => "]".into(),
            Piece::Statement => "STMT".into(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn emitted(r: Reply) -> Vec<Piece> {
    match r.outcome {
        Outcome::Emit(p) => p,
        o => panic!("expected pieces, got {o:?} ({:?})", r.diags),
    }
}

#[test]
fn not_ours() {
    let mut s = Session::new(true, false);
    for src in ["parallel for", "target teams", "metadirective when(user={condition(1)}: parallel)", "declare simd"] {
        assert_eq!(s.on_pragma(&lex(src), &ctx()).outcome, Outcome::NotOurs);
    }
}

#[test]
fn begin_metadirective_end() {
    let mut s = Session::new(true, false);
    let r = s.on_pragma(&lex("begin adaptation model_name(by_len) features(N) variants(cpu, gpu)"), &ctx());
    assert!(r.diags.is_empty());
    let t = texts(&emitted(r));
    assert!(t.contains("__ompadapt_begin(&_ompadapt_h1"), "{t}");
    assert!(t.contains("model=by_len;loc=t.c:1;features=N;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto\""), "{t}");
    let r = s.on_pragma(
        &lex("metadirective when(user={adaptation(by_len==cpu)}: parallel for) when(user={adaptation(by_len==gpu)}: target teams distribute parallel for)"),
        &ctx(),
    );
    assert!(r.diags.is_empty(), "{:?}", r.diags);
    assert_eq!(r.outcome, Outcome::NeedStatement);
    let t = texts(&s.on_statement(&lex("for(;;);")));
    assert_eq!(t, "if ( _ompadapt_c1.variant == 0 ) { #omp[ <14..15> <15..16> ] STMT } else if ( _ompadapt_c1.variant == 1 ) { #omp[ <30..31> <31..32> <32..33> <33..34> <34..35> ] STMT } else { STMT }");
    let r = s.on_pragma(&lex("end adaptation model_name(by_len)"), &ctx());
    assert!(r.diags.is_empty());
    assert_eq!(emitted(r), vec![Piece::Text("__ompadapt_end(&_ompadapt_c1);".into())]);
    assert!(s.unclosed_regions().is_empty());
}

#[test]
fn single_form_before_target_gets_offload_site() {
    let mut s = Session::new(true, false);
    let r = s.on_pragma(&lex("adaptation model_name(m) features(N) variants(cpu, gpu)"), &ctx());
    assert_eq!(r.outcome, Outcome::NeedStatement);
    let stmt = vec![Tok::new(TokKind::OmpBegin, ""), Tok::new(TokKind::Ident, "target"), Tok::new(TokKind::OmpEnd, "")];
    let t = texts(&s.on_statement(&stmt));
    assert!(
        t.contains("__ompadapt_launch_site(_ompadapt_c1.variant == 0, 0, 0, \"m\"); STMT __ompadapt_end(&_ompadapt_c1); }"),
        "{t}"
    );
    s.on_pragma(&lex("adaptation model_name(m) variants(cpu, gpu)"), &ctx());
    assert!(!texts(&s.on_statement(&lex("f();"))).contains("launch_site"));
}

#[test]
fn model_output_takes_any_lvalue() {
    for (cxx, want) in [
        (false, "__ompadapt_check_output(__builtin_classify_type( <14..17> )); <14..17>  = __extension__ __builtin_choose_expr((0x112u >> (__builtin_classify_type( <14..17> ) & 31)) & 1u, _Generic(( <14..17> ), _Bool: (_Bool)(_ompadapt_c1.value), "),
        (true, "__ompadapt_check_output(__is_function(__remove_reference_t(__decltype(( <14..17> )))) ? 10 : __builtin_classify_type( <14..17> )); __builtin_choose_expr( __ompadapt_output<__remove_cvref(__decltype( <14..17> ))> ::arithmetic,  <14..17> , __ompadapt_sink) =  __ompadapt_output<__remove_cvref(__decltype( <14..17> ))> ::convert(_ompadapt_c1.value);"),
    ] {
        let mut s = Session::new(false, cxx);
        let r = s.on_pragma(&lex("begin adaptation model_name(m) variants(1, 2) model_output(out.threads)"), &ctx());
        assert!(r.diags.is_empty(), "{:?}", r.diags);
        let t = texts(&emitted(r));
        assert!(t.contains(want), "{t}");
        assert!(t.ends_with(if cxx { "convert(_ompadapt_c1.value);" } else { "default: _ompadapt_c1.value),  <14..17> );" }), "{t}");
    }
}

#[test]
fn structural_errors() {
    let mut s = Session::new(true, false);
    let r = s.on_pragma(&lex("end adaptation"), &ctx());
    assert_eq!(r.diags[0].message, "'end adaptation' without a matching 'begin adaptation'");
    let r = s.on_pragma(&lex("begin adaptation features(N) variants(a)"), &ctx());
    assert_eq!(r.diags[0].message, "'begin adaptation' requires a 'model_name' clause");
    // The erroneous begin still opens a region, so its end does not cascade.
    assert!(s.on_pragma(&lex("end adaptation"), &ctx()).diags.is_empty());
    s.on_pragma(&lex("begin adaptation model_name(a) variants(x, y)"), &ctx());
    let r = s.on_pragma(&lex("end adaptation model_name(b)"), &ctx());
    assert_eq!(r.diags[0].message, "'end adaptation' names 'b' but the innermost open adaptation region is 'a'");
    assert_eq!(r.diags[0].tok, 4);
    assert_eq!(s.unclosed_regions(), vec![("a".to_string(), 1)]);
    let outside = PragmaContext { block: 0, ..ctx() };
    let r = Session::new(true, false).on_pragma(&lex("begin adaptation model_name(a) variants(x)"), &outside);
    assert_eq!(r.diags[0].message, "'begin adaptation' must appear inside a function body");
}

#[test]
fn issue_reproducers_give_diagnostics() {
    // features(() variants(x, y)) swallows the variants clause: a missing clause, not a panic.
    let mut s = Session::new(true, false);
    let r = s.on_pragma(&lex("adaptation model_name(m) features(() variants(x, y))"), &ctx());
    assert_eq!(r.diags[0].message, "'adaptation' requires a 'variants' clause");
    assert_eq!(r.outcome, Outcome::NeedStatement);
    assert_eq!(s.on_statement(&lex("x;")), vec![Piece::Statement]);
    // Unbalanced: located at the end of the line, with a note at the open parenthesis.
    let r = s.on_pragma(&lex("adaptation model_name(m) features(n variants(x, y)"), &ctx());
    assert_eq!((r.diags[0].message.as_str(), r.diags[0].tok), ("expected ')'", 14));
    s.on_statement(&[]);
}

#[test]
fn declare_adaptation_primary_figure_6() {
    let mut s = Session::new(true, false);
    let r = s.on_pragma(&lex("declare adaptation model(decision_tree) feature(nDiag)"), &ctx());
    assert!(r.diags.is_empty(), "{:?}", r.diags);
    assert_eq!((r.outcome, r.save), (Outcome::NeedNextToken, true));
    let r = s.on_pragma(
        &lex("metadirective when (:) when (:parallel for) default(target teams distribute parallel for map(to:a[0:m]))"),
        &ctx(),
    );
    assert!(r.diags.is_empty(), "{:?}", r.diags);
    assert_eq!(r.outcome, Outcome::NeedStatement);
    assert!(s.after_next_token(0).is_empty(), "the metadirective took the declare");
    let t = texts(&s.on_statement(&lex("for (j = 0; j < n; ++j) f(j);")));
    assert!(t.contains("model=declare@t.c:1;loc=t.c:1;features=nDiag;variants=plain,parallel for,target teams distribute parallel for map(to:a[0:m]);values=0,1,2;numeric=0;model_type=dtree\""), "{t}");
    assert!(t.contains("(double)(__builtin_choose_expr((0x11E >> __builtin_classify_type( <s0:8..9> )) & 1, ( <s0:8..9> ), 0))"), "{t}");
    assert!(t.ends_with("if (_ompadapt_c1.variant == 0) { STMT } else if (_ompadapt_c1.variant == 1) { #omp[ <8..9> <9..10> ] STMT } else { #omp[ <13..14> <14..15> <15..16> <16..17> <17..18> <18..29> ] STMT } __ompadapt_end(&_ompadapt_c1); }"), "{t}");
}

#[test]
fn declare_adaptation_figure_7_associated_before_primary() {
    let mut s = Session::new(true, false);
    let assoc = lex("declare adaptation use_model(\"scoring_loop\") variant_mapping(2)");
    // The primary is not known yet: look ahead in the file.
    let r = s.on_pragma(&assoc, &ctx());
    assert_eq!((r.outcome.clone(), r.save), (Outcome::NeedLookahead, false));
    s.on_lookahead(
        &lex("declare adaptation model_name(\"scoring_loop\") model(decision_tree) feature(nDiag)"),
        &lex("metadirective when(:) when(: parallel for private(j)) default(target teams distribute parallel for)"),
        "t.c:13",
    );
    s.lookahead_done(1);
    let r = s.on_pragma(&assoc, &ctx());
    assert!(r.diags.is_empty(), "{:?}", r.diags);
    assert_eq!((r.outcome, r.save), (Outcome::NeedNextToken, true));
    // Standalone: no statement is collected.
    let r = s.on_pragma(&lex("metadirective when(: target enter data map(to:a[0:m]))"), &ctx());
    let t = texts(&emitted(r));
    assert!(t.contains("(double)(__builtin_choose_expr((0x11E >> __builtin_classify_type( <s0:12..13> )) & 1, ( <s0:12..13> ), 0))"), "the primary's feature, from the directive found ahead: {t}");
    assert!(t.contains(";use_model=scoring_loop;variant_mapping=2;primary=ompadapt1%3Bmodel%3Dscoring_loop%3Bloc%3Dt.c:13%3Bfeatures%3DnDiag%3Bvariants%3Dplain%2Cparallel for private(j)%2Ctarget teams distribute parallel for"), "{t}");
    assert!(
        t.contains("_ompadapt_c1.variant = 1; _ompadapt_c1.value = 0.0; __ompadapt_begin(&_ompadapt_h1, "),
        "without a runtime the primary runs variant 0, to which nothing maps: {t}"
    );
    assert!(
        t.ends_with("if (_ompadapt_c1.variant == 0) { #omp[ <4..5> <5..6> <6..7> <7..18> ] } __ompadapt_end(&_ompadapt_c1); }"),
        "{t}"
    );
    // The primary itself, then an associated region after it.
    s.on_pragma(&lex("declare adaptation model_name(\"scoring_loop\") model(decision_tree) feature(nDiag)"), &ctx());
    s.on_pragma(&lex("metadirective when(:) when(: parallel for private(j)) default(target teams distribute parallel for)"), &ctx());
    s.on_statement(&lex("for(;;);"));
    let r = s.on_pragma(&lex("declare adaptation use_model(scoring_loop) variant_mapping(2, 1)"), &ctx());
    assert_eq!(r.outcome, Outcome::NeedNextToken);
    let r = s.on_pragma(&lex("metadirective when(: target exit data map(from: H[0:n])) when(: taskwait)"), &ctx());
    assert!(texts(&emitted(r)).contains("(double)(__builtin_choose_expr((0x11E >> __builtin_classify_type( <s2:12..13> )) & 1, ( <s2:12..13> ), 0))"));
}

#[test]
fn declare_adaptation_misuse() {
    let mut s = Session::new(true, false);
    s.on_pragma(&lex("declare adaptation model_name(p) feature(n)"), &ctx());
    s.on_pragma(&lex("metadirective when(:) default(parallel for)"), &ctx());
    s.on_statement(&lex("x;"));
    // Mapping to a variant the primary does not have.
    let r = s.on_pragma(&lex("declare adaptation use_model(p) variant_mapping(2)"), &ctx());
    assert_eq!((r.diags[0].message.as_str(), r.diags[0].tok), ("primary region 'p' has no variant 2: it has 2 (IDs 0 to 1)", 8));
    // The metadirective after an erroneous declare runs its statement unchanged.
    assert_eq!(s.on_pragma(&lex("metadirective when(: parallel for)"), &ctx()).outcome, Outcome::NeedStatement);
    assert_eq!(s.on_statement(&lex("x;")), vec![Piece::Statement]);
    // Mapping length differs from the variant count: at the metadirective, note at the mapping.
    s.on_pragma(&lex("declare adaptation use_model(p) variant_mapping(0, 1)"), &ctx());
    let r = s.on_pragma(&lex("metadirective when(: parallel for)"), &ctx());
    assert_eq!(r.diags[0].message, "this metadirective has 1 variant but 'variant_mapping' lists 2");
    assert_eq!((r.diags[1].src, r.diags[1].tok), (Src::Saved(2), 6));
    s.on_statement(&lex("x;"));
    // Not followed by a metadirective: the error is at the declare (saved list 3).
    let r = s.on_pragma(&lex("declare adaptation feature(n)"), &ctx());
    assert_eq!(r.outcome, Outcome::NeedNextToken);
    let d = s.after_next_token(3);
    assert_eq!(d[0].message, "'declare adaptation' must be followed immediately by a 'metadirective'");
    assert_eq!(d[0].src, Src::Saved(3));
    // ... also when another directive follows.
    s.on_pragma(&lex("declare adaptation feature(n)"), &ctx());
    let r = s.on_pragma(&lex("parallel for"), &ctx());
    assert_eq!(r.outcome, Outcome::NotOurs);
    assert_eq!(r.diags[0].src, Src::Saved(4));
    assert!(s.after_next_token(4).is_empty());
    // A primary nobody declares in this file: decided at run time.
    s.lookahead_done(1);
    let r = s.on_pragma(&lex("declare adaptation use_model(elsewhere) variant_mapping(1)"), &ctx());
    assert!(r.diags.is_empty());
    let t = texts(&emitted(s.on_pragma(&lex("metadirective when(: target update to(a))"), &ctx())));
    assert!(t.contains("use_model=elsewhere;variant_mapping=1\""), "{t}");
    assert!(t.contains("_ompadapt_c3.variant = 1; _ompadapt_c3.value = 0.0; __ompadapt_begin(&_ompadapt_h3, "), "{t}");
}

#[test]
fn context_features() {
    let mut s = Session::new(true, false);
    s.on_pragma(&lex("declare adaptation feature(omp_num_threads, n) model(random_forest)"), &ctx());
    s.on_pragma(&lex("metadirective when(: parallel for) default(simd)"), &ctx());
    let t = texts(&s.on_statement(&lex("x;")));
    assert!(t.contains("(double)(__builtin_choose_expr((0x11E >> __builtin_classify_type( __ompadapt_omp_get_max_threads() )) & 1, ( __ompadapt_omp_get_max_threads() ), 0)) , (double)(__builtin_choose_expr((0x11E >> __builtin_classify_type( <s0:6..7> )) & 1, ( <s0:6..7> ), 0))"), "{t}");
    assert!(t.contains("features=omp_num_threads,n;"), "{t}");
}

fn omp_stmt(directive: &str, body: &str) -> Vec<Tok> {
    let mut t = vec![Tok::new(TokKind::OmpBegin, "")];
    t.extend(lex(directive));
    t.push(Tok::new(TokKind::OmpEnd, ""));
    t.extend(lex(body));
    t
}

/// The cpu variant generates no copies of its own, whatever the data environment (the runtime
/// makes them from the launch's map entries): only the guard before the launch site, with the
/// variant's index and its replacement (`gpu`, else -1). Sub-sections of an enclosing
/// environment's arrays stay as written. Without `cpu` there is no guard.
#[test]
fn cpu_variant_has_a_guard_and_no_copies() {
    let mut s = Session::new(true, false);
    let r = s.on_pragma(&lex("target data map(tofrom: u[0:n]) map(to: v[0:n], w[0:n])"), &ctx());
    assert!(r.save && r.outcome == Outcome::NotOurs);
    s.on_pragma(&lex("adaptation model_name(m) variants(cpu, gpu)"), &ctx());
    let stmt = omp_stmt("target teams distribute parallel for map(tofrom: u[1:n-2])", "for (int i = 1; i < n; ++i) v[i] = u[i-1] + u[i];");
    let t = texts(&s.on_statement(&stmt));
    assert!(s.take_statement_diags().is_empty());
    assert!(!t.contains("target update"), "{t}");
    assert!(
        t.contains(
            "__ompadapt_host_guard(&_ompadapt_c1, 0, 1, \"m\"); __ompadapt_launch_site(_ompadapt_c1.variant == 0, 0, 0, \"m\"); STMT"
        ),
        "{t}"
    );
    s.on_pragma(&lex("adaptation model_name(m1) variants(thread_limit[64:128:64], cpu)"), &ctx());
    assert!(texts(&s.on_statement(&stmt)).contains("__ompadapt_host_guard(&_ompadapt_c2, 2, -1, \"m1\");"));
    s.on_pragma(&lex("adaptation model_name(m2) variants(gpu, thread_limit[64:128:64])"), &ctx());
    assert!(!texts(&s.on_statement(&stmt)).contains("host_guard"));
}

/// Without a runtime a region runs its fallback variant, with that variant's value: both are
/// literals in the generated code (the descriptor does not carry them).
#[test]
fn fallback_variant_is_written_in_the_code() {
    let mut s = Session::new(true, false);
    let t = texts(&emitted(s.on_pragma(&lex("begin adaptation model_name(n) features(x) variants([0.5:2:0.5])"), &ctx())));
    assert!(t.contains("_ompadapt_c1.variant = 0; _ompadapt_c1.value = 0.5; __ompadapt_begin(&_ompadapt_h1, "), "{t}");
    assert!(!t.contains("fallback"), "{t}");
    s.on_pragma(&lex("end adaptation"), &ctx());
    s.on_pragma(&lex("declare adaptation model_name(p) feature(n)"), &ctx());
    s.on_pragma(&lex("metadirective when(:) default(parallel for)"), &ctx());
    s.on_statement(&lex("x;"));
    // The second arm maps to the primary's first variant.
    s.on_pragma(&lex("declare adaptation use_model(p) variant_mapping(1, 0)"), &ctx());
    let t = texts(&emitted(s.on_pragma(&lex("metadirective when(: target update to(a)) when(: target update from(a))"), &ctx())));
    assert!(t.contains("_ompadapt_c3.variant = 1; _ompadapt_c3.value = 1.0; __ompadapt_begin(&_ompadapt_h3, "), "{t}");
}

/// Offload variants without an offload target are the same host code: a warning at the first
/// variant in the host compilation, none with a target or in a device compilation.
#[test]
fn offload_variants_without_an_offload_target_warn() {
    let stmt = vec![Tok::new(TokKind::OmpBegin, ""), Tok::new(TokKind::Ident, "target"), Tok::new(TokKind::OmpEnd, "")];
    let warned = |offload: bool, device: bool| {
        let mut s = Session::new(offload, false);
        if device {
            s.set_device();
        }
        s.on_pragma(&lex("adaptation model_name(m) features(N) variants(cpu, gpu)"), &ctx());
        s.on_statement(&stmt);
        let d = s.take_statement_diags();
        d.iter().filter(|d| d.message.contains("no offload target in this compilation")).map(|d| (d.tok, d.severity)).collect::<Vec<_>>()
    };
    assert_eq!(warned(false, false), vec![(11, crate::Severity::Warning)], "at the token of the first variant, cpu");
    assert!(warned(true, false).is_empty());
    assert!(warned(false, true).is_empty());
}
