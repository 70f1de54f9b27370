//! The overhead a program compiled with `clang-19 -fplugin=libompadapt.so` pays per trained
//! region execution: compiles benchmarks/c/region_overhead.c with the plugin (built by
//! `cargo build --release`) and runs it. Prints the figure; `cargo bench` runs it.

use std::process::Command;

fn main() {
    let root = ompadapt_benchmarks::workspace_root();
    let Some([plugin]) = ompadapt_benchmarks::release_libraries(["libompadapt.so"]) else {
        return;
    };
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
