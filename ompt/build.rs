//! Generates Rust bindings to OpenMP's `omp-tools.h` (the OMPT interface) with bindgen, for
//! the runtime's and dataperf's OMPT tools.
//!
//! The header ships with clang (libomp-19-dev puts it in clang's resource directory). It is
//! found through `OMPADAPT_OMP_TOOLS_H`, else `clang-19 -print-resource-dir`, else the
//! Debian path.

use std::path::PathBuf;
use std::process::Command;

fn header() -> PathBuf {
    if let Ok(p) = std::env::var("OMPADAPT_OMP_TOOLS_H") {
        return PathBuf::from(p);
    }
    let mut candidates = Vec::new();
    for clang in ["clang-19", "clang"] {
        if let Ok(out) = Command::new(clang).arg("-print-resource-dir").output() {
            if out.status.success() {
                let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
                candidates.push(PathBuf::from(dir).join("include/omp-tools.h"));
            }
        }
    }
    candidates.push(PathBuf::from("/usr/lib/llvm-19/lib/clang/19/include/omp-tools.h"));
    candidates
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("omp-tools.h not found: install libomp-19-dev (scripts/bootstrap.sh does) or set OMPADAPT_OMP_TOOLS_H"))
}

fn main() {
    println!("cargo:rerun-if-env-changed=OMPADAPT_OMP_TOOLS_H");
    println!("cargo:rerun-if-changed=build.rs");
    let h = header();
    println!("cargo:rerun-if-changed={}", h.display());
    let bindings = bindgen::Builder::default()
        .header(h.to_string_lossy())
        .allowlist_type("ompt_.*")
        .allowlist_var("ompt_.*")
        // Enumerations arrive from C as plain integers: constants, never Rust enums (a value
        // the header does not list must not be undefined behaviour).
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .layout_tests(true)
        .generate()
        .expect("bindgen on omp-tools.h");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("omp_tools.rs");
    bindings.write_to_file(out).expect("write bindings");
}
