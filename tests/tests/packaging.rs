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

/// Configures tests/cmake_project in `build` against the ompadapt installed in `prefix`.
fn configure(build: &std::path::Path, prefix: &std::path::Path, extra: &[String]) -> Run {
    run(Command::new("cmake")
        .arg("-S")
        .arg(source("cmake_project"))
        .arg("-B")
        .arg(build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
        .arg("-DCMAKE_C_COMPILER=clang-19")
        .arg(format!("-DLISTING3={}", source("programs/listing3.c").display()))
        .arg(format!("-DPROGRAMS_DIR={}", source("programs").display()))
        .args(extra))
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
    let configure = configure(&build, &prefix, &[]);
    configure.expect_ok("cmake configure");
    assert!(!configure.stderr.contains("ompadapt:"), "no compiler warning expected: {}", configure.stderr);
    run(Command::new("cmake").arg("--build").arg(&build)).expect_ok("cmake --build");
    let out = run_program(&build.join("listing3"), dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("listing3 built with CMake");
    assert_eq!(variants_ran(&out.stdout), BTreeSet::from(["0".to_string(), "1".to_string()]));
    // linking OmpAdapt::adaptive alone is enough (it brings -fopenmp)
    let out = run_program(&build.join("listing3_host"), dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("listing3_host built with only OmpAdapt::adaptive");
    assert_eq!(variants_ran(&out.stdout), BTreeSet::from(["0".to_string(), "1".to_string()]));
    // the offload option: an offload image is linked in, and the program runs both variants
    let images = run(Command::new("llvm-objdump-19").arg("--offloading").arg(build.join("listing3_offload")));
    assert!(images.stdout.contains("x86_64-pc-linux-gnu"), "no offload image:\n{}", images.stdout);
    assert!(!run(Command::new("llvm-objdump-19").arg("--offloading").arg(build.join("listing3_host"))).stdout.contains("x86_64-pc-linux-gnu"));
    let out = run_program(&build.join("listing3_offload"), dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("listing3_offload built with OMPADAPT_OFFLOAD_TARGETS");
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

/// Zero-source-change mode through CMake: `ompadapt_enable_auto(<target> KINDS ...)` for one
/// target, the cache variable OMPADAPT_AUTO for every target linking OmpAdapt::adaptive, and a
/// target without the plugin as the reference; all built from unmodified corpus programs.
#[test]
fn cmake_zero_source_change_mode() {
    let dir = scratch();
    let prefix = dir.path().join("prefix");
    install(&prefix);
    let build = dir.path().join("build");
    configure(&build, &prefix, &[format!("-DCORPUS_DIR={}", source("auto_corpus").display()), "-DOMPADAPT_AUTO=cpu,gpu".into()])
        .expect_ok("cmake configure");
    run(Command::new("cmake").arg("--build").arg(&build).args(["-j", "2"])).expect_ok("cmake --build");
    let report = |exe: &str| -> (Run, Option<serde_json::Value>) {
        let file = dir.path().join(format!("{exe}.json"));
        let spec = format!("json:{}", file.display());
        let out = run_program(&build.join(exe), dir.path(), &[("OMPADAPT_PERSIST", "0"), ("OMPADAPT_REPORT", &spec)]);
        out.expect_ok(exe);
        let json = std::fs::read_to_string(&file).ok().map(|t| serde_json::from_str(&t).expect("report JSON"));
        (out, json)
    };
    let regions = |json: &serde_json::Value| -> Vec<(String, Vec<String>)> {
        json["regions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let vs = r["variants"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
                (r["region"].as_str().unwrap().to_string(), vs)
            })
            .collect()
    };
    let (stock, none) = report("reductions_stock");
    assert!(none.is_none(), "a target without OmpAdapt::adaptive has no adaptive region");
    // OMPADAPT_AUTO=cpu,gpu: both kernels of the program, named <function>@<file>:<line>.
    let (adaptive, json) = report("reductions_adaptive");
    assert_eq!(adaptive.stdout, stock.stdout, "zero-source-change mode keeps the results");
    let r = regions(&json.expect("a report"));
    let names: BTreeSet<String> = r.iter().map(|(n, _)| n.split(':').next().unwrap().rsplit('/').next().unwrap().to_string()).collect();
    assert_eq!(names, BTreeSet::from(["main.c".to_string()]), "{r:?}");
    assert!(r.iter().any(|(n, _)| n.starts_with("dot@")) && r.iter().any(|(n, _)| n.starts_with("stats@")), "{r:?}");
    assert!(r.iter().all(|(_, v)| v == &["cpu", "gpu"]), "{r:?}");
    // ompadapt_enable_auto's own kinds win over the cache variable for that target.
    let (jacobi, json) = report("jacobi_auto");
    assert!(jacobi.stdout.ends_with("PASS\n"), "{}", jacobi.stdout);
    let r = regions(&json.expect("a report"));
    assert_eq!(r.len(), 3, "jacobi2d's three kernels: {r:?}");
    assert!(r.iter().all(|(n, v)| n.starts_with("relax@") && v == &["cpu", "gpu", "thread_limit=64", "thread_limit=128"]), "{r:?}");
    // listing3's explicit directives keep their meaning under OMPADAPT_AUTO.
    let out = run_program(&build.join("listing3"), dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("listing3 with OMPADAPT_AUTO");
    assert_eq!(variants_ran(&out.stdout), BTreeSet::from(["0".to_string(), "1".to_string()]));
}
