//! Packaging: scripts/install.sh into a scratch prefix, then a CMake project using
//! find_package(OmpAdapt) and a pkg-config build both produce adaptive programs that run.

use ompadapt_tests::*;
use std::collections::BTreeSet;
use std::process::Command;

fn install(prefix: &std::path::Path) {
    plugin();
    let out = run(Command::new(workspace_root().join("scripts/install.sh")).arg(prefix).env("OMPADAPT_LIB_DIR", lib_dir()));
    out.expect_ok("scripts/install.sh");
}

fn variants_ran(stdout: &str) -> BTreeSet<String> {
    records(stdout, "RUN").iter().map(|r| r["variant"].clone()).collect()
}

#[test]
fn cmake_find_package_builds_an_adaptive_program() {
    if run(Command::new("cmake").arg("--version")).status.code().is_none() {
        panic!("cmake is missing: scripts/bootstrap.sh installs it");
    }
    let dir = scratch();
    let prefix = dir.path().join("prefix");
    install(&prefix);
    let build = dir.path().join("build");
    let configure = run(Command::new("cmake")
        .arg("-S")
        .arg(source("cmake_project"))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
        .arg("-DCMAKE_C_COMPILER=clang-19")
        .arg(format!("-DLISTING3={}", source("programs/listing3.c").display()))
        .arg(format!("-DPROGRAMS_DIR={}", source("programs").display())));
    configure.expect_ok("cmake configure");
    assert!(!configure.stderr.contains("ompadapt:"), "no compiler warning expected: {}", configure.stderr);
    run(Command::new("cmake").arg("--build").arg(&build)).expect_ok("cmake --build");
    let out = run_program(&build.join("listing3"), dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("listing3 built with CMake");
    assert_eq!(variants_ran(&out.stdout), BTreeSet::from(["0".to_string(), "1".to_string()]));
}

#[test]
fn pkg_config_gives_the_plugin_and_the_runtime() {
    let dir = scratch();
    let prefix = dir.path().join("prefix");
    install(&prefix);
    let pc = |args: &[&str]| {
        let out = run(Command::new("pkg-config").args(args).env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")));
        out.expect_ok("pkg-config");
        out.stdout.trim().to_string()
    };
    let plugin = pc(&["--variable=plugin", "ompadapt"]);
    assert_eq!(plugin, prefix.join("lib/libompadapt.so").display().to_string());
    // Explicitly linked runtime (pkg-config --libs) plus the plugin: the linked one is used.
    let exe = dir.path().join("listing3");
    let mut c = Command::new(CLANG);
    c.args(["-O2", "-fopenmp", HOST_OFFLOAD])
        .arg(format!("-fplugin={plugin}"))
        .args(pc(&["--cflags", "ompadapt"]).split_whitespace())
        .arg(format!("-I{}", source("programs").display()))
        .arg(source("programs/listing3.c"))
        .args(pc(&["--libs", "ompadapt"]).split_whitespace())
        .arg("-o")
        .arg(&exe);
    run(&mut c).expect_ok("compiling with pkg-config flags");
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0"), ("OMPADAPT_RUNTIME", "/nonexistent")]);
    out.expect_ok("listing3 linked through pkg-config");
    assert!(!out.stderr.contains("cannot use the runtime"), "{}", out.stderr);
    assert_eq!(variants_ran(&out.stdout).len(), 2);
}
