//! Property tests of the directive language (proptest): whatever tokens arrive, in whatever
//! order of calls, the session never panics, every diagnostic and every piece points inside
//! the tokens it names, and the arithmetic pieces (brackets, constants, ranges, descriptor
//! escaping) agree with straightforward reference computations.

use ompadapt_syntax::brackets::Brackets;
use ompadapt_syntax::constant::evaluate;
use ompadapt_abi::escape::escape;
use ompadapt_syntax::limits::MAX_VARIANTS;
use ompadapt_syntax::statement::{StatementScanner, Step};
use ompadapt_syntax::token::{lex, spell};
use ompadapt_syntax::variants::parse_variants;
use ompadapt_syntax::{Outcome, Piece, PragmaContext, Session, Src, Tok, TokKind};
use proptest::prelude::*;

/// Words of the directive language, OpenMP and C, plus odd ones.
const WORDS: &[&str] = &[
    "begin",
    "end",
    "adaptation",
    "declare",
    "metadirective",
    "when",
    "default",
    "otherwise",
    "user",
    "adaptation",
    "condition",
    "model_name",
    "features",
    "feature",
    "variants",
    "min_train_data",
    "model_type",
    "model_output",
    "model",
    "use_model",
    "variant_mapping",
    "range",
    "min_sample_points",
    "dtree",
    "rfc",
    "logistic",
    "decision_tree",
    "random_forest",
    "parallel",
    "for",
    "target",
    "teams",
    "distribute",
    "simd",
    "enter",
    "exit",
    "data",
    "update",
    "map",
    "to",
    "from",
    "tofrom",
    "nowait",
    "notinbranch",
    "omp_num_threads",
    "cpu",
    "gpu",
    "m",
    "n",
    "x",
];
const PUNCT: &[&str] = &[
    "(", ")", "[", "]", "{", "}", ",", ":", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "-", "+", "*", "/", "%", ".", "->", "=", ";",
];
const NUMBERS: &[&str] = &["0", "1", "2", "3", "64", "1024", "0.5", "1e3", "0x10", "08", "1e999", "-", "9999999999999999999999"];

fn token() -> impl Strategy<Value = Tok> {
    prop_oneof![
        6 => prop::sample::select(WORDS).prop_map(|w| Tok::new(TokKind::Ident, w)),
        6 => prop::sample::select(PUNCT).prop_map(|p| Tok::new(TokKind::Punct, p)),
        2 => prop::sample::select(NUMBERS).prop_map(|n| Tok::new(TokKind::Number, n)),
        1 => Just(Tok::new(TokKind::Literal, "\"scoring_loop\"")),
        1 => Just(Tok::new(TokKind::OmpBegin, "")),
        1 => Just(Tok::new(TokKind::OmpEnd, "")),
    ]
}

/// Token lists that often start like a directive of the language.
fn directive() -> impl Strategy<Value = Vec<Tok>> {
    let heads: Vec<Vec<Tok>> = ["begin adaptation", "end adaptation", "adaptation", "declare adaptation", "metadirective", "parallel for"]
        .iter()
        .map(|h| lex(h))
        .collect();
    (prop::sample::select(heads), prop::collection::vec(token(), 0..40)).prop_map(|(mut h, rest)| {
        h.extend(rest);
        h
    })
}

/// Valid directives of the language, edited at random (tokens deleted, replaced, inserted).
fn edited_directive() -> impl Strategy<Value = Vec<Tok>> {
    const VALID: &[&str] = &[
        "begin adaptation model_name(by_len) features(N, N * 2) variants([64:1024:64]) min_train_data(8) model_type(rfc, 5, 3) model_output(out.t)",
        "adaptation model_name(m) features(n) variants(cpu, gpu)",
        "metadirective when(user={adaptation(by_len <= 128)} : parallel for) when(user={adaptation(m == gpu)} : target teams distribute parallel for map(to: A[0:N])) default(simd)",
        "end adaptation model_name(by_len)",
        "declare adaptation model(decision_tree) feature(range[0:30000], min_sample_points(25): nDiag)",
        "declare adaptation model_name(\"scoring_loop\") model(decision_tree) feature(nDiag)",
        "declare adaptation use_model(\"scoring_loop\") variant_mapping(2)",
        "metadirective when(:) when(: parallel for private(j)) default(target teams distribute parallel for)",
        "metadirective when(: target enter data map(to: a[0:m]))",
    ];
    (prop::sample::select(VALID), prop::collection::vec((0usize..100, 0u8..3, token()), 0..4)).prop_map(|(v, edits)| {
        let mut t = lex(v);
        for (at, op, tok) in edits {
            let i = at % (t.len() + 1);
            match op {
                0 if i < t.len() => {
                    t.remove(i);
                }
                1 if i < t.len() => t[i] = tok,
                _ => t.insert(i, tok),
            }
        }
        t
    })
}

/// One call into the session.
#[derive(Clone, Debug)]
enum Call {
    Pragma(Vec<Tok>, u64),
    Statement(Vec<Tok>),
    NextToken(u32),
    Lookahead(Vec<Tok>, Vec<Tok>),
    Done(u64),
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        4 => (directive(), 0u64..3).prop_map(|(t, b)| Call::Pragma(t, b)),
        6 => (edited_directive(), 1u64..3).prop_map(|(t, b)| Call::Pragma(t, b)),
        3 => prop::collection::vec(token(), 0..20).prop_map(Call::Statement),
        1 => (0u32..6).prop_map(Call::NextToken),
        1 => (edited_directive(), edited_directive()).prop_map(|(a, b)| Call::Lookahead(a, b)),
        1 => (0u64..3).prop_map(Call::Done),
    ]
}

/// The checks every reply must pass: indices inside what they index.
fn check_pieces(pieces: &[Piece], n: usize, saved: &[usize]) -> Result<(), TestCaseError> {
    for p in pieces {
        match p {
            Piece::User(r) => prop_assert!(r.start <= r.end && r.end <= n, "{p:?} of {n}"),
            Piece::TextAt(_, at) => prop_assert!(*at <= n, "{p:?} of {n}"),
            Piece::Saved(k, r) | Piece::SavedAt(k, r, _) => {
                prop_assert!((*k as usize) < saved.len(), "{p:?}: {} saved", saved.len());
                prop_assert!(r.start <= r.end && r.end <= saved[*k as usize], "{p:?} of {}", saved[*k as usize]);
            }
            Piece::TextAtSaved(_, k, at) => {
                prop_assert!((*k as usize) < saved.len() && *at <= saved[*k as usize], "{p:?}");
            }
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn sessions_never_panic_and_stay_in_bounds(calls in prop::collection::vec(call(), 1..25)) {
        let mut s = Session::new(true, false);
        // Lengths of the saved token lists, mirrored as the plugin keeps them.
        let mut saved: Vec<usize> = Vec::new();
        // Lengths of the directives waiting for their statement, innermost last.
        let mut waiting: Vec<usize> = Vec::new();
        for c in calls {
            match c {
                Call::Pragma(toks, block) => {
                    let ctx = PragmaContext { location: "p.c:1".into(), block, loc_cookie: 1, file: 1, open: vec![block], function: "f".into(), first_in_statement: false, templated: false };
                    let r = s.on_pragma(&toks, &ctx);
                    if r.save {
                        saved.push(toks.len());
                    }
                    prop_assert_eq!(saved.len(), s.saved_lists());
                    for d in &r.diags {
                        prop_assert!(d.tok <= d.end.max(d.tok));
                        match d.src {
                            Src::Here => prop_assert!(d.tok <= toks.len() && d.end <= toks.len() + 1, "{d:?} of {}", toks.len()),
                            Src::Saved(k) => prop_assert!((k as usize) < saved.len() && d.tok <= saved[k as usize], "{d:?}"),
                        }
                    }
                    match &r.outcome {
                        Outcome::Emit(p) => check_pieces(p, toks.len(), &saved)?,
                        Outcome::NeedStatement => waiting.push(toks.len()),
                        _ => {}
                    }
                }
                Call::Statement(toks) => {
                    let p = s.on_statement(&toks);
                    // The pieces index the directive that asked for the statement.
                    match waiting.pop() {
                        Some(n) => check_pieces(&p, n, &saved)?,
                        None => prop_assert_eq!(p, vec![Piece::Statement]),
                    }
                }
                Call::NextToken(k) => {
                    for d in s.after_next_token(k) {
                        if let Src::Saved(k) = d.src {
                            prop_assert!((k as usize) < saved.len());
                        }
                    }
                }
                Call::Lookahead(a, b) => {
                    s.on_lookahead(&a, &b, "p.c:9");
                    saved.push(a.len());
                }
                Call::Done(f) => s.lookahead_done(f),
            }
        }
    }

    #[test]
    fn brackets_match_like_a_stack(toks in prop::collection::vec(prop::sample::select(&["(", ")", "[", "]", "{", "}", "a"][..]), 0..200)) {
        let toks: Vec<Tok> = toks.iter().map(|t| Tok::new(if *t == "a" { TokKind::Ident } else { TokKind::Punct }, t)).collect();
        let mut d = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut pairs = Vec::new();
        let mut balanced = true;
        for (i, t) in toks.iter().enumerate() {
            if t.is_open() { stack.push(i); }
            else if t.is_close() {
                let want = match toks.get(*stack.last().unwrap_or(&usize::MAX)).map(|o| o.text.as_str()) {
                    Some("(") => ")", Some("[") => "]", Some("{") => "}", _ => { balanced = false; break; }
                };
                if t.text != want { balanced = false; break; }
                pairs.push((stack.pop().unwrap(), i));
            }
        }
        balanced &= stack.is_empty();
        match Brackets::new(&toks, &mut d) {
            Some(b) => {
                prop_assert!(balanced);
                for (o, c) in pairs { prop_assert_eq!(b.close_of(o), Some(c)); }
            }
            None => {
                prop_assert!(!balanced);
                prop_assert!(d[0].tok <= toks.len());
            }
        }
    }

    #[test]
    fn constants_evaluate_like_rust(a in -1000i64..1000, b in -1000i64..1000, c in 1i64..50) {
        let src = format!("({a}) * ({b}) + ({a} - {b}) / {c} - -{c} % 7");
        let toks = lex(&src);
        let br = Brackets::new(&toks, &mut Vec::new()).unwrap();
        let want = a * b + (a - b) / c - (-c) % 7;
        prop_assert_eq!(evaluate(&toks, 0..toks.len(), &br).unwrap().value, want as f64);
    }

    #[test]
    fn constant_evaluation_never_panics(toks in prop::collection::vec(token(), 0..60)) {
        if let Some(b) = Brackets::new(&toks, &mut Vec::new()) {
            let _ = evaluate(&toks, 0..toks.len(), &b);
        }
    }

    #[test]
    fn ranges_have_the_counted_unique_values(b in -5000i64..5000, len in 0i64..3000, step in 1i64..100) {
        let e = b + len;
        let toks = lex(&format!("[{b}:{e}:{step}]"));
        let br = Brackets::new(&toks, &mut Vec::new()).unwrap();
        let mut d = Vec::new();
        let count = (len / step + 1) as usize;
        match parse_variants(&toks, 0, 0..toks.len(), &br, &mut d) {
            Some(v) => {
                prop_assert!(count <= MAX_VARIANTS);
                prop_assert_eq!(v.variants.len(), count);
                prop_assert_eq!(v.variants.last().unwrap().value, (b + (count as i64 - 1) * step) as f64);
                let names: std::collections::HashSet<&str> = v.variants.iter().map(|x| x.name.as_str()).collect();
                prop_assert_eq!(names.len(), count);
            }
            None => prop_assert!(count > MAX_VARIANTS && d[0].message.contains("at most")),
        }
    }

    #[test]
    fn spelling_relexes_to_the_same_tokens(words in prop::collection::vec(prop_oneof![prop::sample::select(WORDS), prop::sample::select(PUNCT), prop::sample::select(&["1", "2.5", "x1"][..])], 0..50)) {
        let toks = lex(&words.join(" "));
        let again = lex(&spell(&toks));
        prop_assert_eq!(toks.iter().map(|t| &t.text).collect::<Vec<_>>(), again.iter().map(|t| &t.text).collect::<Vec<_>>());
    }

    #[test]
    fn descriptor_escaping_round_trips(s in "\\PC{0,40}") {
        let e = escape(&s);
        prop_assert!(!e.contains(';') && !e.contains(','));
        prop_assert_eq!(unescape(&e), s);
    }
}

/// C statements from a small grammar, as source text (no dangling `else`: a branch followed by
/// `else` is braced).
fn c_statement() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x = f(a, b);".to_string()),
        Just(";".to_string()),
        Just("y[i] = ({ int t = 1; t; });".to_string()),
        Just("auto g = [&](int k) { return k; };".to_string()),
    ];
    leaf.prop_recursive(6, 64, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("{{ {} }}", v.join(" "))),
            inner.clone().prop_map(|s| format!("if (c) {s}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("if (c) {{ {a} }} else {b}")),
            inner.clone().prop_map(|s| format!("while (c) {s}")),
            inner.clone().prop_map(|s| format!("for (i = 0; i < n; ++i) {s}")),
            inner.clone().prop_map(|s| format!("do {s} while (c);")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("try {{ {a} }} catch (int e) {{ {b} }}")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn statements_end_where_they_do(stmt in c_statement(), after in prop::sample::select(&["y;", "}", "else z;"][..])) {
        let toks = lex(&format!("{stmt} {after}"));
        let n = lex(&stmt).len();
        let mut s = StatementScanner::new();
        let mut end = None;
        for (i, t) in toks.iter().enumerate() {
            match s.feed(t) {
                Step::Take => {}
                Step::TakeAndStop => { end = Some(i + 1); break; }
                Step::GiveBack => { end = Some(i); break; }
            }
        }
        // `else` after a statement that ends in an unbraced `if` belongs to it: the scanner
        // then reads on; otherwise the statement is exactly the generated one.
        if !(after.starts_with("else") && stmt.contains("if (c)")) {
            prop_assert_eq!(end, Some(n), "{} | {}", stmt, after);
        }
    }

    #[test]
    fn statement_scanning_never_panics(toks in prop::collection::vec(token(), 0..200)) {
        let mut s = StatementScanner::new();
        for t in &toks {
            if s.feed(t) != Step::Take { break; }
        }
    }
}

/// The runtime's decoding of descriptor fields (runtime/src/spec.rs), as a reference.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}
