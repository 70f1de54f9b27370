//! Builds the thin C++ shim of the Clang frontend plugin against the
//! distribution's LLVM 19 and links libompadapt.so with the shared libclang-cpp and libLLVM
//! that clang-19 and opt-19 themselves load (a static LLVM copy would register every command
//! line option twice and crash).
use std::process::Command;

fn llvm_config(arg: &str) -> String {
    let exe = std::env::var("LLVM_CONFIG").unwrap_or_else(|_| "llvm-config-19".into());
    let out = Command::new(&exe)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe} ({e}); run scripts/bootstrap.sh to install LLVM 19"));
    String::from_utf8(out.stdout).expect("utf-8").trim().to_string()
}

/// The C++ shims, one job each (see each file's header).
const SHIMS: [&str; 6] =
    ["OmpAdaptPlugin.cpp", "OmpPragmaHandler.cpp", "StatementCollector.cpp", "TokenBridge.cpp", "DirectiveLookahead.cpp", "PassLoader.cpp"];

fn main() {
    let libdir = llvm_config("--libdir");
    let includedir = llvm_config("--includedir");
    let mut build = cc::Build::new();
    build.cpp(true).std("c++17").include(&includedir).include("shim");
    // LLVM is built without RTTI or exceptions; our subclasses of its classes must match.
    for flag in ["-fno-rtti", "-fno-exceptions", "-funwind-tables", "-Wno-unused-parameter"] {
        build.flag(flag);
    }
    for def in ["_GNU_SOURCE", "__STDC_CONSTANT_MACROS", "__STDC_FORMAT_MACROS", "__STDC_LIMIT_MACROS"] {
        build.define(def, None);
    }
    if Command::new("clang++-19").arg("--version").output().is_ok() {
        build.compiler("clang++-19");
    }
    for f in SHIMS {
        build.file(format!("shim/{f}"));
    }
    build.compile("ompadapt_shims");
    println!("cargo:rustc-link-search=native={libdir}");
    println!("cargo:rustc-link-lib=dylib=clang-cpp");
    println!("cargo:rustc-link-lib=dylib=LLVM");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{libdir}");
    println!("cargo:rerun-if-changed=shim");
    for f in ["include/ompadapt_lowering.h", "../runtime/include/ompadapt.h"] {
        println!("cargo:rerun-if-changed={f}");
    }
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
}
