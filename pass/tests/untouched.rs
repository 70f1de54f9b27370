//! Modules the pass must leave alone: a marker with no launch after it (warning), device
//! modules, modules without markers.

mod common;

use std::process::Command;

use common::{have_clang, host_ir, input, ir_text, parse, run_ok, scratch, verify, Opt, CLANG, OFFLOAD_TRIPLE};
use inkwell::context::Context;
use inkwell::targets::TargetTriple;
use ompadapt_pass::diagnostics::unlowered_warning;
use ompadapt_pass::{run_on_module, transform_module, RemarkId, RemarkKind, Unlowered, LAUNCH_MARKER, WARNING_PREFIX};

#[test]
fn marker_without_launch_warns_and_changes_nothing() {
    if !have_clang("marker_without_launch_warns_and_changes_nothing") {
        return;
    }
    let dir = scratch("marker_without_launch");
    for opt in [Opt::O0, Opt::O2] {
        let ll = host_ir(&input("no_launch.c"), opt, &[], &dir);
        let context = Context::create();
        let module = parse(&context, &ll);
        let before = ir_text(&module);
        let outcome = transform_module(&module);
        assert!(!outcome.changed);
        assert_eq!(before, ir_text(&module), "module changed");
        assert_eq!(outcome.warnings.len(), 1, "{:?}", outcome.warnings);
        let w = &outcome.warnings[0];
        assert!(w.starts_with(WARNING_PREFIX), "{w}");
        assert!(w.contains("'lonely'"), "names the function: {w}");
        assert!(w.contains("no offload launch"), "{w}");
        // The marker and its function stay, so the runtime warns at run time.
        assert!(before.contains(&format!("call void @{LAUNCH_MARKER}(")));
        assert!(module.get_function(LAUNCH_MARKER).is_some());
        verify(&module, "no_launch.c");
    }
}

/// Markers whose launch cannot be dispatched stay, each with a warning saying why; the
/// marker function stays with them.
#[test]
fn odd_markers_are_left_with_a_reason() {
    if !have_clang("odd_markers_are_left_with_a_reason") {
        return;
    }
    let dir = scratch("odd_markers");
    for opt in [Opt::O0, Opt::O2] {
        let ll = host_ir(&input("odd_markers.c"), opt, &[], &dir);
        let context = Context::create();
        let module = parse(&context, &ll);
        let outcome = transform_module(&module);
        verify(&module, "odd_markers.c");
        assert_eq!(outcome.rewritten.len(), 1);
        assert_eq!(outcome.rewritten[0].function, "two_markers_one_launch");
        assert_eq!(outcome.rewritten[0].record.model, "second");
        let expect = [
            ("conditional_marker", "conditional", Unlowered::NotDominated),
            ("two_markers_one_launch", "first", Unlowered::NoLaunch),
            ("deferred", "deferred", Unlowered::DeferredTarget),
        ];
        assert_eq!(outcome.warnings.len(), expect.len(), "{:?}", outcome.warnings);
        for ((function, model, why), warning) in expect.iter().zip(&outcome.warnings) {
            assert_eq!(warning, &unlowered_warning(function, model, *why));
        }
        // The same as missed-optimisation remarks, beside the one for the region dispatched.
        let remarks: Vec<(RemarkId, &str)> = outcome.remarks.iter().map(|r| (r.id, r.model.as_str())).collect();
        assert_eq!(
            remarks,
            [
                (RemarkId::NotDominated, "conditional"),
                (RemarkId::NoLaunch, "first"),
                (RemarkId::LaunchDispatched, "second"),
                (RemarkId::DeferredTarget, "deferred")
            ]
        );
        for (remark, (_, _, why)) in outcome.remarks.iter().filter(|r| r.id.kind() == RemarkKind::Missed).zip(&expect) {
            assert_eq!(remark.text(), format!("[{}] region '{}': {}", why.remark_id().code(), remark.model, why.reason()));
        }
        assert!(module.get_function(LAUNCH_MARKER).is_some(), "still called by the markers left");
        assert_eq!(ir_text(&module).matches(&format!("call void @{LAUNCH_MARKER}(")).count(), 3);
    }
}

/// Without -fopenmp-targets there is no launch at all: the marker stays, and the warning says
/// that both variants run on the host.
#[test]
fn module_without_offload_targets() {
    if !have_clang("module_without_offload_targets") {
        return;
    }
    let dir = scratch("no_offload_targets");
    let ll = dir.join("vecadd.nooffload.ll");
    run_ok(
        Command::new(CLANG)
            .args(["-fopenmp", "-S", "-emit-llvm", "-Xclang", "-disable-llvm-passes"])
            .arg(input("vecadd.c"))
            .arg("-o")
            .arg(&ll),
    );
    let context = Context::create();
    let module = parse(&context, &ll);
    let before = ir_text(&module);
    let outcome = transform_module(&module);
    assert!(!outcome.changed);
    assert_eq!(before, ir_text(&module));
    assert_eq!(outcome.warnings, vec![unlowered_warning("vecadd", "vecadd", Unlowered::NoOffloadInModule)]);
}

/// `run_on_module` prints the warning on stderr, once. Checked in a child process (this test
/// binary re-run with only this test) so that stderr can be read.
#[test]
fn warning_is_printed_once_on_stderr() {
    const CHILD: &str = "OMPADAPT_PASS_TEST_CHILD_IR";
    if let Ok(path) = std::env::var(CHILD) {
        let context = Context::create();
        let module = parse(&context, path.as_ref());
        assert!(!run_on_module(&module, None));
        return;
    }
    if !have_clang("warning_is_printed_once_on_stderr") {
        return;
    }
    let dir = scratch("warning_on_stderr");
    let ll = host_ir(&input("no_launch.c"), Opt::O0, &[], &dir);
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "warning_is_printed_once_on_stderr", "--nocapture", "--test-threads=1"])
        .env(CHILD, &ll)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<_> = stderr.lines().filter(|l| l.starts_with(WARNING_PREFIX)).collect();
    assert_eq!(warnings.len(), 1, "stderr:\n{stderr}");
    assert!(warnings[0].contains("in function 'lonely'"), "{}", warnings[0]);
}

#[test]
fn device_modules_are_untouched() {
    if !have_clang("device_modules_are_untouched") {
        return;
    }
    let dir = scratch("device_modules");
    // The device half of a host-offload compilation (flagged `openmp-device`).
    let device_ll = dir.join("vecadd.device.ll");
    run_ok(
        Command::new(CLANG)
            .args(["-fopenmp", &format!("-fopenmp-targets={OFFLOAD_TRIPLE}")])
            .args(["--offload-device-only", "-S", "-emit-llvm", "-Xclang", "-disable-llvm-passes"])
            .arg(input("vecadd.c"))
            .arg("-o")
            .arg(&device_ll),
    );
    let context = Context::create();
    let module = parse(&context, &device_ll);
    let before = ir_text(&module);
    assert!(!run_on_module(&module, None));
    assert_eq!(before, ir_text(&module));

    // A module with markers and launches but a GPU triple is left alone too.
    for triple in ["nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa"] {
        let ll = host_ir(&input("vecadd.c"), Opt::O0, &[], &dir);
        let context = Context::create();
        let module = parse(&context, &ll);
        module.set_triple(&TargetTriple::create(triple));
        let before = ir_text(&module);
        let outcome = transform_module(&module);
        assert!(!outcome.changed && outcome.warnings.is_empty(), "{triple}");
        assert_eq!(before, ir_text(&module), "{triple}");
    }
}

/// A module the frontend did not compile: with pass-only mode off, untouched; with it on, its
/// launch becomes a dispatch (pass-only mode, docs/pass-only.md) and the module verifies.
#[test]
fn modules_without_markers_are_untouched_unless_pass_only_mode_is_on() {
    if !have_clang("modules_without_markers_are_untouched") {
        return;
    }
    let dir = scratch("no_markers");
    let src = dir.join("plain.c");
    std::fs::write(
        &src,
        "void plain(double *X, int N) {\n#pragma omp target teams distribute parallel for map(tofrom: X[0:N])\n  for (int i = 0; i < N; ++i) X[i] += 1;\n}\n",
    )
    .unwrap();
    for opt in [Opt::O0, Opt::O2] {
        let ll = host_ir(&src, opt, &[], &dir);
        let context = Context::create();
        let module = parse(&context, &ll);
        let before = ir_text(&module);
        let outcome = ompadapt_pass::transform_module_with(&module, Some("off"));
        assert!(!outcome.changed && outcome.warnings.is_empty());
        assert_eq!(before, ir_text(&module));
        let outcome = ompadapt_pass::transform_module_with(&module, Some("cpu,gpu"));
        assert!(outcome.changed && outcome.warnings.is_empty(), "{opt:?}: {:?}", outcome.warnings);
        assert_eq!(outcome.rewritten.len(), 1, "{opt:?}: the launch became a dispatch");
        assert!(outcome.remarks.iter().any(|r| r.text().contains("[OMPADAPT154]")), "{opt:?}");
        verify(&module, "plain.c");
    }
}

/// `run_on_llvm_module` borrows the module: it stays usable (and is disposed once, by its owner).
#[test]
fn raw_module_entry_point_borrows() {
    if !have_clang("raw_module_entry_point_borrows") {
        return;
    }
    let dir = scratch("raw_entry_point");
    let ll = host_ir(&input("vecadd.c"), Opt::O0, &[], &dir);
    let context = Context::create();
    let module = parse(&context, &ll);
    let changed = unsafe { ompadapt_pass::run_on_llvm_module(module.as_mut_ptr(), None) };
    assert!(changed);
    verify(&module, "vecadd.c");
    assert!(ir_text(&module).contains("ompadapt.dispatch:"));
    assert!(!unsafe { ompadapt_pass::run_on_llvm_module(module.as_mut_ptr(), None) });
    assert!(!unsafe { ompadapt_pass::run_on_llvm_module(std::ptr::null_mut(), None) });
    drop(module); // the only dispose
}
