//! A kernel handed a null pointer with a zero-length section (XSBench's unused grids): the
//! `cpu` variant runs it without asking libomptarget about the null pointer, so the program
//! prints exactly what stock prints (libomptarget reported "Call to omp_get_mapped_ptr with
//! nullptr" on stderr before; found by the offload suite's run of XSBench).

use ompadapt_tests::*;
use std::process::Command;

#[test]
fn a_null_pointer_section_runs_under_cpu_without_a_word() {
    let dir = scratch();
    let src = source("programs/auto/null_sections.c");
    let stock = dir.path().join("stock");
    let mut c = Command::new(CLANG);
    c.args(["-O2", "-fopenmp", HOST_OFFLOAD, "-Wl,-rpath,/usr/lib/llvm-19/lib"]).arg(&src).arg("-o").arg(&stock);
    run(&mut c).expect_ok("stock");
    let adaptive = dir.path().join("adaptive");
    compile(&src, &adaptive, &["-O2", "-fplugin-arg-ompadapt-auto=cpu,gpu", "-Wl,-rpath,/usr/lib/llvm-19/lib"]).expect_ok("adaptive");
    let want = run_program(&stock, dir.path(), &[]);
    want.expect_ok("stock run");
    for variant in ["cpu", "gpu"] {
        let out = run_program(&adaptive, dir.path(), &[("OMPADAPT_VARIANT", variant), ("OMPADAPT_PERSIST", "0")]);
        out.expect_ok(variant);
        assert_eq!(out.stdout, want.stdout, "{variant}");
        assert_eq!(out.stderr, want.stderr, "{variant}: {}", out.stderr);
    }
}
