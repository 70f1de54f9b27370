//! The same region executed concurrently by 16 OpenMP threads — in a worksharing loop, from
//! tasks, and under nested parallelism, with another region nested inside it — through the C
//! ABI (`tests/c/omp_concurrency.c`, compiled with clang-19 -fopenmp and linked with the
//! runtime). Every execution must be counted exactly, which the JSON report
//! (`OMPADAPT_REPORT=json:<file>`) shows. Skipped, with the reason printed, without clang-19.

use std::path::{Path, PathBuf};
use std::process::Command;

fn lib_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.to_path_buf();
    dir.join("libompadapt_rt.so").exists().then_some(dir)
}

#[test]
fn sixteen_openmp_threads_tasks_and_nesting_lose_nothing() {
    let have_clang = Command::new("clang-19").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    let Some(lib) = lib_dir().filter(|_| have_clang) else {
        println!("skipped: clang-19 or libompadapt_rt.so not found");
        return;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = std::env::temp_dir().join(format!("ompadapt-openmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let exe = work.join("omp_concurrency");
    let out = Command::new("clang-19")
        .args(["-O2", "-fopenmp", "-Wall", "-Werror"])
        .arg(format!("-I{}", manifest.join("include").display()))
        .arg(manifest.join("tests/c/omp_concurrency.c"))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lompadapt_rt")
        .arg(format!("-Wl,-rpath,{}:/usr/lib/llvm-19/lib", lib.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "clang-19: {}", String::from_utf8_lossy(&out.stderr));
    let report = work.join("report.json");
    let per = 500;
    let out = Command::new(&exe)
        .arg(per.to_string())
        .env("OMPADAPT_PERSIST", "0")
        .env("OMPADAPT_REPORT", format!("json:{}", report.display()))
        .env("OMP_WAIT_POLICY", "passive")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["format"], "ompadapt-report");
    let region = |name: &str| json["regions"].as_array().unwrap().iter().find(|r| r["region"] == name).unwrap().clone();
    let (outer, inner) = (region("outer"), region("inner"));
    let n_outer = 3 * per * 16;
    let n_inner = n_outer / 4;
    assert_eq!(outer["executions"], n_outer, "{outer}");
    assert_eq!(inner["executions"], n_inner, "{inner}");
    for r in [&outer, &inner] {
        let e = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(e("exploring") + e("chosen_by_model") + e("unrecorded"), e("executions"));
        let timed: u64 = r["timings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["exploring_runs"].as_u64().unwrap() + t["model_runs"].as_u64().unwrap())
            .sum();
        assert_eq!(timed + e("unrecorded"), e("executions"), "every recorded execution is in the timings");
        assert!(r["model"].is_object(), "trained: {r}");
    }
    let _ = std::fs::remove_dir_all(&work);
}
