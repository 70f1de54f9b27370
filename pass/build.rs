//! Builds the C++ side of the pass against the distribution's LLVM 19: its registration with
//! LLVM's new pass manager (shim/pass_plugin.cpp) and its optimisation remarks
//! (shim/remarks.cpp); inkwell/llvm-sys link libLLVM itself.
use std::process::Command;

const SHIM_FILES: [&str; 2] = ["shim/pass_plugin.cpp", "shim/remarks.cpp"];

fn main() {
    let exe = std::env::var("LLVM_CONFIG").unwrap_or_else(|_| "llvm-config-19".into());
    let out = Command::new(&exe)
        .arg("--includedir")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe} ({e}); run scripts/bootstrap.sh to install LLVM 19"));
    let include = String::from_utf8(out.stdout).expect("utf-8").trim().to_string();
    let mut build = cc::Build::new();
    build.cpp(true).std("c++17").include(&include);
    // LLVM is built without RTTI or exceptions; our subclasses of its classes must match.
    for flag in ["-fno-rtti", "-fno-exceptions", "-funwind-tables", "-Wno-unused-parameter"] {
        build.flag(flag);
    }
    if Command::new("clang++-19").arg("--version").output().is_ok() {
        build.compiler("clang++-19");
    }
    build.files(SHIM_FILES).compile("ompadapt_pass_shim");
    let libdir = include.replace("/include", "/lib");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{libdir}");
    for file in SHIM_FILES {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
}
