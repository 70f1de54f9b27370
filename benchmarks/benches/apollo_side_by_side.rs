//! One trained region execution, side by side with LLNL Apollo 2.0 in one process, alternating,
//! on the same loop: the code `-fplugin=libompadapt.so` generates, ompadapt through Apollo's C
//! ABI, and Apollo's own library through the same ABI, with 1 and 4 features
//! (benchmarks/c/apollo_side_by_side.c). Prints medians and the ratios to Apollo.
//!
//! Apollo is built in Release mode by `scripts/build-apollo.sh` (or named with `APOLLO_LIB`);
//! without it only ompadapt's figures are printed. `cargo bench -p ompadapt-benchmarks --bench
//! apollo_side_by_side` (about 10 s; needs `cargo build --release` first for the plugin).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let root = ompadapt_benchmarks::workspace_root();
    let Some([plugin, rt]) = ompadapt_benchmarks::release_libraries(["libompadapt.so", "libompadapt_rt.so"]) else {
        return;
    };
    let apollo = std::env::var("APOLLO_LIB").map(PathBuf::from).ok().or_else(|| {
        let out = Command::new(root.join("scripts/build-apollo.sh")).output().ok()?;
        out.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = dir.path().join("apollo_side_by_side");
    let st = Command::new("clang-19")
        .args(["-O2", "-fopenmp"])
        .arg(format!("-fplugin={}", plugin.display()))
        .arg(root.join("benchmarks/c/apollo_side_by_side.c"))
        .args(["-ldl", "-o"])
        .arg(&exe)
        .status()
        .expect("clang-19");
    assert!(st.success(), "compiling apollo_side_by_side.c failed");
    let mut c = Command::new(&exe);
    c.arg(&rt).current_dir(dir.path()).env("OMPADAPT_PERSIST", "0");
    match &apollo {
        Some(a) => {
            c.arg(a);
        }
        None => eprintln!("Apollo 2.0 not built (scripts/build-apollo.sh failed); ompadapt's figures only"),
    }
    let out = c.output().expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Apollo prints its own lines on stdout (CREATE region ...); keep the table
    let text = String::from_utf8_lossy(&out.stdout);
    let table = text.lines().skip_while(|l| !l.starts_with("trained region execution")).take_while(|l| !l.starts_with("Apollo:"));
    for l in table {
        println!("{l}");
    }
    println!("paper (Apollo on the paper's machines): 200–646 ns instrumentation per region execution");
}
