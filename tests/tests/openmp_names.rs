//! The OpenMP runtime's names that ompadapt's run-time side looks up are written once, in
//! `abi/src/openmp.rs` (`ompadapt_abi::openmp`), the way the pass keeps its own in
//! `pass/src/entry_points.rs` (checked by pass/tests/entry_point_names.rs): a name misspelt in a
//! `dlsym` still builds and only makes the lookup answer NULL, so no other spelling may exist.
//!
//! The rule this test enforces: no string literal in the Rust sources under `runtime/src`,
//! `dataperf/src`, `ompt/src` and `cli/src` (test modules in them included) is a name of the
//! OpenMP runtime's families: a literal of any kind (`"…"`, `c"…"`, `b"…"`, raw) whose whole
//! text, less a trailing `\0`, is an identifier starting with `__kmpc_`, `__tgt_`, `omp_` or
//! `ompt_`. Literals inside macro calls count; comments and doc comments do not, nor does prose
//! that mentions a name among other words (a message saying "no ompt_set_callback"), nor
//! other identifiers (`OMP_TOOL_LIBRARIES`, `__omp_offloading_` kernel names, which are not
//! runtime entry points). Files under `tests/` folders and outside `src/` are not read: their
//! literals are test data (file names, programs), not lookups.

use std::path::{Path, PathBuf};

use ompadapt_tests::workspace_root;
use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The folders whose sources must take the names from `ompadapt_abi::openmp`.
const DIRS: [&str; 4] = ["runtime/src", "dataperf/src", "ompt/src", "cli/src"];
/// The prefixes of the OpenMP runtime's names: libomp, libomptarget, the OpenMP API, OMPT.
const FAMILIES: [&str; 4] = ["__kmpc_", "__tgt_", "omp_", "ompt_"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The text between the quotes of a string literal token as written (`"…"`, `b"…"`, `c"…"`,
/// `r#"…"#`, `cr"…"`, ...); None for other literals (numbers, characters).
fn string_text(repr: &str) -> Option<&str> {
    let body = repr.trim_start_matches(['b', 'c', 'r']);
    let hashes = body.len() - body.trim_start_matches('#').len();
    let body = body[hashes..].strip_prefix('"')?;
    body.strip_suffix(&format!("\"{}", "#".repeat(hashes)))
}

/// Whether a literal's text is a name of the OpenMP runtime's families.
fn is_runtime_name(text: &str) -> bool {
    let text = text.strip_suffix("\\0").unwrap_or(text);
    FAMILIES.iter().any(|f| text.starts_with(f)) && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `[doc = "…"]`, the attribute a doc comment is lexed into.
fn is_doc_attribute(g: &proc_macro2::Group) -> bool {
    let mut t = g.stream().into_iter();
    g.delimiter() == Delimiter::Bracket
        && matches!(t.next(), Some(TokenTree::Ident(i)) if i == "doc")
        && matches!(t.next(), Some(TokenTree::Punct(p)) if p.as_char() == '=')
}

/// The runtime names among the string literals of `tokens`: (line, literal as written).
fn runtime_name_literals(tokens: TokenStream, out: &mut Vec<(usize, String)>) {
    for t in tokens {
        match t {
            TokenTree::Group(g) if !is_doc_attribute(&g) => runtime_name_literals(g.stream(), out),
            TokenTree::Literal(l) => {
                let repr = l.to_string();
                if string_text(&repr).is_some_and(is_runtime_name) {
                    out.push((l.span().start().line, repr));
                }
            }
            _ => {}
        }
    }
}

fn literals_in(source: &str) -> Vec<(usize, String)> {
    let tokens: TokenStream = source.parse().unwrap_or_else(|e| panic!("not Rust: {e:?}"));
    let mut found = Vec::new();
    runtime_name_literals(tokens, &mut found);
    found
}

#[test]
fn runtime_names_come_from_the_abi_table() {
    let root = workspace_root();
    let mut files = Vec::new();
    for d in DIRS {
        rust_files(&root.join(d), &mut files);
    }
    assert!(files.len() > 50, "{files:?}");
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let lits = literals_in(&text);
        found.extend(lits.into_iter().map(|(line, lit)| format!("{}:{line}: {lit}", f.strip_prefix(&root).unwrap().display())));
    }
    assert!(found.is_empty(), "OpenMP runtime names written as literals (use ompadapt_abi::openmp, abi/src/openmp.rs):\n{}", found.join("\n"));
}

/// The recogniser itself, on what it must and must not report.
#[test]
fn the_rule_recognises_names_and_only_names() {
    let source = r####"
        //! omp_get_max_threads in a comment
        /// `ompt_set_callback`, documented
        fn f() {
            let a = c"omp_in_parallel";
            let b = "__kmpc_fork_call";
            let c = b"__tgt_target_kernel\0";
            let d = r#"ompt_set_callback"#;
            println!("{}", "omp_get_default_device");
            // "omp_target_memcpy" in a comment
            let e = "no ompt_set_callback; the tool stays off";
            let f = "OMP_TOOL_LIBRARIES";
            let g = "__omp_offloading_";
            let h = "omp_concurrency.txt";
            let i = 'o';
        }
    "####;
    let found: Vec<(usize, String)> = literals_in(source);
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [5, 6, 7, 8, 9], "{found:?}");
    assert_eq!(found[2].1, r#"b"__tgt_target_kernel\0""#);
}
