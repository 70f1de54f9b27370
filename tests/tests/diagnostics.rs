//! Every diagnostic of the adaptation directives, checked on its text, severity and
//! line:column. Each file under tests/diagnostics/ lists what it expects in comments:
//! `// EXPECT: LINE:COL: error|warning|remark|note: MESSAGE` (`{{FILE}}` stands for the file's
//! path), and `// FLAGS: ...` the plugin arguments it needs. Errors, warnings and remarks must
//! match exactly (nothing missing, nothing extra); listed notes must be present.

use ompadapt_tests::*;
use std::collections::BTreeSet;
use std::process::Command;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Diag {
    line: u32,
    col: u32,
    severity: String,
    message: String,
}

fn parse_line(line: &str, file: &str) -> Option<Diag> {
    let rest = line.strip_prefix(file)?.strip_prefix(':')?;
    let mut it = rest.splitn(4, ':');
    let line_no = it.next()?.parse().ok()?;
    let col = it.next()?.parse().ok()?;
    let severity = it.next()?.trim().to_string();
    let message = it.next()?.trim().to_string();
    Some(Diag { line: line_no, col, severity, message })
}

fn check_file(name: &str) {
    let path = source(&format!("diagnostics/{name}"));
    let file = path.to_str().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let expected: BTreeSet<Diag> = text
        .lines()
        .filter_map(|l| l.strip_prefix("// EXPECT: "))
        .map(|e| parse_line(&format!("{file}:{}", e.replace("{{FILE}}", file)), file).expect("well-formed EXPECT"))
        .collect();
    assert!(!expected.is_empty(), "{name} expects nothing");
    let mut c = Command::new(CLANG);
    if name.ends_with(".cpp") {
        c.args(["-x", "c++"]);
    }
    c.args(["-fsyntax-only", "-fopenmp", "-ferror-limit=0", "-fno-color-diagnostics", "-fno-caret-diagnostics"])
        .arg(format!("-fplugin={}", plugin().display()))
        .args(text.lines().filter_map(|l| l.strip_prefix("// FLAGS: ")).flat_map(str::split_whitespace))
        .arg(&path);
    let out = run(&mut c);
    assert!(!out.ok() || expected.iter().all(|d| d.severity != "error"), "{name} must fail to compile");
    assert!(!out.stderr.contains("PLEASE submit a bug report"), "clang crashed:\n{}", out.stderr);
    let got: BTreeSet<Diag> = out.stderr.lines().filter_map(|l| parse_line(l, file)).collect();
    let major = |s: &BTreeSet<Diag>| s.iter().filter(|d| d.severity != "note").cloned().collect::<BTreeSet<_>>();
    let (want, have) = (major(&expected), major(&got));
    assert_eq!(
        want.difference(&have).collect::<Vec<_>>(),
        Vec::<&Diag>::new(),
        "missing diagnostics in {name}; clang said:\n{}",
        out.stderr
    );
    assert_eq!(
        have.difference(&want).collect::<Vec<_>>(),
        Vec::<&Diag>::new(),
        "unexpected diagnostics in {name}; clang said:\n{}",
        out.stderr
    );
    for note in expected.iter().filter(|d| d.severity == "note") {
        assert!(got.contains(note), "missing note {note:?} in {name}; clang said:\n{}", out.stderr);
    }
}

#[test]
fn clause_diagnostics() {
    check_file("clauses.c");
}

#[test]
fn range_diagnostics() {
    check_file("ranges.c");
}

#[test]
fn nesting_diagnostics() {
    check_file("nesting.c");
}

#[test]
fn model_type_and_output_diagnostics() {
    check_file("model_type.c");
}

#[test]
fn selector_diagnostics() {
    check_file("selectors.c");
}

#[test]
fn declare_adaptation_diagnostics() {
    check_file("declare.c");
}

#[test]
fn resource_limit_diagnostics() {
    check_file("limits.c");
}

#[test]
fn model_output_diagnostics() {
    check_file("model_output.c");
}

#[test]
fn model_output_diagnostics_cplusplus() {
    check_file("model_output.cpp");
}

#[test]
fn directive_variant_diagnostics() {
    check_file("directive_variants.c");
}

#[test]
fn associated_region_features_out_of_scope() {
    check_file("declare_scope.c");
}

#[test]
fn variant_kind_diagnostics() {
    check_file("variant_kinds.c");
}

#[test]
fn kind_hints_and_features_that_are_not_numbers() {
    check_file("kind_hints.c");
}

/// The bracket hint and the did-you-mean come with fix-its that rewrite the item.
#[test]
fn kind_hints_have_fixits() {
    let path = source("diagnostics/kind_hints.c");
    let out = run(Command::new(CLANG)
        .args(["-fsyntax-only", "-fopenmp", "-fno-color-diagnostics", "-fdiagnostics-parseable-fixits"])
        .arg(format!("-fplugin={}", plugin().display()))
        .arg(&path));
    let fixits: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("fix-it:")).collect();
    assert!(fixits.iter().any(|l| l.contains(":{13:65-13:88}:\"thread_limit[64:256:64]\"")), "{}", out.stderr);
    assert!(fixits.iter().any(|l| l.contains(":{16:65-16:78}:\"thread_limit\"")), "{}", out.stderr);
}

#[test]
fn categorical_names_and_one_directive_per_statement() {
    check_file("categorical.c");
}

#[test]
fn auto_feature_diagnostics() {
    check_file("auto_features.c");
}

#[test]
fn auto_mode_remarks() {
    check_file("auto_mode_remarks.c");
}

#[test]
fn syntax_error_in_every_clause() {
    check_file("syntax.c");
}
