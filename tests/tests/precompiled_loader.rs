//! The runtime loader is compiled once, when ompadapt is built, and the pass adds it to the
//! modules that call it as assembly in COMDAT groups (pass/src/loader.rs): a program of several
//! translation units keeps one copy and runs as before, with and without a runtime. Where the pass
//! cannot add it (no pass, LTO) the lowering header compiles it in the translation unit.

use std::path::Path;
use std::process::Command;

use ompadapt_tests::*;

const LOADER: &str = "__ompadapt_v6_load_runtime";

/// Two translation units with a host `parallel for` each (zero-source-change mode makes them
/// adaptive), and what the program prints.
const MAIN_C: &str = r#"#include <stdio.h>
double scale(double *x, int n);
int main(void) {
  static double x[4096];
  double s = 0;
  for (int r = 0; r < 6; r++) {
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 4096; i++) { x[i] = i * 0.5; s += x[i]; }
    s += scale(x, 4096);
  }
  printf("sum=%.1f\n", s);
  return 0;
}
"#;
const SCALE_C: &str = r#"double scale(double *x, int n) {
  double t = 0;
  #pragma omp parallel for reduction(+:t)
  for (int i = 0; i < n; i++) t += 2 * x[i];
  return t;
}
"#;
const EXPECTED: &str = "sum=75479040.0";

fn write_sources(dir: &Path) {
    std::fs::write(dir.join("main.c"), MAIN_C).unwrap();
    std::fs::write(dir.join("scale.c"), SCALE_C).unwrap();
}

/// clang-19 -fopenmp with the plugin in auto mode, plus `extra`, in `dir`.
fn clang(dir: &Path, extra: &[&str]) -> Run {
    let mut c = Command::new(CLANG);
    c.current_dir(dir).args(["-O2", "-fopenmp", "-fplugin-arg-ompadapt-auto"]).arg(format!("-fplugin={}", plugin().display())).args(extra);
    run(&mut c)
}

/// Lines of `nm` defining `symbol` (any binding).
fn definitions(file: &Path, symbol: &str) -> usize {
    let out = run(Command::new("nm").arg(file));
    out.expect_ok("nm");
    out.stdout.lines().filter(|l| l.split_whitespace().last() == Some(symbol) && !l.trim_start().starts_with('U')).count()
}

/// Builds the two translation units separately with `flags`, links them, and checks one loader
/// in the program, and that it runs with the runtime and without one.
fn one_loader_per_program(flags: &[&str]) {
    let d = scratch();
    write_sources(d.path());
    for tu in ["main", "scale"] {
        clang(d.path(), &[flags, &["-c", &format!("{tu}.c"), "-o", &format!("{tu}.o")]].concat()).expect_ok("compile");
        assert_eq!(definitions(&d.path().join(format!("{tu}.o")), LOADER), 1, "{tu}.o carries the loader ({flags:?})");
    }
    clang(d.path(), &[flags, &["main.o", "scale.o", "-o", "app"]].concat()).expect_ok("link");
    let exe = d.path().join("app");
    assert_eq!(definitions(&exe, LOADER), 1, "one loader in the program ({flags:?})");
    let with = run_program(&exe, d.path(), &[]);
    with.expect_ok("the program with its runtime");
    assert_eq!(with.stdout.trim(), EXPECTED);
    assert!(d.path().join(".ompadapt").exists(), "the runtime recorded nothing: {}", with.stderr);
    let without = run_program(&exe, d.path(), &[("OMPADAPT_RUNTIME", "/nonexistent/libompadapt_rt.so")]);
    without.expect_ok("the program without a runtime");
    assert_eq!(without.stdout.trim(), EXPECTED, "the fallback runs the first variant");
    assert!(
        without.stderr.contains("cannot use the runtime library /nonexistent/libompadapt_rt.so"),
        "the loader says why it runs without a runtime: {}",
        without.stderr
    );
}

#[test]
fn a_program_of_two_translation_units_keeps_one_loader() {
    one_loader_per_program(&[]);
}

#[test]
fn with_offload_targets_the_loader_goes_through_the_bitcode_job() {
    one_loader_per_program(&[HOST_OFFLOAD]);
}

/// The module as `flags` leave it (`-S -emit-llvm`).
fn module_text(flags: &[&str]) -> String {
    let d = scratch();
    write_sources(d.path());
    clang(d.path(), &[flags, &["-S", "-emit-llvm", "scale.c", "-o", "scale.ll"]].concat()).expect_ok("compile");
    std::fs::read_to_string(d.path().join("scale.ll")).unwrap()
}

#[test]
fn the_pass_adds_the_assembly_once_and_the_header_only_declares_it() {
    let ir = module_text(&[]);
    assert_eq!(ir.matches(&format!("{LOADER}:")).count(), 1, "the module asm defines the loader once:\n{ir}");
    for called in ["enter_team", "end"] {
        let declared = ir.lines().any(|l| l.starts_with("declare hidden ") && l.contains(&format!("@__ompadapt_v6_{called}(")));
        assert!(declared, "{called} is called, not compiled here:\n{ir}");
        assert!(!ir.contains(&format!("define internal void @__ompadapt_{called}(")), "{called} is not compiled here");
    }
    assert!(!ir.contains("@__ompadapt_untrusted"), "no helper of the loader compiled here");
}

#[test]
fn without_the_pass_or_with_lto_the_loader_is_compiled_in_the_translation_unit() {
    for flags in [&["-fplugin-arg-ompadapt-no-pass"][..], &["-flto"][..], &["-flto=thin"][..]] {
        let ir = module_text(flags);
        assert!(!ir.contains(&format!("{LOADER}:")), "no precompiled loader with {flags:?}");
        assert!(ir.contains("define internal") && ir.contains("@__ompadapt_api_load("), "the C loader with {flags:?}:\n{ir}");
    }
    // and a link-time-optimised program of two translation units links and runs
    let d = scratch();
    write_sources(d.path());
    clang(d.path(), &["-flto", "main.c", "scale.c", "-o", "app"]).expect_ok("LTO build");
    let r = run_program(&d.path().join("app"), d.path(), &[]);
    r.expect_ok("the LTO program");
    assert_eq!(r.stdout.trim(), EXPECTED);
}
