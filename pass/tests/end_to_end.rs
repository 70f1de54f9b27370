//! End to end: a real program with an adaptive region, its host IR transformed by the pass,
//! compiled and linked with the untouched device image, then run with each variant.
//!
//! clang's offload driver compiles the host side as: host IR (`-emit-llvm-bc
//! -disable-llvm-passes`), device object, `clang-offload-packager`, then `-x ir` host IR ->
//! object with `-fembed-offload-object=<package>`, and `clang-linker-wrapper` at link time. The
//! test does the same steps by hand with the pass applied to the host IR in between.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{have_clang, host_ir, input, ir_text, parse, run_ok, scratch, verify, Opt, CLANG, CLANGXX, OFFLOAD_TRIPLE};
use inkwell::context::Context;
use ompadapt_pass::transform_module;

const LLVM_LIB: &str = "/usr/lib/llvm-19/lib";

fn packager() -> Option<PathBuf> {
    ["/usr/lib/llvm-19/bin/clang-offload-packager", "clang-offload-packager-19"]
        .iter()
        .map(PathBuf::from)
        .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
}

fn offload_flags() -> [String; 2] {
    ["-fopenmp".into(), format!("-fopenmp-targets={OFFLOAD_TRIPLE}")]
}

/// Builds the program `source` (an input) at `opt`, with or without the pass over its host IR.
fn build(source: &str, opt: Opt, packager: &Path, transform: bool, dir: &Path) -> PathBuf {
    let src = input(source);
    let driver = if source.ends_with(".cpp") { CLANGXX } else { CLANG };
    let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
    let tag = format!("{stem}.{}{}", opt.tag(), if transform { "" } else { ".plain" });
    // Device image, packaged as the driver does.
    let device_obj = dir.join(format!("device.{tag}.o"));
    run_ok(
        Command::new(driver)
            .args(opt.flags())
            .args(offload_flags())
            .args(["--offload-device-only", "-c"])
            .arg(&src)
            .arg("-o")
            .arg(&device_obj),
    );
    let package = dir.join(format!("device.{tag}.pkg"));
    run_ok(
        Command::new(packager)
            .arg("-o")
            .arg(&package)
            .arg(format!("--image=file={},triple={OFFLOAD_TRIPLE},arch=,kind=openmp", device_obj.display())),
    );
    // Host IR before any LLVM pass, rewritten by the pass.
    let host_ll = host_ir(&src, opt, &[], dir);
    let host_out = dir.join(format!("host.{tag}.out.ll"));
    {
        let context = Context::create();
        let module = parse(&context, &host_ll);
        if transform {
            let outcome = transform_module(&module);
            assert_eq!(outcome.rewritten.len(), 1, "{outcome:?}");
            verify(&module, source);
        }
        std::fs::write(&host_out, ir_text(&module)).unwrap();
    }
    // Host object with the device image embedded (the full -O2 pipeline runs here at -O2).
    let host_obj = dir.join(format!("host.{tag}.o"));
    run_ok(
        Command::new(CLANG)
            .args(opt.flags())
            .arg("-c")
            .arg(&host_out)
            .arg(format!("-Xclang=-fembed-offload-object={}", package.display()))
            .arg("-o")
            .arg(&host_obj),
    );
    let exe = dir.join(tag);
    run_ok(Command::new(driver).args(offload_flags()).arg(&host_obj).arg(format!("-Wl,-rpath,{LLVM_LIB}")).arg("-o").arg(&exe));
    exe
}

/// Runs the program; returns (stdout line, stderr).
fn run(exe: &Path, mode: &str, offload_env: Option<&str>) -> (String, String) {
    let mut cmd = Command::new(exe);
    cmd.arg(mode).env_remove("OMP_TARGET_OFFLOAD");
    if let Some(v) = offload_env {
        cmd.env("OMP_TARGET_OFFLOAD", v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{} {mode} (OMP_TARGET_OFFLOAD={offload_env:?}) failed: {}\n{stdout}\n{stderr}",
        exe.display(),
        out.status
    );
    (stdout, stderr)
}

fn end_to_end(source: &str, opt: Opt) {
    let test = format!("end_to_end_{source}_{}", opt.tag());
    if !have_clang(&test) {
        return;
    }
    let Some(packager) = packager() else {
        eprintln!("skipping {test}: clang-offload-packager (clang-tools-19) is not installed");
        return;
    };
    let dir = scratch(&test);
    let exe = build(source, opt, &packager, true, &dir);
    for env in [None, Some("MANDATORY")] {
        // cpu: the host version runs (no offload), even when offload is mandatory.
        let (out, err) = run(&exe, "0", env);
        assert_eq!(out, "HHHH OK", "variant cpu, OMP_TARGET_OFFLOAD={env:?}; stderr: {err}");
        assert!(!err.contains("UNLOWERED"), "the marker must be gone: {err}");
        // gpu: the original offload runs on the host-offload device.
        let (out, err) = run(&exe, "1", env);
        assert_eq!(out, "DDDD OK", "variant gpu, OMP_TARGET_OFFLOAD={env:?}; stderr: {err}");
        // Switching at run time, call by call.
        let (out, _) = run(&exe, "alt", env);
        assert_eq!(out, "HDHD OK", "alternating variants, OMP_TARGET_OFFLOAD={env:?}");
    }
    // OMP_TARGET_OFFLOAD=DISABLED still runs everything on the host, correctly.
    let (out, _) = run(&exe, "1", Some("DISABLED"));
    assert_eq!(out, "HHHH OK");

    // Control: without the pass, the cpu variant offloads and the marker's warning runs.
    let plain = build(source, opt, &packager, false, &dir);
    let (out, err) = run(&plain, "0", None);
    assert_eq!(out, "DDDD OK");
    assert!(err.contains("UNLOWERED"), "{err}");
}

#[test]
fn end_to_end_c_at_o0() {
    end_to_end("e2e_vecadd.c", Opt::O0);
}

#[test]
fn end_to_end_c_at_o2() {
    end_to_end("e2e_vecadd.c", Opt::O2);
}

/// C++ with a destructor alive across the region: the marker is an invoke.
#[test]
fn end_to_end_cxx_at_o0() {
    end_to_end("e2e_guard.cpp", Opt::O0);
}

#[test]
fn end_to_end_cxx_at_o2() {
    end_to_end("e2e_guard.cpp", Opt::O2);
}
