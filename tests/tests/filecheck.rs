//! IR tests in the style of LLVM's lit: each file under tests/filecheck/ carries `// RUN:`
//! lines, run by bash with `set -o pipefail` after substituting %clang, %opt, %plugin,
//! %passplugin (libompadapt_pass.so, what `opt -load-pass-plugin` takes), %clang_nvptx,
//! %flang (flang-new-19 -fopenmp; Fortran files carry `! RUN:` lines),
//! %S (the file's directory),
//! %FileCheck, %s (the file) and %t (a scratch path). CHECK lines are FileCheck's.

use ompadapt_tests::*;
use std::process::Command;

fn run_file(name: &str) {
    let path = source(&format!("filecheck/{name}"));
    let text = std::fs::read_to_string(&path).unwrap();
    let dir = scratch();
    // `// RUN:` in C, `! RUN:` in Fortran
    let runs: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("// RUN:").or_else(|| l.trim_start().strip_prefix("! RUN:")))
        .map(str::trim)
        .map(String::from)
        .collect();
    assert!(!runs.is_empty(), "{name} has no RUN line");
    for cmd in runs {
        let cmd = cmd
            .replace("%clang_nvptx", &format!("{CLANG} -fopenmp -fopenmp-targets=nvptx64"))
            .replace("%clang", &format!("{CLANG} -fopenmp {HOST_OFFLOAD}"))
            .replace("%flang", "flang-new-19 -fopenmp")
            .replace("%S", path.parent().unwrap().to_str().unwrap())
            .replace("%opt", OPT)
            .replace("%passplugin", pass_plugin().to_str().unwrap())
            .replace("%plugin", plugin().to_str().unwrap())
            .replace("%FileCheck", FILECHECK)
            .replace("%s", path.to_str().unwrap())
            .replace("%t", dir.path().join("t").to_str().unwrap());
        let out = run(Command::new("bash").args(["-c", &format!("set -euo pipefail; {cmd}")]));
        assert!(out.ok(), "{name}: `{cmd}` failed:\n{}\n{}", out.stdout, out.stderr);
    }
}

#[test]
fn offload_dispatch_ir() {
    run_file("offload_dispatch.c");
}

#[test]
fn pass_is_idempotent() {
    run_file("idempotent.c");
}

#[test]
fn lowering_ir() {
    run_file("lowering.c");
}

#[test]
fn nvptx_device_compilation() {
    run_file("device_nvptx.c");
}

#[test]
fn variant_kinds_ir() {
    run_file("variant_kinds.c");
}

#[test]
fn auto_features_and_auto_mode_ir() {
    run_file("auto_mode.c");
}

#[test]
fn auto_mode_beside_explicit_host_regions_ir() {
    run_file("auto_explicit_host.c");
}

#[test]
fn auto_features_ir() {
    run_file("auto_features.c");
}

#[test]
fn auto_features_cxx_ir() {
    run_file("auto_features_cxx.cpp");
}

#[test]
fn host_guard_ir() {
    run_file("host_guard.c");
}

#[test]
fn remarks_in_clang_yaml_and_opt() {
    run_file("remarks.c");
}

#[test]
fn team_analysis_ir() {
    run_file("team_analysis.c");
}

#[test]
fn pass_only_mode_ir() {
    run_file("pass_only.c");
}

#[test]
fn pass_only_mode_offload_ir() {
    run_file("pass_only_offload.c");
}

#[test]
fn pass_statistics_with_stats() {
    run_file("statistics.c");
}

#[test]
fn reduction_updates_through_the_operator() {
    run_file("reduction_operator.c");
}

#[test]
fn flang_forms() {
    run_file("flang_forms.f90");
}

#[test]
fn flang_fork_if() {
    run_file("fork_if.f90");
}

#[test]
fn kernels_given_device_memory() {
    run_file("device_memory.c");
}

#[test]
fn kernels_after_a_device_selector() {
    run_file("device_variant.c");
}

#[test]
fn kernels_asking_where_they_run_in_cxx() {
    run_file("initial_device.cpp");
}

#[test]
fn kernels_using_static_storage_of_the_device() {
    run_file("static_storage.c");
    run_file("static_storage.f90");
}

#[test]
fn private_copies_carried_across_iterations() {
    run_file("carried_copies.c");
}

#[test]
fn flang_dynamic_and_guided_loops() {
    run_file("flang_dispatch.f90");
}

#[test]
fn flang_runtime_functions() {
    run_file("flang_runtime.f90");
}

#[test]
fn memory_a_thread_allocates_is_its_own() {
    run_file("thread_own_memory.c");
    run_file("thread_own_memory.f90");
}

#[test]
fn thread_zero_guards() {
    run_file("thread_zero_guard.c");
    run_file("thread_zero_guard.f90");
}

#[test]
fn idempotent_stores_of_every_thread() {
    run_file("idempotent_stores.c");
    run_file("idempotent_stores.f90");
}

#[test]
fn stock_idents_where_locations_were_for_the_pass() {
    run_file("stock_idents.c");
}
