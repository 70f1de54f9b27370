//! The overhead a program compiled with `clang-19 -fplugin=libompadapt.so` pays per trained
//! region execution: compiles benchmarks/c/region_overhead.c with the plugin (built by
//! `cargo build --release`) and runs it. Prints the figure; `cargo bench` runs it.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let target = std::env::var("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|_| root.join("target"));
    let plugin = target.join("release/libompadapt.so");
    if !plugin.exists() {
        eprintln!("skipped: {} missing (run `cargo build --release` first)", plugin.display());
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = dir.path().join("region_overhead");
    let st = Command::new("clang-19")
        .args(["-O2", "-fopenmp"])
        .arg(format!("-fplugin={}", plugin.display()))
        .arg(root.join("benchmarks/c/region_overhead.c"))
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("clang-19");
    assert!(st.success(), "compiling region_overhead.c failed");
    let out = Command::new(&exe).current_dir(dir.path()).env("OMPADAPT_PERSIST", "0").output().expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    print!("{}", String::from_utf8_lossy(&out.stdout));
}
