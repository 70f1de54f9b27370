//! Builds the C++ side of the pass against the distribution's LLVM 19: its registration with
//! LLVM's new pass manager (shim/pass_plugin.cpp), its optimisation remarks (shim/remarks.cpp)
//! and statistics (shim/statistics.cpp); inkwell/llvm-sys link libLLVM itself. Also compiles the
//! runtime loader of the lowering header (loader/ompadapt_loader.cpp) to assembly for each host architecture the
//! pass adds it for (src/loader.rs).
use std::path::Path;
use std::process::Command;

#[path = "build_support/object_asm.rs"]
mod object_asm;

/// The loader's local labels (clang's `.L` ones, renamed so as not to clash with the module's).
const LABEL_PREFIX: &str = ".L__ompadapt_loader.";
/// The COMDAT group of the loader's strings and constants, named after their hash (see
/// build_support/object_asm.rs).
const POOL_PREFIX: &str = "__ompadapt_v5_loader_consts_";

const SHIM_FILES: [&str; 5] =
    ["shim/pass_plugin.cpp", "shim/remarks.cpp", "shim/library.cpp", "shim/debug_location.cpp", "shim/statistics.cpp"];

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
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    for (arch, triple, landing_pads) in LOADER_TARGETS {
        let asm = compile_loader(triple, landing_pads, &["-S", "-o", "-"]);
        let object = Path::new(&out).join(format!("loader-{arch}.o"));
        compile_loader(triple, landing_pads, &["-c", "-o", object.to_str().expect("utf-8 path")]);
        // The object's bytes as `.ascii` strings where that form is known (x86-64): it costs
        // each translation unit a third of what clang's text does to assemble.
        let compact = std::fs::read(&object).ok().and_then(|o| object_asm::object_to_asm(&o, LABEL_PREFIX, POOL_PREFIX));
        let asm = compact.unwrap_or_else(|| module_asm(&asm));
        std::fs::write(Path::new(&out).join(format!("loader-{arch}.s")), asm).expect("write the loader");
        // The same as bitcode, for compilers whose backend cannot assemble module-level assembly
        // (flang-new-19 registers no assembly parser).
        let bc = Path::new(&out).join(format!("loader-{arch}.bc"));
        compile_loader(triple, landing_pads, &["-emit-llvm", "-c", "-o", bc.to_str().expect("utf-8 path")]);
    }
    let libdir = include.replace("/include", "/lib");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{libdir}");
    for file in SHIM_FILES.iter().chain(LOADER_SOURCES.iter()).chain(["build_support/object_asm.rs"].iter()) {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
}

/// The loader and what it includes.
const LOADER_SOURCES: [&str; 3] = ["loader/ompadapt_loader.cpp", "../plugin/include/ompadapt_lowering.h", "../runtime/include/ompadapt.h"];

/// Architecture (as `ompadapt_abi::markers::PRECOMPILED_LOADER_ARCHES` names it), triple, and the
/// flag that gives indirect-branch landing pads: harmless where unused, needed where a program
/// enforces them (the table's functions are called indirectly).
const LOADER_TARGETS: [(&str, &str, &str); 2] =
    [("x86_64", "x86_64-linux-gnu", "-fcf-protection=branch"), ("aarch64", "aarch64-linux-gnu", "-mbranch-protection=bti")];

/// The loader compiled for `triple`: position-independent (it goes into executables and shared
/// libraries alike), optimised for size (it runs once per process; begin's memo is small).
/// Thread-local storage through TLS descriptors (aarch64's default): their call preserves every
/// register but the result, so begin's memo saves none for it, and in an executable the linker
/// turns it into a thread-pointer offset.
fn compile_loader(triple: &str, landing_pads: &str, output: &[&str]) -> String {
    let cxx = std::env::var("OMPADAPT_CLANGXX").unwrap_or_else(|_| "clang++-19".into());
    let tls = if triple.starts_with("x86_64") { "-mtls-dialect=gnu2" } else { "-fPIC" };
    let output = Command::new(&cxx)
        .args([&format!("--target={triple}"), "-x", "c++", "-std=c++17", "-Os", "-fPIC", tls])
        .args(output)
        .args(["-fno-addrsig", "-fno-exceptions", "-fno-rtti", "-fno-ident", landing_pads])
        .args(["-I../runtime/include", "-I../plugin/include", "loader/ompadapt_loader.cpp"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cxx} ({e}); run scripts/bootstrap.sh to install clang 19"));
    assert!(output.status.success(), "compiling the loader for {triple} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// `asm` made fit to share a module with the code clang generates: its local labels renamed
/// (they would clash with the module's own `.L` labels), and what describes a whole object file
/// dropped (`.file`, the stack note, the property note: the module's own flags decide those).
fn module_asm(asm: &str) -> String {
    let mut out = String::from("\t.pushsection .text\n");
    let mut in_note = false;
    for line in asm.lines() {
        let directive = line.trim_start();
        if directive.starts_with(".section") {
            in_note = directive.contains(".note.gnu.property");
            if in_note || directive.contains(".note.GNU-stack") {
                continue;
            }
        } else if directive.starts_with(".text") {
            in_note = false;
        }
        if in_note || directive.starts_with(".file") {
            continue;
        }
        if directive.starts_with(".asciz") || directive.starts_with(".ascii") {
            out.push_str(line);
        } else {
            out.push_str(&line.replace(".L", LABEL_PREFIX));
        }
        out.push('\n');
    }
    out.push_str("\t.popsection\n");
    out
}
